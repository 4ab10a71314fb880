"""A review as GitHub Actions workflow commands: annotations a pull request shows on the
changed files (``::notice file=PATH,line=N,title=T::MESSAGE``).

Each lesson the code changes bring up is one notice, at its best match: the changed file
and the first added line of the hunk (or the command) it matched. A trigger left pointing
at a deleted or renamed file is a warning on the lesson file; the validate findings on
changed lesson files keep their own level, at their line; each lesson added or changed is
a notice on its file.

GitHub shows at most ten annotations of each level per step and drops the rest, so each
level is cut at nine, the tenth saying how many more the job summary (the Markdown form)
lists. Values are escaped by GitHub's rules (``lessons_core.workflow_commands``) after
every unprintable character is written as its escape, and an ``@`` before a name gets a
zero-width space so no annotation mentions anyone.
"""

from __future__ import annotations

import re

from lessons_core.recall.printable import visible
from lessons_core.review.changes import LessonChange, Review
from lessons_core.review.code import LessonMatch, MovedTrigger
from lessons_core.workflow_commands import annotation, escape_data, escape_property

PER_LEVEL = 10  # what GitHub shows per step and level
LEVELS = ("error", "warning", "notice")
_MENTION = re.compile(r"@(?=[\w-])")


def data(value: str) -> str:
    """A workflow command's message: one line, escaped."""
    return escape_data(_neutral(value))


def prop(value: str) -> str:
    """A workflow command's property value, escaped."""
    return escape_property(_neutral(value))


def _neutral(value: str) -> str:
    """``value`` on one line, every unprintable character written as its escape, and no
    ``@name`` that could mention anyone."""
    return _MENTION.sub("@\u200b", visible(" ".join(value.split())))


def command(level: str, message: str, *, file: str | None, line: int | None, title: str) -> str:
    """One workflow command; ``file`` is relative to the repository's top."""
    where = None if file is None else _neutral(file)
    return annotation(
        level,
        _neutral(message),
        file=where,
        line=line if where is not None else None,
        title=_neutral(title),
    )


def render(review: Review, prefix: str = "") -> str:
    """Every annotation of ``review``, at most ``PER_LEVEL`` per level; ``prefix`` is the
    store's folder in the repository (paths in a review are relative to the store's)."""
    found: dict[str, list[str]] = {level: [] for level in LEVELS}
    code = review.code
    if code is not None:
        found["notice"] += [_lesson(match, prefix) for match in code.lessons]
        found["warning"] += [_moved(moved, prefix) for moved in code.moved if moved.needs_fix]
    for change in review.changes:
        for finding in change.findings:
            found[finding.severity.value].append(
                command(
                    finding.severity.value,
                    f"{finding.message}; fix: {finding.fix}",
                    file=prefix + finding.file,
                    line=finding.line,
                    title=f"{finding.code} {finding.title}",
                )
            )
        if change.kind != "removed":
            found["notice"].append(_change(change, prefix))
    lines: list[str] = []
    for level in LEVELS:
        items = found[level]
        if len(items) > PER_LEVEL:
            more = len(items) - (PER_LEVEL - 1)
            message = f"{more} more {level}s: the job summary (--format markdown) lists all"
            last = command(level, message, file=None, line=None, title="lessons review")
            items = [*items[: PER_LEVEL - 1], last]
        lines += items
    return "".join(line + "\n" for line in lines)


def _lesson(found: LessonMatch, prefix: str) -> str:
    best = found.best
    what = f"{best.via} trigger '{best.trigger}'"
    if best.command is not None:
        what += f" matched the added command '{best.command}'"
    others = len(found.files()) - 1
    also = f"; it matches {others} more changed file{'s' if others != 1 else ''}" if others else ""
    flags = "".join(
        (
            " [enforced]" if found.lesson.enforce else "",
            f" [forbids '{found.lesson.forbid}']" if found.lesson.forbid is not None else "",
        )
    )
    return command(
        "notice",
        f"{found.lesson.rule}{flags} ({what}{also})",
        file=prefix + best.file,
        line=best.line,
        title=f"lesson {found.lesson.id}",
    )


def _moved(moved: MovedTrigger, prefix: str) -> str:
    what = "was deleted" if moved.new is None else f"was renamed to '{moved.new}'"
    return command(
        "warning",
        f"'{moved.old}' {what}; file trigger '{moved.glob}' matched it. Fix: {moved.fix}",
        file=prefix + moved.file,
        line=None,
        title=f"lesson {moved.lesson.id}: fix its trigger",
    )


def _change(change: LessonChange, prefix: str) -> str:
    lesson = change.after or change.before
    rule = lesson.rule if lesson else "does not parse"
    title = f"lesson {change.kind}: {change.lesson_id}"
    return command("notice", rule, file=prefix + change.file, line=None, title=title)
