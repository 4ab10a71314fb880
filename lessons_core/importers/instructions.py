"""The plain instruction files most projects already have, as lessons.

``CLAUDE.md``, ``AGENTS.md``, ``GEMINI.md`` and ``.github/copilot-instructions.md`` are
loaded whole into every session by their harness, and say nothing of where each line
applies. A bullet that names a file or a command of the repo (``importers.mentions``)
becomes a lesson with that trigger, shown right where it applies; every other bullet
stays in its file, which the harness keeps loading, and is reported as staying (with
``always``, it becomes an always-on lesson instead, within ``always_max_tokens``).
Nothing is dropped without a note.

Each heading names the topic of the bullets below it (the file's name before the first
heading). The section ``lessons init --agents-md`` wrote (between its two HTML comments)
is lessons' own and is skipped. A file given as a symbolic link is read where it leads,
inside the repo only; two names of one file (``CLAUDE.md -> AGENTS.md``) are read once.
A file below the root (``pkg/AGENTS.md``) applies to its folder: the paths its bullets
name are read from there first (``importers.mentions``).
"""

from __future__ import annotations

import os
import re
from pathlib import Path

from lessons_core.errors import LessonsError
from lessons_core.fsutil import write_target
from lessons_core.importers.markdown_rules import parse_body
from lessons_core.importers.mentions import instruction_folder
from lessons_core.importers.plan import ImportPlan, NoteKind
from lessons_core.importers.rule_import import Planner, display, excerpt
from lessons_core.store.ids import slug
from lessons_core.store.layout import Layout

FORMAT = "instructions"
INSTRUCTION_FILES = ("CLAUDE.md", "AGENTS.md", "GEMINI.md", ".github/copilot-instructions.md")
# The section ``lessons init --agents-md`` writes (lessons_cli.harnesses.agent_docs).
SECTION_START = "<!-- lessons:start -->"
SECTION_END = "<!-- lessons:end -->"
_HEADING = re.compile(r"^\s{0,3}#{1,6}\s+(.*?)\s*#*\s*$")
_FENCE = re.compile(r"^\s*(```|~~~)")


def default_files(root: Path) -> list[Path]:
    """The instruction files at the top of the repo, in ``INSTRUCTION_FILES`` order."""
    return [root / name for name in INSTRUCTION_FILES if (root / name).exists()]


def plan_instructions(layout: Layout, paths: list[Path], always: bool = False) -> ImportPlan:
    """The lessons of the instruction files ``paths`` (``default_files`` when empty)."""
    paths = paths or default_files(layout.root)
    if not paths:
        raise LessonsError(
            f"no instruction file in {layout.root} ({', '.join(INSTRUCTION_FILES)}); "
            "pass the files to import: lessons import instructions FILE..."
        )
    plan = Planner(layout)
    seen: set[str] = set()
    names: list[str] = []
    for path in paths:
        target = write_target(path.absolute(), layout.root)  # a link must stay in the repo
        real = os.path.realpath(target)
        subject = _name(path.absolute(), layout.root)
        names.append(subject)
        if real in seen:
            continue
        seen.add(real)
        try:
            text = target.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as err:
            plan.note(NoteKind.NOT_CARRIED, "file-unreadable", subject, f"skipped: {err}")
            continue
        _plan_file(plan, _without_own_section(text), subject, _folder(path, layout.root), always)
    return plan.finish(", ".join(names), FORMAT)


def _plan_file(plan: Planner, text: str, subject: str, folder: str, always: bool) -> None:
    """The bullets of one file as lessons; the paths they name are read in ``folder``,
    the one the file applies to (``mentions.instruction_folder``)."""
    why = f"{subject} is loaded whole into every session"
    hint = "--always imports it as an always-on lesson"
    for heading, body in _sections(text, _file_topic(subject)):
        topic = slug(heading) or "instructions"
        parsed = parse_body(body)
        if parsed.code_blocks:
            plan.note(
                NoteKind.NOT_CARRIED,
                "code-block",
                subject,
                f"{parsed.code_blocks} code block(s) under '{heading}' stay in the file",
            )
        for paragraph in parsed.paragraphs:
            plan.note(
                NoteKind.NOT_CARRIED,
                "paragraph",
                subject,
                f"prose under '{heading}' stays in the file: '{excerpt(paragraph)}'",
            )
        for item in parsed.items:
            if item.rule:
                plan.add_unscoped(
                    item.rule, item.rationale, topic, subject, always, why, hint, folder
                )


def _name(path: Path, root: Path) -> str:
    """``path`` as the user named it, from the repo root (a link keeps its own name)."""
    try:
        return path.relative_to(root).as_posix()
    except ValueError:
        return display(path, root)


def _folder(path: Path, root: Path) -> str:
    """The repo-relative folder the file at ``path`` (as named) applies to; the root for
    a file given from outside the repo."""
    try:
        name = path.absolute().relative_to(root).as_posix()
    except ValueError:
        return ""
    return instruction_folder(name)


def _file_topic(subject: str) -> str:
    name = subject.rsplit("/", 1)[-1]
    return name.removesuffix(".md")


def _sections(text: str, first: str) -> list[tuple[str, str]]:
    """(heading, body) pairs, in order; the text before the first heading under ``first``."""
    sections: list[tuple[str, list[str]]] = [(first, [])]
    fence: str | None = None
    for line in text.splitlines():
        opened = _FENCE.match(line)
        if fence is not None:
            fence = None if opened and opened.group(1) == fence else fence
        elif opened:
            fence = opened.group(1)
        else:
            heading = _HEADING.match(line)
            if heading:
                sections.append((heading.group(1) or first, []))
                continue
        sections[-1][1].append(line)
    return [(heading, "\n".join(lines)) for heading, lines in sections if "".join(lines).strip()]


def _without_own_section(text: str) -> str:
    """``text`` less every section lessons wrote there itself."""
    while True:
        start = text.find(SECTION_START)
        end = text.find(SECTION_END, start + 1) if start >= 0 else -1
        if start < 0 or end < 0:
            return text
        text = text[:start] + text[end + len(SECTION_END) :]
