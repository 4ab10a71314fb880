"""Rendering a ``Review`` for a terminal (plain text) or as Markdown a reviewer can paste
into a pull request.

Rule text and triggers are project content. In Markdown they are escaped (or fenced as
code) so a rule can never inject headings, links or HTML into the review; in both forms
every control, separator or bidi character in them is written as its escape
(``lessons_core.recall.printable``), so none acts on the terminal, the PR page or the diff that
shows the review. Both share one layout (``render``), so they never list different things.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import NamedTuple

from lessons_core.recall.printable import visible
from lessons_core.review.changes import KINDS, GlobMatches, LessonChange, Review
from lessons_core.store.model import Lesson

_MARKDOWN_SPECIAL = re.compile(r"([\\`*_{}\[\]<>()#+!|~])")
_TITLES = {
    "added": "Added",
    "changed": "Changed",
    "deprecated": "Deprecated",
    "superseded": "Superseded",
    "removed": "Removed",
}
FORMATS = ("text", "markdown")


def text(value: str) -> str:
    """Plain text with Markdown's special characters escaped, on one line."""
    return _MARKDOWN_SPECIAL.sub(r"\\\1", visible(" ".join(value.split())))


def code(value: str) -> str:
    """Inline code that survives backticks inside ``value``, escapes written out."""
    value = visible(value)
    longest = max((len(run) for run in re.findall(r"`+", value)), default=0)
    fence = "`" * (longest + 1)
    pad = " " if value.startswith("`") or value.endswith("`") or longest else ""
    return f"{fence}{pad}{value}{pad}{fence}"


def plain(value: str) -> str:
    """Text for a terminal: on one line, control characters written as escapes."""
    return visible(" ".join(value.split()))


class _Style(NamedTuple):
    text: Callable[[str], str]
    code: Callable[[str], str]
    heading: Callable[[int, str], str]
    quote: str  # before the rule
    bold: Callable[[str], str]


_MARKDOWN = _Style(text, code, lambda level, title: f"{'#' * level} {title}", "> ", "**{}**".format)
_TEXT = _Style(
    plain,
    lambda value: f"'{plain(value)}'",
    lambda level, title: title if level < 4 else f"{title}:",
    "  ",
    str,
)


def render(review: Review, output_format: str = "markdown") -> str:
    """The review as ``text`` (for a terminal) or ``markdown`` (for a pull request)."""
    style = _MARKDOWN if output_format == "markdown" else _TEXT
    counts = " · ".join(f"{len(review.of_kind(k))} {k}" for k in KINDS)
    since = f"Lesson changes since {style.code(review.base[:12])}, {style.text(review.base_how)}"
    lines = [style.heading(2, since), "", counts]
    if not review.changes:
        lines += ["", "No lesson changed."]
    for kind in KINDS:
        changes = review.of_kind(kind)
        if changes:
            lines += ["", style.heading(3, _TITLES[kind])]
            for change in changes:
                lines += ["", *_change(change, style)]
    return "\n".join(lines) + "\n"


def _change(change: LessonChange, style: _Style) -> list[str]:
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


def _triggers(lesson: Lesson, change: LessonChange, style: _Style) -> list[str]:
    lines = [f"- topics: {', '.join(style.code(t) for t in lesson.topics) or '-'}"]
    if lesson.always:  # its tokens go to every session, a reviewer should know
        lines.append("- always on: delivered at every session start and after compaction")
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


def _count(matches: GlobMatches | None, style: _Style) -> str:
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
