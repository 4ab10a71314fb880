"""``lessons promote``: a personal lesson becomes the project's, to commit and review.

The lesson goes through ``lessons add``'s guards again, judged against this repository and
its lessons (a near-duplicate of a project lesson is refused as any capture is), keeping
its id when the project has none such. The personal copy is then retired (deprecated,
with the project it went to as the reason), so it no longer speaks beside its promoted
twin, and stays in the personal store for history.
"""

from __future__ import annotations

from lessons_core.authoring.capture import CaptureResult, add_lesson
from lessons_core.authoring.guards import CaptureDraft
from lessons_core.errors import LessonsError
from lessons_core.store.files import find_lesson, lesson_path
from lessons_core.store.layout import Layout
from lessons_core.store.model import Status
from lessons_core.store.project import set_status
from lessons_core.store.sources import SourceStore


def promote(
    project: Layout, personal: SourceStore, key: str, *, force: bool = False
) -> CaptureResult:
    """Copy the personal lesson ``key`` names into ``project`` and retire the personal copy."""
    lesson = find_lesson(personal, key)
    if not lesson.is_active:
        raise LessonsError(
            f"personal lesson '{lesson.id}' is {lesson.status.value}: only an active lesson "
            "is promoted; 'lessons show personal:ID' shows why it was retired"
        )
    taken = lesson_path(project, lesson.id).exists()
    draft = CaptureDraft.from_lesson(lesson, None if taken else lesson.id)
    result = add_lesson(project, draft, force=force)
    reason = f"promoted to the project at {project.top} as {result.lesson.id}"
    set_status(personal, lesson.id, Status.DEPRECATED, reason=reason)
    return result
