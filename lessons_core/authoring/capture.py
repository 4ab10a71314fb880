"""``lessons add``: turn a draft into a lesson file, after every guard has passed.

Captures are serialised by a lock on the store so that the duplicate checks see every
lesson saved before; the file itself is created exclusively, so even without the lock two
writers could never overwrite each other.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace

from lessons_core.authoring import guards
from lessons_core.authoring.repo_files import tracked_files
from lessons_core.errors import CaptureRefused
from lessons_core.fsutil import locked
from lessons_core.matching.breadth import broad_notices
from lessons_core.matching.forbid import ForbidPatternError, check_forbid
from lessons_core.recall.printable import inert
from lessons_core.store.files import Graph, create_lesson, load_graph, update_lesson
from lessons_core.store.ids import MAX_ID_CHARS, claim_id, id_problem, slug
from lessons_core.store.layout import Layout
from lessons_core.store.model import Lesson, today


@dataclass(frozen=True)
class CaptureResult:
    lesson: Lesson
    created: bool
    warnings: tuple[str, ...] = ()
    # Triggers recall will hold back as broad (``matching.breadth.broad_notices``).
    notices: tuple[str, ...] = ()


def add_lesson(
    layout: Layout,
    draft: guards.CaptureDraft,
    force: bool = False,
    project: Sequence[str] | None = None,
) -> CaptureResult:
    """Validate ``draft`` and save it; raise ``CaptureRefused`` with the graph unchanged.

    ``project`` are the project's everyday commands (``lessons_core.project_commands``):
    a command trigger firing on a large share of them is refused."""
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
    guards.check_broad_reason(draft)
    _check_binding(draft)
    if draft.lesson_id is not None:
        _check_id(draft.lesson_id)
    warnings = guards.check_triggers(
        draft.triggers,
        layout.root,
        tracked_files(layout.root),
        draft.always,
        project,
        broad_ok=draft.broad_reason is not None,
    )
    with locked(layout.lock_path):
        graph = load_graph(layout)
        twin = guards.find_identical(draft.rule, graph.lessons.values())
        if twin is not None:
            merged = twin.readded(_draft_lesson(draft))
            if merged != twin:
                update_lesson(layout, merged)
            notices = _broad(draft, graph.lessons.values(), twin.id)
            return CaptureResult(merged, False, tuple(warnings), notices)
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
        lesson: Lesson | None
        if draft.lesson_id is not None:
            lesson = _claim_given(layout, _draft_lesson(draft), draft.lesson_id, graph)
        else:
            lesson = claim_id(
                _draft_lesson(draft), draft.topics[0], lambda new: create_lesson(layout, new)
            )
        notices = _broad(draft, graph.lessons.values(), lesson.id if lesson else "")
    if lesson is None:
        raise CaptureRefused("no free id for this rule", "reword the rule", "id-exhausted")
    return CaptureResult(lesson, True, tuple(warnings), notices)


def _check_binding(draft: guards.CaptureDraft) -> None:
    """``--enforce`` refuses the commands a lesson's command triggers match, so it needs
    one; ``--forbid`` is searched in changes to the lesson's files, so it needs a file
    trigger and a pattern ``matching.forbid`` accepts."""
    if draft.enforce and not draft.triggers.commands:
        raise CaptureRefused(
            "--enforce refuses every command the lesson's command triggers match, and it has none",
            "add --trigger-cmd PATTERN, or for a rule about code in files use --forbid "
            "PATTERN with --trigger-file",
            "enforce-without-command",
        )
    if draft.forbid is None:
        return
    if not draft.triggers.files:
        raise CaptureRefused(
            "--forbid checks changes to the lesson's files, and it has no file trigger",
            "add --trigger-file GLOB naming the files the pattern must not be added to",
            "forbid-without-file",
        )
    try:
        check_forbid(draft.forbid)
    except ForbidPatternError as err:
        raise CaptureRefused(
            f"the --forbid pattern {err}",
            "write an RE2 pattern for the one construct the rule forbids, e.g. "
            "--forbid \"split\\('/'\\)\"",
            "forbid-invalid",
        ) from None


def _check_id(lesson_id: str) -> None:
    problem = id_problem(lesson_id)
    if problem is not None:
        fixed = slug(lesson_id)[:MAX_ID_CHARS].rstrip("-")
        example = f", e.g. --id {fixed}" if fixed else ""
        raise CaptureRefused(
            problem, f"write it as lowercase words joined by dashes{example}", "id-invalid"
        )


def _claim_given(layout: Layout, lesson: Lesson, lesson_id: str, graph: Graph) -> Lesson:
    """``lesson`` under the id given with ``--id``, which must be free (the file is
    created exclusively, so a writer without the lock cannot take it either)."""
    named = replace(lesson, id=lesson_id)
    if lesson_id not in graph.lessons and create_lesson(layout, named):
        return named
    taken = graph.lessons.get(lesson_id)
    holder = (
        f"lesson '{lesson_id}' ({taken.status.value}): {taken.rule}"
        if taken
        else (f"the file {layout.lesson_path(lesson_id).name}")
    )
    free = next(
        f"{lesson_id}-{n}" for n in range(2, 1000) if f"{lesson_id}-{n}" not in graph.lessons
    )
    raise CaptureRefused(
        f"id '{lesson_id}' is taken by {holder}",
        f"choose another id (e.g. --id {free}), or leave out --id for a generated one",
        "id-taken",
    )


def _broad(draft: guards.CaptureDraft, lessons: Iterable[Lesson], own: str) -> tuple[str, ...]:
    """What recall will hold back of the draft's triggers; a gated rule never waits."""
    if draft.gate:
        return ()
    others = [x.triggers for x in lessons if x.is_active and x.id != own]

    def share(field: str, trigger: str) -> int:
        return 1 + sum(trigger in getattr(other, field) for other in others)

    # A person said why the file triggers are this broad: no notice about them.
    accepted = set(draft.triggers.files) if draft.broad_reason else set()
    found = broad_notices(draft.triggers, share, lambda trigger: trigger not in accepted)
    return tuple(sentence for _trigger, sentence in found)


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
        enforce=draft.enforce,
        forbid=draft.forbid,
        broad_reason=draft.broad_reason.strip() if draft.broad_reason else None,
    )
