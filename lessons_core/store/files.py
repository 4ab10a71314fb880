"""The lesson graph on disk: one JSON file per lesson under ``.lessons/lessons/``.

There is no index file that every capture edits, so branches that add lessons merge
without conflicts. Every write is atomic; a file that fails to parse is reported and
never overwritten.
"""

from __future__ import annotations

import difflib
import os
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from lessons_core.errors import InvalidLessonFile, LessonNotFound
from lessons_core.fsutil import atomic_write, create_exclusive
from lessons_core.jsonio import dumps, load_object
from lessons_core.store.layout import Layout
from lessons_core.store.model import ID_PATTERN, Lesson


@dataclass
class Graph:
    """Every lesson that parsed, plus every file that did not (recall skips those)."""

    lessons: dict[str, Lesson] = field(default_factory=dict)
    broken: list[InvalidLessonFile] = field(default_factory=list)

    def active(self) -> list[Lesson]:
        return [lesson for lesson in self.lessons.values() if lesson.is_active]

    def topic_counts(self) -> dict[str, int]:
        """Each topic of an active lesson and how many active lessons it holds, by name."""
        counts = Counter(topic for lesson in self.active() for topic in lesson.topics)
        return dict(sorted(counts.items()))


def lesson_files(layout: Layout) -> list[Path]:
    """Lesson files, sorted; temp files of in-flight writes (dot-prefixed) are not lessons."""
    try:
        names = os.listdir(layout.lessons_dir)
    except FileNotFoundError:
        return []
    return sorted(
        layout.lessons_dir / name
        for name in names
        if name.endswith(".json") and not name.startswith(".")
    )


def read_lesson(path: Path, raw: bytes | None = None) -> Lesson:
    """Parse one lesson file (``raw``: its bytes, if already read); its id must equal its
    file name."""
    lesson = Lesson.from_dict(load_object(path, raw), path)
    if lesson.id != path.stem:
        raise InvalidLessonFile(
            path,
            f"id '{lesson.id}' does not match the file name; rename one of them",
            "id",
            kind="id-mismatch",
        )
    return lesson


def load_graph(layout: Layout) -> Graph:
    graph = Graph()
    for path in lesson_files(layout):
        try:
            lesson = read_lesson(path)
        except InvalidLessonFile as err:
            graph.broken.append(err)
        except OSError as err:
            graph.broken.append(
                InvalidLessonFile(path, f"cannot be read ({err.strerror})", kind="unparsable")
            )
        else:
            graph.lessons[lesson.id] = lesson
    return graph


def get_lesson(layout: Layout, lesson_id: str) -> Lesson:
    path = lesson_path(layout, lesson_id)
    if not path.exists():
        raise not_found(layout, lesson_id)
    return read_lesson(path)


def find_lesson(layout: Layout, key: str) -> Lesson:
    """The lesson ``key`` names: its id, or the start of an id, as a block names a rule it
    shows cut (``lessons_core.recall.render.short_id``: unique among the active lessons
    when it was shown). Of several lessons whose ids start so, the one active lesson
    wins; otherwise the error names the closest id."""
    path = lesson_path(layout, key)
    if path.exists():
        return read_lesson(path)
    starting = [read_lesson(p) for p in lesson_files(layout) if p.stem.startswith(key)]
    active = [lesson for lesson in starting if lesson.is_active]
    for found in (active, starting):
        if len(found) == 1:
            return found[0]
    raise not_found(layout, key)


def lesson_path(layout: Layout, lesson_id: str) -> Path:
    """The file of ``lesson_id``; an id that is not a plain slug names no file at all."""
    if not ID_PATTERN.match(lesson_id):
        raise not_found(layout, lesson_id)
    return layout.lesson_path(lesson_id)


def not_found(layout: Layout, lesson_id: str) -> LessonNotFound:
    """The error for an id the store lacks, naming the closest id it has (a typo, an id
    from another branch): ``no lesson 'foo-bar'; did you mean 'foo-baz'?``."""
    known = [path.stem for path in lesson_files(layout)]
    close = difflib.get_close_matches(lesson_id, known, n=1, cutoff=0.6)
    return LessonNotFound(lesson_id, close[0] if close else None)


def create_lesson(layout: Layout, lesson: Lesson) -> bool:
    """Write a new lesson file; False when a file with that id already exists."""
    data = dumps(lesson.to_dict())
    return create_exclusive(lesson_path(layout, lesson.id), data, mode=layout.file_mode)


def update_lesson(layout: Layout, lesson: Lesson) -> None:
    """Replace an existing lesson, which must parse first (never clobber what we can't read)."""
    read_lesson(lesson_path(layout, lesson.id))
    atomic_write(lesson_path(layout, lesson.id), dumps(lesson.to_dict()), mode=layout.file_mode)


def delete_lesson(layout: Layout, lesson_id: str) -> None:
    path = lesson_path(layout, lesson_id)
    try:
        path.unlink()
    except FileNotFoundError:
        raise not_found(layout, lesson_id) from None
