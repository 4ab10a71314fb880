"""``lessons review``: the lesson changes between a base commit and a head (the working
tree, or a commit), and the code changes set against the lessons (``code``).

Each lesson file present at the base or the head is compared by its bytes; a changed one
is classified by what changed (its status first). The validate findings shown are those on
the changed files, from one validation of the whole graph as it is in the working tree, so
cross-lesson checks such as duplicates still see every lesson; a range whose head is not
the checked-out commit shows none (they would describe other files).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import orjson

from lessons_core import git
from lessons_core.authoring.repo_files import tracked_files
from lessons_core.errors import InvalidLessonFile
from lessons_core.fsutil import NotRegularFile, read_regular
from lessons_core.matching.glob_counts import FileIndex
from lessons_core.matching.thresholds import GLOB_EXAMPLES
from lessons_core.matching.trigger_checks import TriggerProblem, judge_glob
from lessons_core.review.code import CodeChanges, code_changes
from lessons_core.review.packs import pack_files_at
from lessons_core.review.pending import Pending, pending
from lessons_core.review.ranges import Range, resolve_range
from lessons_core.store.config import load_config
from lessons_core.store.files import lesson_files, read_lesson
from lessons_core.store.layout import Layout
from lessons_core.store.model import Lesson
from lessons_core.store.sources import SourceStore, pack_stores
from lessons_core.validate import Finding, load_context, validate
from lessons_core.validate.scopes import validate_scopes

KINDS = ("added", "changed", "deprecated", "superseded", "removed")


@dataclass(frozen=True)
class GlobMatches:
    """How many tracked files a glob matches now (None: the glob is invalid)."""

    glob: str
    count: int | None
    examples: tuple[str, ...]


@dataclass(frozen=True)
class LessonChange:
    kind: str
    lesson_id: str
    file: str
    before: Lesson | None
    # None for a removed lesson, or one whose file no longer parses (see findings).
    after: Lesson | None
    fields: tuple[str, ...]
    globs: tuple[GlobMatches, ...]
    findings: tuple[Finding, ...]

    def to_dict(self) -> dict[str, Any]:
        return {
            "change": self.kind,
            "id": self.lesson_id,
            "file": self.file,
            "fields": list(self.fields),
            "before": self.before.to_dict() if self.before else None,
            "after": self.after.to_dict() if self.after else None,
            "globs": [
                {"glob": g.glob, "count": g.count, "examples": list(g.examples)} for g in self.globs
            ],
            "findings": [finding.to_dict() for finding in self.findings],
        }


@dataclass(frozen=True)
class Review:
    base: str
    base_ref: str
    changes: tuple[LessonChange, ...]
    # How the base was chosen, for the reader: "the merge base of HEAD and main".
    base_how: str = ""
    head: str | None = None  # the head commit; None: the working tree
    head_ref: str = ""
    code: CodeChanges | None = None
    # Lessons on disk that the head commit lacks (None when the head is the working tree).
    pending: Pending | None = None

    @property
    def head_label(self) -> str:
        return self.head_ref or "the working tree"

    def of_kind(self, kind: str) -> list[LessonChange]:
        return [change for change in self.changes if change.kind == kind]

    def to_dict(self) -> dict[str, Any]:
        return {
            "base": self.base,
            "base_ref": self.base_ref,
            "base_how": self.base_how,
            "head": self.head,
            "head_ref": self.head_ref or None,
            "summary": {kind: len(self.of_kind(kind)) for kind in KINDS},
            "changes": [change.to_dict() for change in self.changes],
            "code": self.code.to_dict() if self.code else None,
            "pending": self.pending.to_dict() if self.pending else None,
        }


def review(layout: Layout, argument: str | None = None) -> Review:
    """Changes in the range ``argument`` names (``ranges.resolve_range``: by default since
    the merge base with the default branch, up to the working tree)."""
    root = layout.root
    span = resolve_range(root, argument)
    folder = layout.lessons_dir.relative_to(root).as_posix()
    then = _names(git.files_at(root, span.base, folder))
    if span.head is None:
        now = {path.name: _bytes_now(path) for path in lesson_files(layout)}
    else:
        now = _names(git.files_at(root, span.head, folder))
    names = sorted(n for n in set(then) | set(now) if then.get(n) != now.get(n))
    names = [name for name in names if name.endswith(".json") and not name.startswith(".")]
    files = FileIndex(tracked_files(root))
    packs = pack_stores(layout, load_config(layout.config_file).packs)
    in_packs = {pack: _pack_names(pack, span) for pack in packs}
    findings: tuple[Finding, ...] = ()
    if (names or any(in_packs.values())) and (
        span.head is None or span.head == git.resolve(root, "HEAD")
    ):
        if packs:  # each pack as its own source, and contradictions across them
            findings = validate_scopes(layout).findings
        else:
            findings = validate(layout, load_context(layout, files=files)).findings
    on_disk = span.head is None
    changes = [
        _change(layout, name, then.get(name), now.get(name), files, findings, on_disk)
        for name in names
    ]
    for pack, (pack_then, pack_now, pack_names) in in_packs.items():
        changes += [
            replace(
                _change(
                    pack, name, pack_then.get(name), pack_now.get(name), files, findings, on_disk
                ),
                lesson_id=pack.qualified(name[: -len(".json")]),
            )
            for name in pack_names
        ]
    changes.sort(key=lambda c: (KINDS.index(c.kind), c.lesson_id))
    lessons = [
        lesson for name, data in sorted(now.items()) if (lesson := _now(layout, span, name, data))
    ]
    code = code_changes(root, span, lessons, layout.base.relative_to(root).as_posix(), folder)
    return Review(
        base=span.base,
        base_ref=span.base_ref,
        changes=tuple(changes),
        base_how=span.base_how,
        head=span.head,
        head_ref=span.head_ref,
        code=code,
        pending=pending(layout, span),
    )


def _pack_names(
    pack: SourceStore, span: Range
) -> tuple[dict[str, bytes], dict[str, bytes], list[str]]:
    """A pack's lesson files at the base and the head (``review.packs``), and the names of
    those that differ, as ``review`` compares the project's."""
    root = pack.root
    then = _names(pack_files_at(root, span.base, pack.path))
    if span.head is None:
        now = {path.name: _bytes_now(path) for path in lesson_files(pack)}
    else:
        now = _names(pack_files_at(root, span.head, pack.path))
    names = sorted(n for n in set(then) | set(now) if then.get(n) != now.get(n))
    return then, now, [n for n in names if n.endswith(".json") and not n.startswith(".")]


def _names(files: dict[str, bytes]) -> dict[str, bytes]:
    return {Path(name).name: data for name, data in files.items()}


def _now(layout: Layout, span: Range, name: str, data: bytes) -> Lesson | None:
    """The lesson file ``name`` at the head, parsed (None when it does not parse)."""
    if not name.endswith(".json") or name.startswith("."):
        return None
    path = layout.lessons_dir / name
    return read_lesson_or_none(path) if span.head is None else _parse(data, path)


def _bytes_now(path: Path) -> bytes:
    """A lesson file's bytes; for a link or a special file (never read: it could lead out
    of the repo, or block), none, so it shows as changed with validate's finding on it."""
    try:
        return read_regular(path)
    except NotRegularFile:
        return b""


def _change(
    layout: Layout,
    name: str,
    old: bytes | None,
    new: bytes | None,
    files: FileIndex,
    findings: tuple[Finding, ...],
    on_disk: bool = True,
) -> LessonChange:
    path = layout.lessons_dir / name
    before = _parse(old, path)
    after = None
    if new is not None:
        after = read_lesson_or_none(path) if on_disk else _parse(new, path)
    file = path.relative_to(layout.root).as_posix()
    if new is None:
        kind = "removed"
    elif old is None or before is None:
        kind = "added"
    elif after is not None and after.status is not before.status and not after.is_active:
        kind = after.status.value
    else:
        kind = "changed"
    shown = after or before
    return LessonChange(
        kind=kind,
        lesson_id=path.stem,
        file=file,
        before=before,
        after=after,
        fields=_changed_fields(before, after) if kind != "added" else (),
        globs=tuple(glob_matches(g, files) for g in shown.triggers.files)
        if shown and kind != "removed"
        else (),
        findings=tuple(f for f in findings if f.file == file),
    )


def glob_matches(glob: str, files: FileIndex) -> GlobMatches:
    compiled = judge_glob(glob)
    if isinstance(compiled, TriggerProblem):
        return GlobMatches(glob, None, ())
    found = files.matching(compiled)
    return GlobMatches(glob, len(found), found[:GLOB_EXAMPLES])


def read_lesson_or_none(path: Path) -> Lesson | None:
    try:
        return read_lesson(path)
    except (InvalidLessonFile, OSError):
        return None


def _parse(data: bytes | None, path: Path) -> Lesson | None:
    if data is None:
        return None
    try:
        raw = orjson.loads(data)
        return Lesson.from_dict(raw, path) if isinstance(raw, dict) else None
    except (orjson.JSONDecodeError, InvalidLessonFile):
        return None


def _changed_fields(before: Lesson | None, after: Lesson | None) -> tuple[str, ...]:
    if before is None or after is None:
        return ()
    old, new = before.to_dict(), after.to_dict()
    return tuple(sorted(key for key in set(old) | set(new) if old.get(key) != new.get(key)))
