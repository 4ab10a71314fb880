"""Creating a project's ``.lessons/`` and changing a lesson's status."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from lessons_core.errors import LessonsError
from lessons_core.fsutil import atomic_write, locked
from lessons_core.jsonio import dumps
from lessons_core.store import launcher
from lessons_core.store.config import Config
from lessons_core.store.files import delete_lesson, get_lesson, update_lesson
from lessons_core.store.launcher import write_launcher
from lessons_core.store.layout import Layout, contained
from lessons_core.store.model import Lesson, Status

# local/ is per-clone state; the temp files of a write killed before its rename are noise.
GITIGNORE = "# per-clone state: sessions, logs, caches\nlocal/\n.*.tmp\n"


def init_project(root: Path) -> tuple[Layout, list[Path]]:
    """Create what is missing under ``root/.lessons``; never touch what exists.

    The launcher ``.lessons/run`` is the one file of lessons' own: it is brought up to
    date when it differs from this version's.
    """
    layout = contained(Layout(root))
    created: list[Path] = []
    for folder in (layout.base, layout.lessons_dir, layout.local_dir):
        if not folder.is_dir():
            folder.mkdir(parents=True)
            created.append(folder)
    if not layout.config_path.exists():
        atomic_write(layout.config_path, dumps(Config().to_dict()))
        created.append(layout.config_path)
    ignore = layout.base / ".gitignore"
    if not ignore.exists():
        atomic_write(ignore, GITIGNORE.encode())
        created.append(ignore)
    if write_launcher(layout):
        created.append(layout.base / launcher.NAME)
    return layout, created


def set_status(
    layout: Layout,
    lesson_id: str,
    status: Status,
    superseded_by: str | None = None,
    reason: str | None = None,
) -> Lesson:
    """Give a lesson ``status``; ``reason`` (why, kept in the file) replaces any older one."""
    with locked(layout.lock_path):
        lesson = get_lesson(layout, lesson_id)
        if superseded_by is not None:
            if superseded_by == lesson_id:
                raise LessonsError(f"lesson '{lesson_id}' cannot supersede itself")
            successor = get_lesson(layout, superseded_by)
            if not successor.is_active:
                raise LessonsError(
                    f"'{superseded_by}' is {successor.status.value}; a successor must be active"
                )
        why = reason.strip() if reason and reason.strip() else lesson.reason
        if status is Status.ACTIVE:
            why = None
        changed = replace(lesson, status=status, superseded_by=superseded_by, reason=why)
        if changed != lesson:
            update_lesson(layout, changed)
    return changed


def remove_lesson(layout: Layout, lesson_id: str) -> None:
    """Delete the lesson file, under the store's lock (``lessons rm`` then forgets it in
    the session files too: ``session.state.forget_lesson``)."""
    with locked(layout.lock_path):
        # No parse first: a broken file can still be deleted, which rewrites nothing.
        delete_lesson(layout, lesson_id)
