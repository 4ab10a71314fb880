"""The lesson record and its one validating constructor.

A lesson is one imperative sentence plus the triggers that say where it applies. The
on-disk form is a flat JSON object; ``Lesson.from_dict`` is the only way in and names the
file and key at fault, ``Lesson.to_dict`` the only way out.
"""

from __future__ import annotations

import datetime as _dt
import enum
import re
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from lessons_core.errors import InvalidLessonFile
from lessons_core.matching.forbid import ForbidPatternError, check_forbid
from lessons_core.matching.thresholds import MAX_STORED_RATIONALE_CHARS, MAX_STORED_RULE_CHARS

# \Z, not $: "$" also matches before a final newline.
ID_PATTERN = re.compile(r"^[a-z0-9][a-z0-9-]{0,79}\Z")
DATE_PATTERN = re.compile(r"^[0-9]{4}-[0-9]{2}-[0-9]{2}\Z")
# A full commit hash, SHA-1 or SHA-256.
COMMIT_PATTERN = re.compile(r"^(?:[0-9a-f]{40}|[0-9a-f]{64})\Z")
MAX_RULE_CHARS = 300


class Status(str, enum.Enum):
    """Only ``active`` lessons are ever recalled."""

    ACTIVE = "active"
    DEPRECATED = "deprecated"
    SUPERSEDED = "superseded"


@dataclass(frozen=True)
class Triggers:
    """Where a lesson applies: repo-relative globs, command patterns, keywords."""

    files: tuple[str, ...] = ()
    commands: tuple[str, ...] = ()
    keywords: tuple[str, ...] = ()

    def is_empty(self) -> bool:
        return not (self.files or self.commands or self.keywords)

    def merged(self, other: Triggers) -> Triggers:
        """Union of both, keeping first-seen order."""
        return Triggers(
            files=_union(self.files, other.files),
            commands=_union(self.commands, other.commands),
            keywords=_union(self.keywords, other.keywords),
        )

    def to_dict(self) -> dict[str, list[str]]:
        return {
            "files": list(self.files),
            "commands": list(self.commands),
            "keywords": list(self.keywords),
        }


@dataclass(frozen=True)
class Checked:
    """When a lesson was last re-read against its code (``lessons touch``): the commit
    checked out then, and the day. Drift (validate L304) counts commits after it."""

    commit: str
    date: str

    def to_dict(self) -> dict[str, str]:
        return {"commit": self.commit, "date": self.date}


@dataclass(frozen=True)
class Lesson:
    """One rule. Frozen: changes produce a new record via ``dataclasses.replace``."""

    id: str
    rule: str
    topics: tuple[str, ...]
    triggers: Triggers
    created: str
    status: Status = Status.ACTIVE
    rationale: str | None = None
    evidence: tuple[str, ...] = ()
    superseded_by: str | None = None
    gate: bool = False
    # Delivered at session start and after compaction, whatever the agent touches
    # (lessons_core.delivery.always); triggers are optional then.
    always: bool = False
    # Why it was deprecated or superseded (``lessons deprecate --reason``).
    reason: str | None = None
    checked: Checked | None = None
    # Set only by a person (``lessons add --enforce``): every matching command is refused
    # with the rule, not only the first of a session.
    enforce: bool = False
    # Set only by a person (``lessons add --forbid``): an RE2 pattern that a change to the
    # lesson's files must not add (lessons_core.matching.forbid).
    forbid: str | None = None
    # Set only by a person (``lessons add --broad-reason``): why the lesson's file triggers
    # are deliberately this broad; capture and validate then say nothing of their breadth.
    broad_reason: str | None = None

    @property
    def is_active(self) -> bool:
        return self.status is Status.ACTIVE

    def with_status(self, status: Status, superseded_by: str | None = None) -> Lesson:
        return replace(self, status=status, superseded_by=superseded_by)

    def readded(self, again: Lesson) -> Lesson:
        """This lesson after its rule came in again (``lessons add`` of the same rule, or an
        import of it): ``again``'s triggers, topics and evidence join these, its rationale
        fills a missing one, and a gate, an always-on or enforce mark on either side
        stays; ``again``'s forbid pattern replaces this one's. Id, date and status stay."""
        return replace(
            self,
            topics=_union(self.topics, again.topics),
            triggers=self.triggers.merged(again.triggers),
            evidence=_union(self.evidence, again.evidence),
            rationale=self.rationale or again.rationale or None,
            gate=self.gate or again.gate,
            always=self.always or again.always,
            enforce=self.enforce or again.enforce,
            forbid=again.forbid or self.forbid,
            broad_reason=again.broad_reason or self.broad_reason,
        )

    def to_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "id": self.id,
            "rule": self.rule,
            "topics": list(self.topics),
            "triggers": self.triggers.to_dict(),
            "evidence": list(self.evidence),
            "status": self.status.value,
            "created": self.created,
        }
        if self.rationale is not None:
            data["rationale"] = self.rationale
        if self.superseded_by is not None:
            data["superseded_by"] = self.superseded_by
        if self.gate:
            data["gate"] = True
        if self.always:
            data["always"] = True
        if self.reason is not None:
            data["reason"] = self.reason
        if self.checked is not None:
            data["checked"] = self.checked.to_dict()
        if self.enforce:
            data["enforce"] = True
        if self.forbid is not None:
            data["forbid"] = self.forbid
        if self.broad_reason is not None:
            data["broad_reason"] = self.broad_reason
        return data

    @classmethod
    def from_dict(cls, data: dict[str, Any], source: Path) -> Lesson:
        """Validate ``data`` read from ``source``; raise ``InvalidLessonFile`` naming the key."""
        unknown = sorted(set(data) - _KNOWN_KEYS)
        if unknown:
            raise InvalidLessonFile(
                source,
                f"unknown field(s) {', '.join(unknown)}; remove them",
                unknown[0],
                kind="unknown-field",
            )
        for key in ("id", "rule", "topics", "triggers", "status", "created"):
            if key not in data:
                raise InvalidLessonFile(source, "missing required field", key, kind="missing-field")
        lesson_id = _string(data, "id", source)
        if not ID_PATTERN.match(lesson_id):
            raise InvalidLessonFile(
                source, "id must be lowercase letters, digits and dashes (at most 80)", "id"
            )
        rule = _string(data, "rule", source).strip()
        if not rule:
            raise InvalidLessonFile(source, "rule is empty", "rule")
        _within(rule, MAX_STORED_RULE_CHARS, "rule", source)
        try:
            status = Status(data["status"])
        except ValueError:
            raise InvalidLessonFile(
                source,
                "status must be active, deprecated or superseded",
                "status",
                kind="bad-status",
            ) from None
        created = _string(data, "created", source)
        if not DATE_PATTERN.match(created):
            raise InvalidLessonFile(source, "created must be a YYYY-MM-DD date", "created")
        superseded_by = data.get("superseded_by")
        # An id names a file under .lessons/lessons/; '../x' would name one elsewhere.
        if superseded_by is not None and not (
            isinstance(superseded_by, str) and ID_PATTERN.match(superseded_by)
        ):
            raise InvalidLessonFile(source, "must be a lesson id", "superseded_by")
        if status is Status.SUPERSEDED and not superseded_by:
            raise InvalidLessonFile(
                source, "a superseded lesson names its successor", "superseded_by"
            )
        rationale = data.get("rationale")
        if rationale is not None and not isinstance(rationale, str):
            raise InvalidLessonFile(source, "must be a string", "rationale")
        if rationale is not None:
            _within(rationale, MAX_STORED_RATIONALE_CHARS, "rationale", source)
        gate = data.get("gate", False)
        if not isinstance(gate, bool):
            raise InvalidLessonFile(source, "must be true or false", "gate")
        always = data.get("always", False)
        if not isinstance(always, bool):
            raise InvalidLessonFile(source, "must be true or false", "always")
        reason = data.get("reason")
        if reason is not None and not isinstance(reason, str):
            raise InvalidLessonFile(source, "must be a string", "reason")
        enforce = data.get("enforce", False)
        if not isinstance(enforce, bool):
            raise InvalidLessonFile(source, "must be true or false", "enforce")
        triggers = _triggers(data["triggers"], source)
        forbid = _forbid(data["forbid"], triggers, source) if "forbid" in data else None
        broad_reason = data.get("broad_reason")
        if broad_reason is not None and not (
            isinstance(broad_reason, str) and broad_reason.strip()
        ):
            raise InvalidLessonFile(
                source,
                "must be a sentence saying why the file triggers are this broad",
                "broad_reason",
            )
        if broad_reason is not None:
            _within(broad_reason, MAX_STORED_RULE_CHARS, "broad_reason", source)
        return cls(
            id=lesson_id,
            rule=rule,
            topics=_strings(data, "topics", source),
            triggers=triggers,
            created=created,
            status=status,
            rationale=rationale,
            evidence=_strings(data, "evidence", source) if "evidence" in data else (),
            superseded_by=superseded_by,
            gate=gate,
            always=always,
            reason=reason,
            checked=_checked(data["checked"], source) if "checked" in data else None,
            enforce=enforce,
            forbid=forbid,
            broad_reason=broad_reason,
        )


_KNOWN_KEYS = frozenset(
    {
        "id",
        "rule",
        "topics",
        "triggers",
        "evidence",
        "status",
        "created",
        "rationale",
        "superseded_by",
        "gate",
        "always",
        "reason",
        "checked",
        "enforce",
        "forbid",
        "broad_reason",
    }
)
_TRIGGER_KEYS = ("files", "commands", "keywords")


def today() -> str:
    return _dt.date.today().isoformat()


def _string(data: dict[str, Any], key: str, source: Path) -> str:
    value = data[key]
    if not isinstance(value, str):
        raise InvalidLessonFile(source, "must be a string", key)
    return value


def _within(text: str, limit: int, key: str, source: Path) -> None:
    """Refuse ``text`` over ``limit`` characters: a hand-written one must not make every
    index build tokenise it (docs/format.md)."""
    if len(text) > limit:
        raise InvalidLessonFile(
            source, f"the {key} is {len(text):,} characters; the limit is {limit:,}", key
        )


def _strings(data: dict[str, Any], key: str, source: Path) -> tuple[str, ...]:
    value = data[key]
    if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
        raise InvalidLessonFile(source, "must be a list of strings", key)
    return tuple(value)


def _triggers(value: Any, source: Path) -> Triggers:
    if not isinstance(value, dict):
        raise InvalidLessonFile(
            source, "must be an object with files, commands, keywords", "triggers"
        )
    unknown = sorted(set(value) - set(_TRIGGER_KEYS))
    if unknown:
        raise InvalidLessonFile(
            source,
            f"unknown trigger kind(s) {', '.join(unknown)}",
            f"triggers.{unknown[0]}",
            kind="unknown-field",
        )
    lists = {}
    for key in _TRIGGER_KEYS:
        items = value.get(key, [])
        if not isinstance(items, list) or not all(isinstance(i, str) and i for i in items):
            raise InvalidLessonFile(
                source, "must be a list of non-empty strings", f"triggers.{key}"
            )
        lists[key] = tuple(items)
    return Triggers(**lists)


def _checked(value: Any, source: Path) -> Checked:
    if not (
        isinstance(value, dict)
        and set(value) == {"commit", "date"}
        and isinstance(value["commit"], str)
        and COMMIT_PATTERN.match(value["commit"])
        and isinstance(value["date"], str)
        and DATE_PATTERN.match(value["date"])
    ):
        raise InvalidLessonFile(
            source,
            'must be {"commit": a full commit hash, "date": a YYYY-MM-DD date}; '
            "run 'lessons touch ID' to write it",
            "checked",
        )
    return Checked(commit=value["commit"], date=value["date"])


def _forbid(value: Any, triggers: Triggers, source: Path) -> str:
    if not isinstance(value, str):
        raise InvalidLessonFile(source, "must be a string (an RE2 pattern)", "forbid")
    if not triggers.files:
        raise InvalidLessonFile(
            source,
            "a forbid pattern checks changes to the lesson's files; add a file trigger",
            "forbid",
        )
    try:
        return check_forbid(value)
    except ForbidPatternError as err:
        raise InvalidLessonFile(source, f"the pattern {err}", "forbid") from None


def _union(first: tuple[str, ...], second: tuple[str, ...]) -> tuple[str, ...]:
    return tuple(dict.fromkeys(first + second))
