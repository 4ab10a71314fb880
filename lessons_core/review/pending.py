"""The lessons a commit range leaves out because they are not committed yet.

``lessons review A..B`` reads the lessons as commit B has them. Right after ``lessons
add`` (or an import) they are only in the working tree, so the review would say "0
lessons apply" about a change they cover. Those lesson files (new or edited in the
working tree, so neither ``HEAD`` nor B has them as they are) are named, with the
command that reviews against the working tree and so includes them.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from lessons_core import git
from lessons_core.fsutil import NotRegularFile, read_regular
from lessons_core.git import GitError
from lessons_core.review.ranges import Range
from lessons_core.store.files import lesson_files
from lessons_core.store.layout import Layout

SHOWN = 5  # ids named in the sentence; --json lists every one


@dataclass(frozen=True)
class Pending:
    """Lesson ids in the working tree that the range's head lacks, and the fix."""

    ids: tuple[str, ...]
    head_label: str
    command: str

    def sentence(self) -> str:
        more = f" and {len(self) - SHOWN} more" if len(self) > SHOWN else ""
        shown = ", ".join(self.ids[:SHOWN]) + more
        noun = "lesson" if len(self) == 1 else "lessons"
        return (
            f"The working tree holds {len(self)} {noun} that {self.head_label} does not "
            f"have (uncommitted or untracked: {shown}), left out of this review; "
            f"'{self.command}' reviews against the working tree and includes them"
        )

    def __len__(self) -> int:
        return len(self.ids)

    def to_dict(self) -> dict[str, Any]:
        return {"ids": list(self.ids), "command": self.command}


def pending(layout: Layout, span: Range) -> Pending | None:
    """The lessons on disk that ``span``'s head commit does not have as they are, when
    it reviews a commit (None for the working tree, or when there are none)."""
    if span.head is None:
        return None
    root = layout.root
    folder = layout.lessons_dir.relative_to(root).as_posix()
    at_head = _by_name(git.files_at(root, span.head, folder))
    try:
        committed = _by_name(git.files_at(root, "HEAD", folder))
    except GitError:  # no commit yet: nothing is committed
        committed = {}
    ids = []
    for path in lesson_files(layout):
        try:
            data = read_regular(path)
        except (NotRegularFile, OSError):
            continue
        if data not in (at_head.get(path.name), committed.get(path.name)):
            ids.append(path.stem)
    if not ids:
        return None
    return Pending(tuple(sorted(ids)), span.head_label, f"lessons review {_base_name(root, span)}")


def _by_name(files: dict[str, bytes]) -> dict[str, bytes]:
    return {name.rsplit("/", 1)[-1]: data for name, data in files.items()}


def _base_name(root: Path, span: Range) -> str:
    """The base as the user named it when that names the same commit, else its sha."""
    try:
        same = git.resolve(root, span.base_ref) == span.base
    except GitError:
        same = False
    return span.base_ref if same else span.base[:12]
