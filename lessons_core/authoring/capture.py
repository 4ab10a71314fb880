"""``lessons add``: turn a draft into a lesson file, after every guard has passed.

Captures are serialised by a lock on the store so that the duplicate checks see every
lesson saved before; the file itself is created exclusively, so even without the lock two
writers could never overwrite each other.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from lessons_core.authoring import guards
from lessons_core.authoring.repo_files import tracked_files
from lessons_core.errors import CaptureRefused
from lessons_core.fsutil import locked
from lessons_core.printable import inert
from lessons_core.store.files import create_lesson, load_graph, update_lesson
from lessons_core.store.ids import claim_id, slug
from lessons_core.store.layout import Layout
from lessons_core.store.model import Lesson, today


@dataclass(frozen=True)
class CaptureResult:
    lesson: Lesson
    created: bool
    warnings: tuple[str, ...] = ()


def add_lesson(layout: Layout, draft: guards.CaptureDraft, force: bool = False) -> CaptureResult:
    """Validate ``draft`` and save it; raise ``CaptureRefused`` with the graph unchanged."""
    guards.check_utf8(draft)
    # On the text as given: a topic becomes a slug, which could hide what was in it.
    guards.check_characters(draft)
    guards.check_secrets(draft)
    draft = replace(
        draft,
        rule=draft.rule.strip(),
        topics=tuple(dict.fromkeys(slug(t) for t in draft.topics if slug(t))),
        triggers=guards.repo_triggers(draft.triggers, layout.root),
    )
    guards.check_text(draft)
    warnings = guards.check_triggers(
        draft.triggers, layout.root, tracked_files(layout.root), always=draft.always
    )
    with locked(layout.lock_path):
        graph = load_graph(layout)
        twin = guards.find_identical(draft.rule, graph.lessons.values())
        if twin is not None:
            merged = twin.readded(_draft_lesson(draft))
            if merged != twin:
                update_lesson(layout, merged)
            return CaptureResult(merged, created=False, warnings=tuple(warnings))
        near = guards.find_near_duplicate(draft.rule, graph.lessons.values())
        if near is not None and not force:
            twin_lesson, score = near
            raise CaptureRefused(
                f"the rule is {score:.0%} like active lesson '{twin_lesson.id}': "
                f"{inert(twin_lesson.rule)}",  # another lesson's text: inert, as shown
                f"add triggers to that lesson by re-adding its exact rule, supersede it "
                f"('lessons supersede {twin_lesson.id} --by NEW'), or pass --force",
                "near-duplicate",
            )
        lesson = claim_id(
            _draft_lesson(draft), draft.topics[0], lambda new: create_lesson(layout, new)
        )
    if lesson is None:
        raise CaptureRefused("no free id for this rule", "reword the rule", "id-exhausted")
    return CaptureResult(lesson, created=True, warnings=tuple(warnings))


def _draft_lesson(draft: guards.CaptureDraft) -> Lesson:
    """The draft as a lesson, its id still to be claimed."""
    return Lesson(
        id="",
        rule=draft.rule,
        topics=draft.topics,
        triggers=draft.triggers,
        created=today(),
        rationale=draft.rationale or None,
        evidence=draft.evidence,
        gate=draft.gate,
        always=draft.always,
    )
