"""What an import would write, and the notes on what changed or was left behind.

Every importer produces an ``ImportPlan`` without touching the store; ``apply_plan`` then
writes it. Keeping the two apart gives ``--dry-run`` for free and makes re-importing the
same source a byte-for-byte no-op.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from lessons_core.containment import is_within, require_inside
from lessons_core.store.model import Lesson
from lessons_core.store.topics import Topic


class NoteKind(str, enum.Enum):
    """How much a note matters: a loss, a faithful change of form, or a quality warning."""

    NOT_CARRIED = "not_carried"
    TRANSLATED = "translated"
    WARNING = "warning"


@dataclass(frozen=True)
class Note:
    """One remark about the import; ``subject`` names the lesson or source file concerned."""

    kind: NoteKind
    code: str
    subject: str
    detail: str

    def to_dict(self) -> dict[str, str]:
        return {"code": self.code, "subject": self.subject, "detail": self.detail}


@dataclass(frozen=True)
class ImportPlan:
    source: str
    format: str
    lessons: tuple[Lesson, ...]
    topics: tuple[Topic, ...] = ()
    notes: tuple[Note, ...] = ()


@dataclass
class Outcome:
    """Ids by what the import did (or, on a dry run, would do) with them."""

    created: list[str] = field(default_factory=list)
    updated: list[str] = field(default_factory=list)
    unchanged: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, list[str]]:
        return {"created": self.created, "updated": self.updated, "unchanged": self.unchanged}


@dataclass(frozen=True)
class ImportResult:
    plan: ImportPlan
    lessons: Outcome
    topics: Outcome
    notes: tuple[Note, ...]
    dry_run: bool

    def notes_of(self, kind: NoteKind) -> list[Note]:
        return [note for note in self.notes if note.kind is kind]

    def to_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "source": self.plan.source,
            "format": self.plan.format,
            "dry_run": self.dry_run,
            "lessons": self.lessons.to_dict(),
            "topics": self.topics.to_dict(),
            "planned": [
                {"id": x.id, "rule": x.rule, "triggers": x.triggers.to_dict(), "always": x.always}
                for x in self.plan.lessons
                if x.id in self.lessons.created + self.lessons.updated + self.lessons.unchanged
            ],
        }
        for kind in NoteKind:
            data[kind.value] = [note.to_dict() for note in self.notes_of(kind)]
        return data


def import_bound(source: Path, root: Path, what: str) -> Path | None:
    """What every file an import reads from ``source`` (absolute, normalised) must stay
    inside: the repo at ``root`` when ``source`` is named in it (and ``source`` itself
    must resolve inside, else ``LeavesRepo``); the folder itself when one outside the repo
    is named; nothing for one file named outside the repo, the user's own pick."""
    if is_within(str(source), str(root)):
        fix = f"pass the {what} it leads to by its own path to import it anyway"
        require_inside(source, root, fix=fix)
        return root
    return source if source.is_dir() else None
