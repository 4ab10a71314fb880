"""Project settings from ``.lessons/config.json``; every key has a default."""

from __future__ import annotations

from dataclasses import asdict, dataclass, fields
from pathlib import Path
from typing import Any

from lessons_core.errors import InvalidLessonFile
from lessons_core.jsonio import load_object

DELIVERY_MODES = ("gate", "context")


@dataclass(frozen=True)
class Config:
    """Budgets, delivery and telemetry. Unknown keys are an error, so typos surface."""

    max_trigger_matches: int = 5
    max_prompt_matches: int = 3
    max_tokens: int = 600
    delivery_file: str = "context"
    delivery_command: str = "gate"
    session_note: bool = True
    telemetry: bool = False
    telemetry_max_bytes: int = 5_000_000

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any], source: Path) -> Config:
        known = {f.name: f for f in fields(cls)}
        values: dict[str, Any] = {}
        for key, value in data.items():
            if key not in known:
                raise InvalidLessonFile(
                    source,
                    f"unknown setting; known: {', '.join(sorted(known))}",
                    key,
                    kind="unknown-field",
                )
            default = getattr(cls, key)
            if type(value) is not type(default):
                raise InvalidLessonFile(source, f"must be a {type(default).__name__}", key)
            if key.startswith("delivery_") and value not in DELIVERY_MODES:
                raise InvalidLessonFile(source, "must be 'gate' or 'context'", key)
            if isinstance(value, int) and not isinstance(value, bool) and value < 0:
                raise InvalidLessonFile(source, "must not be negative", key)
            values[key] = value
        return cls(**values)


def load_config(path: Path) -> Config:
    """Read the config file; a missing file means all defaults."""
    if not path.exists():
        return Config()
    return Config.from_dict(load_object(path), path)
