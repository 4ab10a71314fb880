"""The active lessons as one Markdown document, for tools that only read a file.

Always-on lessons come first, in a section of their own (they apply to every task), then
one section per topic (a lesson with several topics appears under its first), with the
topic's summary when there is one, and one bullet per rule saying when it applies. The
output depends only on the lesson files, so regenerating it changes nothing until a
lesson does.

Harnesses load such a file as the agent's instructions, so lesson text goes in it as the
hooks show it (``lessons_core.recall.printable.inert``): escapes written out, each value on one
line, tags (``<system-reminder>``, ``<|im_start|>``, an HTML comment that would end the
section the file keeps it in), role markers and code fences defused.
"""

from __future__ import annotations

import re
from collections import defaultdict

from lessons_core.recall.printable import inert
from lessons_core.recall.render import inert_line
from lessons_core.store.files import load_graph
from lessons_core.store.layout import Layout
from lessons_core.store.model import Lesson
from lessons_core.store.topics import load_topics

NO_TOPIC = "general"
ALWAYS_HEADING = "## Every task"
_BACKTICKS = re.compile(r"`+")


def agents_md(layout: Layout) -> str:
    lessons = sorted(load_graph(layout).active(), key=lambda lesson: lesson.id)
    summaries = load_topics(layout)
    always = [lesson for lesson in lessons if lesson.always]
    sections: dict[str, list[Lesson]] = defaultdict(list)
    for lesson in lessons:
        if not lesson.always:
            sections[lesson.topics[0] if lesson.topics else NO_TOPIC].append(lesson)
    lines = [
        "# Project lessons",
        "",
        f"Rules learned in this project ({len(lessons)} active), written by "
        "`lessons export` from `.lessons/`. Change the lessons, not this file.",
    ]
    if always:
        lines += ["", ALWAYS_HEADING, ""]
        lines += [f"- {inert(lesson.rule)} ({code(lesson.id)})" for lesson in always]
    for topic in sorted(sections):
        lines += ["", f"## {inert(topic)}", ""]
        if topic in summaries:
            lines += [inert(summaries[topic].summary), ""]
        for lesson in sections[topic]:
            lines.append(f"- {inert(lesson.rule)}")
            lines.append(f"  {_when(lesson)}({code(lesson.id)})")
    # Each value is inert; '<x' ending one and '>' in the next could still make a tag.
    return "\n".join(map(inert_line, lines)) + "\n"


def _when(lesson: Lesson) -> str:
    parts = []
    if lesson.triggers.files:
        parts.append("editing " + ", ".join(code(g) for g in lesson.triggers.files))
    if lesson.triggers.commands:
        parts.append("running " + ", ".join(code(c) for c in lesson.triggers.commands))
    if lesson.triggers.keywords:
        parts.append("mentioning " + ", ".join(code(k) for k in lesson.triggers.keywords))
    return f"When {'; '.join(parts)}. " if parts else ""


def code(text: str) -> str:
    """Inline code that survives backticks in ``text``: a longer fence, padded; the text
    inert first (a code span is still read as text by the agent)."""
    text = inert(text)
    longest = max((len(run) for run in _BACKTICKS.findall(text)), default=0)
    fence = "`" * (longest + 1)
    pad = " " if longest else ""
    return f"{fence}{pad}{text}{pad}{fence}"
