"""Project settings from ``.lessons/config.json``; every key has a default."""

# Annotations are evaluated, not postponed (no ``from __future__ import annotations``):
# a NamedTuple compiles each string annotation of its fields when its class is made.
import json
from typing import TYPE_CHECKING, Any, NamedTuple, TypeAlias

from lessons_core.errors import InvalidLessonFile, quoted
from lessons_core.fsutil import read_store_file

if TYPE_CHECKING:
    from lessons_core.errors import StrPath

# A setting's problem: (its key, None for the whole file; what is wrong; the kind of
# InvalidLessonFile it is reported as).
Problem: TypeAlias = tuple[str | None, str, str]

DELIVERY_MODES = ("gate", "context")
# Settings of earlier versions that no longer do anything: accepted and ignored, so an
# upgrade never turns a committed config.json into a validate error.
RETIRED = frozenset({"watch_from"})


def _refuse_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def parse_json(raw: bytes) -> Any:
    """A settings file's JSON; ``NaN`` and ``Infinity`` are refused (``ValueError``), as
    in every other file of a store."""
    return json.loads(raw, parse_constant=_refuse_constant)


class Config(NamedTuple):
    """Budgets, delivery and telemetry. Unknown keys are an error, so typos surface
    (``lessons validate`` reports them; recall runs with the defaults meanwhile)."""

    max_trigger_matches: int = 3
    max_prompt_matches: int = 1
    max_tokens: int = 600
    # Broad triggers (docs/recall.md): shown only when no specific one matches a call,
    # at most this many a call and this many a session (until compaction).
    max_broad_matches: int = 1
    max_broad_per_session: int = 3
    # Tokens of rules a session (until compaction) is shown before only the rules about the
    # very file or command touched, and gated ones, still speak. Those draw on none of it
    # (``Hit.pinned``): the budget is the folder, keyword and prompt rules' alone, so a
    # test command's rules cannot spend it on the session's first calls.
    max_session_tokens: int = 200
    # How a file's rules reach the model when they did not come with a read of the file
    # (always as context, before the change): "gate" refuses the first change once with
    # them (a new file, a read before a compaction, a lesson added since); "context" lets
    # it run and sends them beside its result, after the change.
    delivery_file: str = "gate"
    delivery_command: str = "gate"
    session_note: bool = True
    # Tokens the always-on lessons (and the topics line) take at session start and after
    # compaction (lessons_core.delivery.always); what does not fit is counted in a notice.
    always_max_tokens: int = 300
    # A line naming the topics with most lessons, after the always-on ones, in the same
    # budget: what the agent can look up on demand.
    session_topics: bool = False
    # Ask the agent once, at the end of a session that showed a lesson to keep and kept
    # none, to capture it (lessons_core.feedback.stop_capture).
    stop_capture: bool = True
    telemetry: bool = False
    telemetry_max_bytes: int = 5_000_000
    # From this many lesson files a hook checks a rotating share of them against the cached
    # index instead of every one (lessons_core.index.cache); 0: every file, every hook.
    sampled_check_from: int = 5000
    # Drift (validate L304): a lesson whose file triggers match files changed by this many
    # commits since it was written or last re-checked (``lessons touch``) is named; git
    # history is read this many commits back from HEAD, one walk for all lessons.
    drift_min_commits: int = 10
    drift_max_commits: int = 1000
    # Folders inside the repo holding lessons/*.json a team shares across repositories (a
    # git submodule, a subtree, a vendored copy): recalled with the project's lessons,
    # labelled with the folder's name (lessons_core.store.sources).
    packs: tuple[str, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        """The settings as config.json holds them."""
        return {**self._asdict(), "packs": list(self.packs)}


def parse_settings(data: object) -> tuple[Config, list[Problem]]:
    """The settings in ``data`` (a parsed config.json), each bad one at its default, and
    what is wrong with each: an unknown key, a value of the wrong type or out of range.

    Nothing here raises: one bad setting never takes the others, nor recall, with it.
    """
    if not isinstance(data, dict):
        return Config(), [(None, "must hold a JSON object", "invalid-value")]
    known = Config._field_defaults
    values: dict[str, Any] = {}
    problems: list[Problem] = []
    for key, value in data.items():
        if key in RETIRED:
            continue
        if key not in known:
            names = ", ".join(sorted(known))
            unknown = f"setting {quoted(key)} is unknown; known: {names}"
            problems.append((key, unknown, "unknown-field"))
            continue
        wrong = _value_problem(key, value, known[key])
        if wrong is None:
            values[key] = tuple(value) if isinstance(value, list) else value
        else:
            default = json.dumps(known[key])
            wrong = f"setting {quoted(key)} {wrong}; the default {default} is used"
            problems.append((key, wrong, "invalid-value"))
    return Config(**values), problems


def _value_problem(key: str, value: Any, default: Any) -> str | None:
    if isinstance(default, tuple):  # packs: a list of folder paths
        if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
            return 'must be a list of folder paths, such as ["vendor/platform-lessons"]'
        return None
    if type(value) is not type(default):  # bool is not an int here, nor 3.0 an int
        return f"must be {_TYPE_NAMES[type(default)]}"
    if key.startswith("delivery_") and value not in DELIVERY_MODES:
        return "must be 'gate' or 'context'"
    if isinstance(value, int) and not isinstance(value, bool) and value < 0:
        return "must not be negative"
    return None


_TYPE_NAMES = {int: "a whole number", str: "a string", bool: "true or false"}


def read_config(path: "StrPath") -> tuple[Config, list[Problem]]:
    """The settings in the config file and every problem found (see ``parse_settings``);
    a missing file means all defaults, one that cannot be read or parsed too."""
    try:
        raw = read_store_file(path)  # never through a link, nor into a FIFO
    except FileNotFoundError:
        return Config(), []
    except InvalidLessonFile as err:
        return Config(), [(None, err.problem, err.kind)]
    except OSError as err:
        return Config(), [(None, f"cannot be read ({err.strerror})", "unparsable")]
    try:
        data = parse_json(raw)
    except (ValueError, RecursionError) as err:  # also bytes that are not UTF-8
        return Config(), [(None, f"not valid JSON ({err}); fix or remove the file", "unparsable")]
    return parse_settings(data)


def load_config(path: "StrPath") -> Config:
    """The settings recall runs with: a bad setting (or file) falls back to its default,
    so a typo in config.json never silences the hook; ``lessons validate`` reports it."""
    return read_config(path)[0]
