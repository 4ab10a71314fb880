"""The code sections of a review, in plain text or Markdown (``styles``): the lessons the
changes bring up, best match first, each with its rule and what it matched; the commands
added to scripts and CI; the lessons left pointing at a deleted or renamed file, with the
fix.

A large diff can match a broad lesson on thousands of files and add thousands of
commands: each list is cut at a few entries, saying how many more ``--json`` has.
"""

from __future__ import annotations

from lessons_core.review.code import CodeChanges, LessonMatch, Match, MovedTrigger
from lessons_core.review.styles import Style
from lessons_core.store.model import Lesson

# How many changed files one trigger lists, and how many added commands are listed.
FILES_SHOWN = 5
COMMANDS_SHOWN = 50
_VIA = {"file": "file", "command": "command", "keyword": "keyword"}


def lesson_flags(lesson: Lesson, style: Style) -> list[str]:
    """The lines saying a lesson is enforced or forbids a pattern, when it does."""
    lines = []
    if lesson.enforce:
        lines.append("- enforced: every matching command is refused")
    if lesson.forbid is not None:
        lines.append(f"- forbid: {style.code(lesson.forbid)} must not be added to its files")
    return lines


def code_sections(code: CodeChanges, style: Style) -> list[str]:
    files, commands = len(code.files), len(code.commands)
    fixes = sum(1 for moved in code.moved if moved.needs_fix)
    counts = (
        f"{files} changed file{_s(files)} · {commands} added command{_s(commands)} · "
        f"{len(code.lessons)} lesson{_s(len(code.lessons))} apply · "
        f"{fixes} trigger{_s(fixes)} to fix"
    )
    lines = ["", style.heading(2, "Lessons for the code changes"), "", counts]
    if code.lessons:
        lines += ["", style.heading(3, "Lessons that apply, most specific first")]
        for found in code.lessons:
            lines += ["", *_lesson(found, style)]
    if code.moved:
        lines += ["", style.heading(3, "Lessons on deleted or renamed files")]
        for moved in code.moved:
            lines += ["", *_moved(moved, style)]
    if code.commands:
        lines += ["", style.heading(3, "Commands added to scripts and CI"), ""]
        for added in code.commands[:COMMANDS_SHOWN]:
            where = style.code(f"{added.file}:{added.line}")
            ids = ", ".join(style.code(lesson_id) for lesson_id in added.lessons) or "no lesson"
            lines.append(f"- {where} {style.code(added.command)}: {ids}")
        if commands > COMMANDS_SHOWN:
            lines.append(f"- and {commands - COMMANDS_SHOWN} more (--json lists every one)")
    return lines


def _lesson(found: LessonMatch, style: Style) -> list[str]:
    lesson = found.lesson
    title = style.code(lesson.id) + (" (broad: fires on routine work)" if found.broad else "")
    lines = [style.heading(4, title), f"{style.quote}{style.text(lesson.rule)}", ""]
    lines += lesson_flags(lesson, style)
    by_trigger: dict[tuple[str, str], list[Match]] = {}
    for match in found.matches:
        by_trigger.setdefault((match.via, match.trigger), []).append(match)
    for (via, trigger), matches in by_trigger.items():
        shown = [_where(match, style) for match in matches[:FILES_SHOWN]]
        more = len(matches) - len(shown)
        tail = f", and {more} more" if more else ""
        lines.append(f"- {_VIA[via]} {style.code(trigger)} matched {', '.join(shown)}{tail}")
    return lines


def _where(match: Match, style: Style) -> str:
    at = f"{match.file}:{match.line}" if match.line else match.file
    if match.command is None:
        return style.code(at)
    return f"{style.code(match.command)} in {style.code(at)}"


def _moved(moved: MovedTrigger, style: Style) -> list[str]:
    lesson = moved.lesson
    what = (
        f"{style.code(moved.old)} deleted"
        if moved.new is None
        else f"{style.code(moved.old)} renamed to {style.code(moved.new)}"
    )
    return [
        style.heading(4, style.code(lesson.id)),
        f"{style.quote}{style.text(lesson.rule)}",
        "",
        f"- {what}, which file trigger {style.code(moved.glob)} matched",
        f"- {'fix' if moved.needs_fix else 'check'}: {style.text(moved.fix)}",
    ]


def _s(count: int) -> str:
    return "" if count == 1 else "s"
