"""Writing an import plan: create what is missing, rewrite what differs, leave the rest.

A file whose bytes already equal what the plan would write is not touched, so importing
the same source twice changes nothing. A file that exists but does not parse is never
overwritten: it is reported and skipped, as everywhere else in the store.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from lessons_core.errors import InvalidLessonFile
from lessons_core.fsutil import NotRegularFile, atomic_write, locked, read_regular
from lessons_core.importers.checks import guard_notes, refusals
from lessons_core.importers.plan import ImportPlan, ImportResult, Note, NoteKind, Outcome
from lessons_core.jsonio import dumps
from lessons_core.store.files import load_graph, read_lesson
from lessons_core.store.layout import Layout
from lessons_core.store.model import Lesson
from lessons_core.store.topics import read_topic, topic_path


def apply_plan(layout: Layout, plan: ImportPlan, dry_run: bool = False) -> ImportResult:
    """Write ``plan`` under the store lock (or only report, with ``dry_run``)."""
    notes = list(plan.notes)
    refused = refusals(plan.lessons)
    notes.extend(
        Note(NoteKind.NOT_CARRIED, refusal.code, lesson_id, f"{refusal.problem}; {refusal.fix}")
        for lesson_id, refusal in refused.items()
    )
    planned = [lesson for lesson in plan.lessons if lesson.id not in refused]
    with locked(layout.lock_path):
        existing = load_graph(layout).lessons.values()
        notes.extend(guard_notes(layout, planned, existing))
        topics = Outcome()
        for topic in plan.topics:
            _write(
                topic_path(layout, topic.id),
                dumps(topic.to_dict()),
                read_topic,
                topic.id,
                topics,
                notes,
                dry_run,
            )
        lessons = Outcome()
        for lesson in planned:
            try:  # the one way in: never write what a later read would reject
                Lesson.from_dict(lesson.to_dict(), layout.lesson_path(lesson.id))
            except InvalidLessonFile as err:
                notes.append(Note(NoteKind.NOT_CARRIED, "invalid", lesson.id, err.problem))
                continue
            _write(
                layout.lesson_path(lesson.id),
                dumps(lesson.to_dict()),
                read_lesson,
                lesson.id,
                lessons,
                notes,
                dry_run,
            )
    return ImportResult(plan, lessons, topics, tuple(notes), dry_run)


def _write(
    path: Path,
    data: bytes,
    parse: Callable[[Path], object],
    name: str,
    outcome: Outcome,
    notes: list[Note],
    dry_run: bool,
) -> None:
    try:
        current = read_regular(path)
    except FileNotFoundError:
        current = None
    except NotRegularFile:
        current = b""  # a link or a special file is never read: the parse below names it
    if current == data:
        outcome.unchanged.append(name)
        return
    if current is not None:
        try:
            parse(path)
        except InvalidLessonFile as err:
            notes.append(
                Note(
                    NoteKind.NOT_CARRIED,
                    "existing-file-broken",
                    name,
                    f"left {path.name} alone: it does not parse ({err.problem}); fix or "
                    "remove it and import again",
                )
            )
            return
    if not dry_run:
        atomic_write(path, data)
    (outcome.created if current is None else outcome.updated).append(name)
