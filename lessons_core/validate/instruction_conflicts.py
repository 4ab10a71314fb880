"""L205: a lesson that says the opposite of a line of the project's CLAUDE.md or AGENTS.md
about the same file or command; L206: such a file that could not be compared.

The harness loads those files whole into every session, so an agent shown a lesson that
contradicts one of their lines holds both. Read are ``CLAUDE.md`` and ``AGENTS.md`` at
the top of the repo and, below it, those git tracks. Each is project content: every part
of its path must stay inside the repo (``CLAUDE.md -> AGENTS.md`` is fine, a link out of
the repo is refused by name, L206), and it is read as a regular file of at most
``MAX_INSTRUCTION_BYTES``. Code blocks and the section ``lessons init --agents-md``
wrote are skipped. A line counts only when it holds a stance opposite to a lesson's
(``stances``) and names a file or command (``importers.mentions``) that the lesson's
triggers also fire on (``overlap.shared_trigger``); a path in a file below the root is
read from that file's folder first (``pkg/AGENTS.md`` naming ``generated/api.py`` is
about ``pkg/generated/api.py``), as the harness applies the file to its folder.
"""

from __future__ import annotations

import os
from collections import defaultdict
from collections.abc import Iterator
from typing import NamedTuple

from lessons_core.authoring.stances import Stance, stances
from lessons_core.containment import leaving_part, outside_reason
from lessons_core.fsutil import NotRegularFile, TooLarge, read_regular
from lessons_core.importers.markdown_rules import heading_text
from lessons_core.importers.mentions import Mentions, instruction_folder
from lessons_core.importers.normative import as_prohibition, prohibiting_heading
from lessons_core.markdown_fences import outside_fences
from lessons_core.recall.printable import inert
from lessons_core.store.model import Lesson
from lessons_core.validate.context import Context
from lessons_core.validate.findings import Finding
from lessons_core.validate.overlap import shared_trigger

INSTRUCTION_NAMES = ("CLAUDE.md", "AGENTS.md")
MAX_INSTRUCTION_BYTES = 512 * 1024
# The section ``lessons init --agents-md`` writes: lessons' own text, not the project's.
_OWN_START = "<!-- lessons:start -->"
_OWN_END = "<!-- lessons:end -->"


class InstructionLine(NamedTuple):
    file: str  # repo-relative, as git names it
    number: int
    text: str


def check(ctx: Context) -> Iterator[Finding]:
    lines, refused = instruction_lines(ctx)
    yield from refused
    if not lines:
        return
    held: dict[tuple[frozenset[str], bool], list[tuple[Lesson, Stance]]] = defaultdict(list)
    for lesson in ctx.graph.active():
        for stance in stances(lesson.rule):
            held[stance.key, stance.positive].append((lesson, stance))
    mentions = Mentions(ctx.layout.root, ctx.files)
    reported: set[tuple[str, str]] = set()
    for line in lines:
        named = None  # what the line names, found once the line is worth it
        for said in stances(line.text):
            for lesson, stance in held.get((said.key, not said.positive), ()):
                if (lesson.id, line.file) in reported:
                    continue
                named = named or mentions.triggers(line.text, instruction_folder(line.file))
                shared = shared_trigger(named, lesson.triggers, ctx.files)
                if shared is None:
                    continue
                reported.add((lesson.id, line.file))
                yield Finding(
                    "L205",
                    ctx.lesson_file(lesson.id),
                    f"the rule contradicts {line.file}:{line.number} about {shared}: "
                    f'{line.file} says "{inert(said.text)}", '
                    f'this one says "{inert(stance.text)}"',
                    f"make them agree: fix line {line.number} of {line.file}, or retire this "
                    f"lesson (lessons deprecate {lesson.id} --reason ...), or narrow its "
                    "trigger to where it is true",
                    lesson.id,
                    '"rule"',
                )


def instruction_lines(ctx: Context) -> tuple[list[InstructionLine], list[Finding]]:
    """The lines of the repo's instruction files, and a notice for each file not read."""
    root = str(ctx.layout.root)
    names = [name for name in INSTRUCTION_NAMES if os.path.lexists(os.path.join(root, name))]
    names += [p for p in ctx.files.paths if "/" in p and p.rsplit("/", 1)[1] in INSTRUCTION_NAMES]
    lines: list[InstructionLine] = []
    refused: list[Finding] = []
    seen: set[str] = set()
    for name in dict.fromkeys(names):
        path = os.path.join(root, name)
        leaving = leaving_part(path, root)
        if leaving is not None:
            refused.append(_not_compared(ctx, name, outside_reason(*leaving)))
            continue
        real = os.path.realpath(path)
        if real in seen:  # CLAUDE.md -> AGENTS.md: one file, read once
            continue
        seen.add(real)
        try:
            text = read_regular(real, MAX_INSTRUCTION_BYTES).decode("utf-8")
        except FileNotFoundError:
            continue
        except (TooLarge, NotRegularFile, UnicodeDecodeError, OSError) as err:
            reason = err.strerror if isinstance(err, OSError) and err.strerror else str(err)
            refused.append(_not_compared(ctx, name, f"{name} {reason}"))
            continue
        lines += _project_lines(name, text)
    return lines, refused


def _not_compared(ctx: Context, name: str, reason: str) -> Finding:
    return Finding(
        "L206",
        name,
        f"not compared with the lessons: {reason}",
        "keep CLAUDE.md and AGENTS.md as plain UTF-8 files of the repo, or links to one "
        f"inside it, under {MAX_INSTRUCTION_BYTES // 1024} KiB",
    )


def _project_lines(name: str, text: str) -> list[InstructionLine]:
    """Prose lines, without code blocks and without lessons' own section; a bullet under
    a heading of things not to do ("## Do Not Edit" above "- `*.pb.go`") says so, as
    import reads it."""
    out: list[InstructionLine] = []
    own = False
    forbidding = False
    title = ""
    for number, line in enumerate(outside_fences(text).splitlines(), 1):
        stripped = line.strip()
        if stripped.startswith(_OWN_START):
            own = True
        if own:
            own = not stripped.startswith(_OWN_END)
            continue
        heading = heading_text(line)
        if heading is not None:
            title = heading
            forbidding = prohibiting_heading(title)
        elif stripped and not stripped.startswith(("<!--", "|")):
            said = stripped.lstrip("-*+> ").strip()
            bullet = stripped[:1] in "-*+"
            out.append(
                InstructionLine(
                    name, number, as_prohibition(said, title) if bullet and forbidding else said
                )
            )
    return out
