"""Rendering a ``Review`` for a terminal (plain text) or as Markdown a reviewer can paste
into a pull request (or a CI job shows as its summary): the lesson changes first, then the
lessons the code changes bring up (``code_text``).

Rule text, triggers, paths and commands are project content, written through
``lessons_core.review.styles`` in either form: a rule can never inject headings, links,
mentions or HTML into the review, nor act on a terminal. Both forms share one layout
(``render``), so they never list different things.
"""

from __future__ import annotations

from lessons_core.review.changes import KINDS, GlobMatches, LessonChange, Review
from lessons_core.review.code_text import code_sections, lesson_flags
from lessons_core.review.styles import MARKDOWN, TEXT, Style, code, plain, text
from lessons_core.store.model import Lesson

__all__ = ["FORMATS", "code", "plain", "render", "text"]

_TITLES = {
    "added": "Added",
    "changed": "Changed",
    "deprecated": "Deprecated",
    "superseded": "Superseded",
    "removed": "Removed",
}
FORMATS = ("text", "markdown", "github")


def render(review: Review, output_format: str = "markdown") -> str:
    """The review as ``text`` (for a terminal) or ``markdown`` (for a pull request)."""
    style = MARKDOWN if output_format == "markdown" else TEXT
    counts = " · ".join(f"{len(review.of_kind(k))} {k}" for k in KINDS)
    since = f"Lesson changes since {style.code(review.base[:12])}, {style.text(review.base_how)}"
    if review.head is not None:
        since += f", up to {style.code(review.head[:12])} ({style.text(review.head_label)})"
    lines = [style.heading(2, since), "", counts]
    if review.pending is not None:
        lines += ["", style.text(review.pending.sentence())]
    if not review.changes:
        lines += ["", "No lesson changed."]
    for kind in KINDS:
        changes = review.of_kind(kind)
        if changes:
            lines += ["", style.heading(3, _TITLES[kind])]
            for change in changes:
                lines += ["", *_change(change, style)]
    if review.code is not None:
        lines += code_sections(review.code, style)
    return "\n".join(lines) + "\n"


def _change(change: LessonChange, style: Style) -> list[str]:
    lesson = change.after or change.before
    lines = [style.heading(4, style.code(change.lesson_id))]
    if lesson is None:
        lines.append(f"- {style.code(change.file)} does not parse; see the findings below")
    else:
        lines.append(f"{style.quote}{style.text(lesson.rule)}")
        lines.append("")
        if change.kind == "changed" and change.fields:
            lines.append(f"- changed: {', '.join(style.code(f) for f in change.fields)}")
        if change.before and change.after and change.before.rule != change.after.rule:
            lines.append(f"- rule was: {style.text(change.before.rule)}")
        lines += lesson_flags(lesson, style)
        if not lesson.is_active:  # whatever changed, a retired lesson says so
            status = lesson.status.value
            if lesson.superseded_by:
                status += f" by {style.code(lesson.superseded_by)}"
            lines.append(f"- status: {status}")
            if lesson.reason:
                lines.append(f"- reason: {style.text(lesson.reason)}")
        lines += _triggers(lesson, change, style)
    for finding in change.findings:
        where = f" (line {finding.line})" if finding.line else ""
        lines.append(
            f"- {style.bold(f'{finding.code} {finding.severity.value}')}{where}: "
            f"{style.text(finding.message)}; fix: {style.text(finding.fix)}"
        )
    return lines


def _triggers(lesson: Lesson, change: LessonChange, style: Style) -> list[str]:
    lines = [f"- topics: {', '.join(style.code(t) for t in lesson.topics) or '-'}"]
    if lesson.always:  # its tokens go to every session, a reviewer should know
        lines.append("- always on: delivered at every session start and after compaction")
    if lesson.enforce:  # binding: refuses every matching command, a reviewer should know
        lines.append("- enforce: every command its command triggers match is refused")
    if lesson.forbid is not None:
        lines.append(
            f"- forbid {style.code(lesson.forbid)}: every change to its files adding a match "
            "is refused"
        )
    old = change.before.triggers if change.before and change.after else None
    matches = {g.glob: g for g in change.globs}
    for glob in lesson.triggers.files:
        new = _new(glob, old.files if old else None)
        lines.append(f"- file {style.code(glob)}{new}{_count(matches.get(glob), style)}")
    for pattern in lesson.triggers.commands:
        lines.append(
            f"- command {style.code(pattern)}{_new(pattern, old.commands if old else None)}"
        )
    for keyword in lesson.triggers.keywords:
        lines.append(
            f"- keyword {style.code(keyword)}{_new(keyword, old.keywords if old else None)}"
        )
    if old is not None:
        gone = [
            f"{kind} {style.code(value)}"
            for kind, values, current in (
                ("file", old.files, lesson.triggers.files),
                ("command", old.commands, lesson.triggers.commands),
                ("keyword", old.keywords, lesson.triggers.keywords),
            )
            for value in values
            if value not in current
        ]
        if gone:
            lines.append(f"- removed triggers: {', '.join(gone)}")
    return lines


def _new(value: str, before: tuple[str, ...] | None) -> str:
    return " (new)" if before is not None and value not in before else ""


def _count(matches: GlobMatches | None, style: Style) -> str:
    if matches is None:
        return ""
    if matches.count is None:
        return ": invalid glob"
    if not matches.count:
        return ": matches no tracked file"
    examples = ", ".join(style.code(path) for path in matches.examples)
    more = ", …" if matches.count > len(matches.examples) else ""
    noun = "file" if matches.count == 1 else "files"
    return f": {matches.count} tracked {noun} ({examples}{more})"
