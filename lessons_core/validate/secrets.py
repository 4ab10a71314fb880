"""L5xx: what looks like a credential in a committed lesson, in any field.

The same detection as ``lessons add`` (``authoring.guards.secret_findings``), over every
lesson whatever its status: a lesson written by hand, merged from a branch or imported
before capture looked at triggers can still hold one, and the hook would quote a trigger
in the label of every rule it shows.
"""

from __future__ import annotations

from collections.abc import Iterator

from lessons_core.authoring.guards import CaptureDraft, draft_fields, secret_findings
from lessons_core.store.model import Lesson
from lessons_core.validate.context import Context
from lessons_core.validate.findings import Finding


def check(ctx: Context) -> Iterator[Finding]:
    lessons = sorted(ctx.graph.lessons.values(), key=lambda x: x.id)
    drafts = [_draft(lesson) for lesson in lessons]
    for lesson, draft, findings in zip(lessons, drafts, secret_findings(drafts), strict=True):
        fields = draft_fields(draft)
        for finding in findings:
            yield Finding(
                "L501",
                ctx.lesson_file(lesson.id),
                f"what looks like a secret is committed in the {finding.field} ({finding.kind})",
                "remove the credential from the file and describe it instead (e.g. 'the "
                "staging API key'); once committed it stays in the git history, so rotate it",
                lesson.id,
                fields.get(finding.field),
            )


def _draft(lesson: Lesson) -> CaptureDraft:
    return CaptureDraft.from_lesson(lesson)
