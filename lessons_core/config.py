"""Project settings from ``.lessons/config.json``; every key has a default."""

from __future__ import annotations

from lessons_core import hookjson
from lessons_core.errors import InvalidLessonFile
from lessons_core.fsutil import read_store_file
from lessons_core.records import NamedTuple

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from lessons_core.fsutil import StrPath

DELIVERY_MODES = ("gate", "context")


class Config(NamedTuple):
    """Budgets, delivery and telemetry. Unknown keys are an error, so typos surface.

    A named tuple rather than a dataclass, like every record the hook reads: importing
    ``dataclasses`` (it pulls in ``inspect``) costs about as much as starting Python (and
    ``typing`` nearly as much: see lessons_core.records).
    """

    max_trigger_matches: int = 3
    max_prompt_matches: int = 3
    max_tokens: int = 600
    # Broad triggers (docs/recall.md): shown only when no specific one matches a call,
    # at most this many a call and this many a session (until compaction).
    max_broad_matches: int = 1
    max_broad_per_session: int = 3
    # Tokens a session (until compaction) is shown before only the rules about the very
    # file or command touched, and gated ones, still speak.
    max_session_tokens: int = 1000
    delivery_file: str = "context"
    delivery_command: str = "gate"
    session_note: bool = True
    telemetry: bool = False
    telemetry_max_bytes: int = 5_000_000
    # From this many lesson files a background watcher (Linux) replaces the per-file
    # freshness check of every hook (lessons_core.watch); 0 turns it off.
    watch_from: int = 5000

    def to_dict(self) -> dict[str, Any]:
        return self._asdict()

    @classmethod
    def from_dict(cls, data: dict[str, Any], source: StrPath) -> Config:
        known = cls._field_defaults
        values: dict[str, Any] = {}
        for key, value in data.items():
            if key not in known:
                raise InvalidLessonFile(
                    source,
                    f"unknown setting; known: {', '.join(sorted(known))}",
                    key,
                    kind="unknown-field",
                )
            default = known[key]
            if type(value) is not type(default):
                raise InvalidLessonFile(source, f"must be a {type(default).__name__}", key)
            if key.startswith("delivery_") and value not in DELIVERY_MODES:
                raise InvalidLessonFile(source, "must be 'gate' or 'context'", key)
            if isinstance(value, int) and not isinstance(value, bool) and value < 0:
                raise InvalidLessonFile(source, "must not be negative", key)
            values[key] = value
        return cls(**values)


def load_config(path: StrPath) -> Config:
    """Read the config file; a missing file means all defaults.

    Parsed with ``hookjson``: the hook reads this file on every call.
    """
    try:
        raw = read_store_file(path)  # never through a link, nor into a FIFO
    except FileNotFoundError:
        return Config()
    try:
        data = hookjson.loads(raw)
    except ValueError as err:
        raise InvalidLessonFile(path, f"not valid JSON ({err}); fix or remove the file") from None
    if not isinstance(data, dict):
        raise InvalidLessonFile(path, "must hold a JSON object")
    return Config.from_dict(data, path)
