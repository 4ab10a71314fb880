"""Rendering a ``Review`` as Markdown a reviewer can paste into a pull request.

Rule text and triggers are project content: they are escaped (or fenced as code) so a
rule can never inject headings, links or HTML into the review, and every control,
separator or bidi character in them is written as its escape (``lessons_core.printable``)
so none acts on the terminal, the PR page or the diff that shows the review.
"""

from __future__ import annotations

import re

from lessons_core.printable import visible
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


def render(review: Review) -> str:
    counts = " · ".join(f"{len(review.of_kind(k))} {k}" for k in KINDS)
    lines = [
        f"## Lesson changes since {code(review.base[:12])} ({text(review.base_ref)})",
        "",
        counts,
    ]
    if not review.changes:
        lines += ["", "No lesson changed."]
    for kind in KINDS:
        changes = review.of_kind(kind)
        if changes:
            lines += ["", f"### {_TITLES[kind]}"]
            for change in changes:
                lines += ["", *_change(change)]
    return "\n".join(lines) + "\n"


def _change(change: LessonChange) -> list[str]:
    lesson = change.after or change.before
    lines = [f"#### {code(change.lesson_id)}"]
    if lesson is None:
        lines.append(f"- {code(change.file)} does not parse; see the findings below")
    else:
        lines.append(f"> {text(lesson.rule)}")
        lines.append("")
        if change.kind == "changed" and change.fields:
            lines.append(f"- changed: {', '.join(code(f) for f in change.fields)}")
        if change.before and change.after and change.before.rule != change.after.rule:
            lines.append(f"- rule was: {text(change.before.rule)}")
        if change.kind == "superseded" and lesson.superseded_by:
            lines.append(f"- superseded by {code(lesson.superseded_by)}")
        lines += _triggers(lesson, change)
    for finding in change.findings:
        where = f" (line {finding.line})" if finding.line else ""
        lines.append(
            f"- **{finding.code} {finding.severity.value}**{where}: {text(finding.message)}; "
            f"fix: {text(finding.fix)}"
        )
    return lines


def _triggers(lesson: Lesson, change: LessonChange) -> list[str]:
    lines = [f"- topics: {', '.join(code(t) for t in lesson.topics) or '-'}"]
    if lesson.always:  # its tokens go to every session, a reviewer should know
        lines.append("- always on: delivered at every session start and after compaction")
    old = change.before.triggers if change.before and change.after else None
    matches = {g.glob: g for g in change.globs}
    for glob in lesson.triggers.files:
        new = _new(glob, old.files if old else None)
        lines.append(f"- file {code(glob)}{new}{_count(matches.get(glob))}")
    for pattern in lesson.triggers.commands:
        lines.append(f"- command {code(pattern)}{_new(pattern, old.commands if old else None)}")
    for keyword in lesson.triggers.keywords:
        lines.append(f"- keyword {code(keyword)}{_new(keyword, old.keywords if old else None)}")
    if old is not None:
        gone = [
            f"{kind} {code(value)}"
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


def _count(matches: GlobMatches | None) -> str:
    if matches is None:
        return ""
    if matches.count is None:
        return ": invalid glob"
    if not matches.count:
        return ": matches no tracked file"
    examples = ", ".join(code(path) for path in matches.examples)
    more = ", …" if matches.count > len(matches.examples) else ""
    noun = "file" if matches.count == 1 else "files"
    return f": {matches.count} tracked {noun} ({examples}{more})"
