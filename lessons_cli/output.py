"""Printing helpers shared by commands: JSON for programs, plain lines for people."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import click
import orjson

from lessons_core.store.model import Lesson


def echo_json(data: Any) -> None:
    try:
        text = orjson.dumps(data, option=orjson.OPT_INDENT_2).decode()
    except TypeError:
        # A string holding a lone surrogate: an argument or file name that was not UTF-8
        # (Python keeps its bytes as surrogates). orjson refuses it; the standard library
        # writes it as a \udcXX escape, which JSON readers accept.
        text = json.dumps(data, indent=2)
    click.echo(text)


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


def visible(text: str) -> str:
    """``text`` with control and other unprintable characters written as escapes: a lesson
    file is data from a commit, and a raw escape sequence in it could rewrite the terminal
    that shows it."""
    if text.isprintable():
        return text
    return "".join(
        char if char.isprintable() else char.encode("unicode_escape").decode("ascii")
        for char in text
    )


def lesson_line(lesson: Lesson) -> str:
    status = "" if lesson.is_active else f" [{lesson.status.value}]"
    return visible(f"{lesson.id}{status}: {lesson.rule}")


def describe(lesson: Lesson) -> str:
    """Everything about one lesson, for ``lessons show``."""
    lines = [lesson.id, f"  rule:      {lesson.rule}"]
    if lesson.rationale:
        lines.append(f"  rationale: {lesson.rationale}")
    lines.append(f"  topics:    {', '.join(lesson.topics)}")
    for label, values in (
        ("files", lesson.triggers.files),
        ("commands", lesson.triggers.commands),
        ("keywords", lesson.triggers.keywords),
    ):
        if values:
            lines.append(f"  {label + ':':<10} {'  '.join(values)}")
    if lesson.evidence:
        lines.append(f"  evidence:  {', '.join(lesson.evidence)}")
    status = lesson.status.value
    if lesson.superseded_by:
        status += f" by {lesson.superseded_by}"
    marks = ", ".join(m for m, on in (("gate", lesson.gate), ("always on", lesson.always)) if on)
    lines.append(f"  status:    {status}{f' ({marks})' if marks else ''}")
    if lesson.reason:
        lines.append(f"  reason:    {lesson.reason}")
    lines.append(f"  created:   {lesson.created}")
    return "\n".join(visible(line) for line in lines)
