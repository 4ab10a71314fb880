"""``lessons touch``: record that lessons were re-read against the code as it is now.

The record (``checked``: HEAD's commit and today's date) is where validate's drift check
(L304) starts counting again, so its notice resets until the code moves on.
"""

from __future__ import annotations

from dataclasses import replace

from lessons_core.errors import LessonsError
from lessons_core.fsutil import locked
from lessons_core.git import GitError, resolve
from lessons_core.store.files import get_lesson, update_lesson
from lessons_core.store.layout import Layout
from lessons_core.store.model import Checked, Lesson, today


def touch_lessons(layout: Layout, lesson_ids: list[str]) -> list[Lesson]:
    """Mark every lesson of ``lesson_ids`` re-checked at HEAD, today; all or none: an
    unknown id (or a broken file) is refused before any file is written."""
    with locked(layout.lock_path):  # a store folder linking out is refused here first
        lessons = [get_lesson(layout, lesson_id) for lesson_id in dict.fromkeys(lesson_ids)]
        checked = Checked(commit=_head(layout), date=today())
        touched = [replace(lesson, checked=checked) for lesson in lessons]
        for before, after in zip(lessons, touched, strict=True):
            if after != before:
                update_lesson(layout, after)
    return touched


def _head(layout: Layout) -> str:
    try:
        return resolve(layout.root, "HEAD")
    except GitError:
        raise LessonsError(
            f"'lessons touch' records the commit a lesson was re-checked at, and {layout.root} "
            "has no commit (outside git, or before the first commit); commit first"
        ) from None
