"""Printing helpers shared by commands: JSON for programs, plain lines for people.

What ``show``, ``list`` and ``topics`` print (and the MCP tools of the same names answer)
is lesson text an agent may read, so it comes in the block the hooks show, each value
made inert the same way (``lessons_core.recall.render``), after every unprintable
character is written as its escape (``lessons_core.recall.printable``).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import click
import orjson

from lessons_core.recall.printable import inert, visible_json
from lessons_core.recall.render import NOTE, fence, inert_line
from lessons_core.store.model import Lesson


def echo_json(data: Any) -> None:
    try:
        text = orjson.dumps(data, option=orjson.OPT_INDENT_2).decode()
    except TypeError:
        # A string holding a lone surrogate: an argument or file name that was not UTF-8
        # (Python keeps its bytes as surrogates). orjson refuses it; the standard library
        # writes it as a \udcXX escape, which JSON readers accept.
        text = json.dumps(data, indent=2)
    click.echo(visible_json(text))


def counted(number: int, noun: str) -> str:
    """``1 call``, ``2 calls``: English plurals by adding an s."""
    return f"{number} {noun}" if number == 1 else f"{number} {noun}s"


def format_option(
    formats: tuple[str, ...], help_text: str
) -> Callable[[Callable[..., None]], Callable[..., None]]:
    """``--format`` choosing one of ``formats`` (the first is the default)."""
    return click.option(
        "--format",
        "output_format",
        type=click.Choice(formats),
        default=formats[0],
        show_default=True,
        help=help_text,
    )


def lesson_line(lesson: Lesson) -> str:
    status = "" if lesson.is_active else f" [{lesson.status.value}]"
    return inert_line(f"{inert(lesson.id)}{status}{binding_marks(lesson)}: {inert(lesson.rule)}")


def binding_marks(lesson: Lesson) -> str:
    """`` [enforce]``, `` [forbid]``: a rule a person made binding, refused every time."""
    return "".join(
        f" [{mark}]" for mark, on in (("enforce", lesson.enforce), ("forbid", lesson.forbid)) if on
    )


def lesson_list(lessons: list[Lesson]) -> str:
    """``lessons list``: one line a lesson, fenced; "" for none."""
    return fence(map(lesson_line, lessons)) if lessons else ""


def topic_lines(counts: dict[str, int], summaries: dict[str, str] | None = None) -> str:
    """``lessons topics``: name, count and summary (if any) a line, tab-separated, fenced;
    "" for none."""
    known = summaries or {}
    lines = [
        inert_line(
            "\t".join([inert(name), str(count)] + ([inert(known[name])] if name in known else []))
        )
        for name, count in counts.items()
    ]
    return fence(lines, NOTE) if lines else ""


def describe(lesson: Lesson) -> str:
    """Everything about one lesson, for ``lessons show``, fenced: each value inert."""
    lines = [lesson.id, f"  rule:      {inert(lesson.rule)}"]
    if lesson.rationale:
        lines.append(f"  rationale: {inert(lesson.rationale)}")
    lines.append(f"  topics:    {', '.join(map(inert, lesson.topics))}")
    for label, values in (
        ("files", lesson.triggers.files),
        ("commands", lesson.triggers.commands),
        ("keywords", lesson.triggers.keywords),
    ):
        if values:
            lines.append(f"  {label + ':':<10} {'  '.join(map(inert, values))}")
    if lesson.evidence:
        lines.append(f"  evidence:  {', '.join(map(inert, lesson.evidence))}")
    status = lesson.status.value
    if lesson.superseded_by:
        status += f" by {inert(lesson.superseded_by)}"
    marks = ", ".join(
        m
        for m, on in (
            ("gate", lesson.gate),
            ("always on", lesson.always),
            ("enforce", lesson.enforce),
        )
        if on
    )
    lines.append(f"  status:    {status}{f' ({marks})' if marks else ''}")
    if lesson.enforce:
        lines.append("  enforce:   every matching command is refused with the rule")
    if lesson.forbid is not None:
        lines.append(f"  forbid:    {inert(lesson.forbid)} (refused in what a change adds)")
    if lesson.reason:
        lines.append(f"  reason:    {inert(lesson.reason)}")
    lines.append(f"  created:   {inert(lesson.created)}")
    return fence(map(inert_line, lines), NOTE)
