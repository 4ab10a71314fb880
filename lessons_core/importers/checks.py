"""The capture guards, run over imported lessons: most as warnings, two as refusals.

Imported rules already exist in the user's repo, so refusing them would only lose them;
the import writes them and says which would not have passed ``lessons add``. Two guards
still refuse: a lesson holding what looks like a secret, or a control character, is not
written, since the import would copy the credential into one more committed file, or put
text in the store that can rewrite a terminal.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from functools import partial

from lessons_core.authoring import guards
from lessons_core.authoring.repo_files import tracked_files
from lessons_core.errors import CaptureRefused
from lessons_core.importers.plan import Note, NoteKind
from lessons_core.matching.glob_counts import FileIndex
from lessons_core.project_commands import everyday_commands
from lessons_core.store.layout import Layout
from lessons_core.store.model import Lesson, Triggers
from lessons_core.validate.duplicates import near_pairs


def refusals(planned: Iterable[Lesson]) -> dict[str, CaptureRefused]:
    """The planned lessons the import does not write, by id, with the reason."""
    refused: dict[str, CaptureRefused] = {}
    readable: list[Lesson] = []
    for lesson in planned:
        try:
            guards.check_utf8(_draft(lesson))
            guards.check_characters(_draft(lesson))
        except CaptureRefused as refusal:
            refused[lesson.id] = refusal
        else:
            readable.append(lesson)
    found = guards.secret_findings([_draft(lesson) for lesson in readable])
    for lesson, findings in zip(readable, found, strict=True):
        secret = guards.secret_refusal(findings)
        if secret is not None:
            refused[lesson.id] = secret
    return refused


def guard_notes(
    layout: Layout, planned: Iterable[Lesson], existing: Iterable[Lesson]
) -> list[Note]:
    """One warning per guard a planned lesson fails, plus near-duplicate active pairs."""
    planned = list(planned)
    tracked = FileIndex(tracked_files(layout.root))  # built once for every lesson
    project = everyday_commands(layout.root)  # read once too
    notes: list[Note] = []
    for lesson in planned:
        notes.extend(_lesson_notes(lesson, layout, tracked, project))
    notes.extend(_near_duplicates(planned, existing))
    return notes


def _draft(lesson: Lesson) -> guards.CaptureDraft:
    return guards.CaptureDraft.from_lesson(lesson)


def _lesson_notes(
    lesson: Lesson, layout: Layout, tracked: FileIndex, project: list[str]
) -> list[Note]:
    checks: list[Callable[[], list[str] | None]] = [partial(guards.check_text, _draft(lesson))]
    singles = _single_triggers(lesson.triggers) or [lesson.triggers]  # empty: "no trigger"
    checks.extend(
        partial(guards.check_triggers, t, layout.root, tracked, lesson.always, project)
        for t in singles
    )
    notes: list[Note] = []
    for check in checks:
        try:
            messages = check() or []
        except CaptureRefused as refusal:
            notes.append(Note(NoteKind.WARNING, refusal.code, lesson.id, refusal.problem))
        else:
            notes.extend(Note(NoteKind.WARNING, "glob-no-match", lesson.id, m) for m in messages)
    return notes


def _single_triggers(triggers: Triggers) -> list[Triggers]:
    """Each trigger on its own, so one bad trigger does not hide the next one's problem."""
    return (
        [Triggers(files=(glob,)) for glob in triggers.files]
        + [Triggers(commands=(pattern,)) for pattern in triggers.commands]
        + [Triggers(keywords=(keyword,)) for keyword in triggers.keywords]
    )


def _near_duplicates(planned: list[Lesson], existing: Iterable[Lesson]) -> list[Note]:
    """Near-duplicate active pairs that involve at least one imported lesson.

    Uses validate's join (candidates share a rare word) rather than comparing every pair.
    """
    everyone = {lesson.id: lesson for lesson in existing}
    everyone.update((lesson.id, lesson) for lesson in planned)
    mine = {lesson.id for lesson in planned}
    active = sorted((x for x in everyone.values() if x.is_active), key=lambda x: x.id)
    return [
        Note(
            NoteKind.WARNING,
            "near-duplicate",
            second.id,
            f"the rule is {score:.0%} like active lesson '{first.id}'",
        )
        for first, second, score in near_pairs(active)
        if first.id in mine or second.id in mine
    ]
