"""The commands of a vendored project, each with the file and line it was seen at, as the
adoption evaluation counts them: what its CI, task runners, package scripts, pre-commit
hooks and the shell blocks of its docs run, from a list of files the fixture names (the
project's own tracked files are not in a fixture's repo).

``lessons_core.project_commands`` is what the breadth judgement reads in a user's repo;
this module keeps where each command was seen, for the evaluation's report. The commands
of each kind of file are read by ``review.script_commands`` (the extractor ``lessons
review`` uses for added commands); the docs' shell blocks (fenced
``sh``/``bash``/``console`` code, or ``$``-prompted lines) by ``doc_commands`` here.

Every file is read inside the repo only, as a regular file of bounded size: a tracked
link that leads out of the repo is skipped by name, never followed.
"""

from __future__ import annotations

import os
import re
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from lessons_core.authoring.repo_files import tracked_files
from lessons_core.containment import leaving_part
from lessons_core.fsutil import read_regular
from lessons_core.matching.commands import CommandPattern
from lessons_core.matching.shell_command import parse
from lessons_core.review.script_commands import (
    ScriptCommand,
    commands_of,
    extractor,
    may_be_script,
    shell_commands,
)

# A file larger than this holds data, not commands a person keeps in their head.
MAX_FILE_BYTES = 1_000_000
# The share of a project's commands past which a command trigger stops the agent's
# ordinary work (issue: "more than a third of the project's everyday commands").
BROAD_SHARE = 1 / 3

_DOC_NAMES = frozenset(
    {"AGENTS.md", "CLAUDE.md", "GEMINI.md", "README.md", "CONTRIBUTING.md", "DEVELOPMENT.md"}
)
_SHELL_LANGUAGES = frozenset(
    {"sh", "bash", "shell", "zsh", "console", "shell-session", "shellsession", "terminal"}
)
_FENCE = re.compile(r"^\s*(```+|~~~+)\s*([\w+-]*)")
_PROMPT = re.compile(r"^\s*[$%]\s+(\S.*)$")


@dataclass(frozen=True)
class ProjectCommand:
    """One command the project runs, and where it was first seen (path, 1-based line)."""

    command: str
    source: str
    line: int

    def to_dict(self) -> dict[str, str | int]:
        return {"command": self.command, "source": self.source, "line": self.line}


@dataclass(frozen=True)
class Prefix:
    """A program (``uv``) or a program and its first word (``uv run``), with how many of
    the project's commands start with it."""

    words: str
    commands: int


def is_doc(path: str) -> bool:
    """A file whose shell blocks count: an instruction file anywhere, a root README or
    contributing guide, Copilot's instructions or a Cursor rule."""
    name = path.rsplit("/", 1)[-1]
    if name in _DOC_NAMES and (name not in ("README.md", "CONTRIBUTING.md") or "/" not in path):
        return True
    return path == ".github/copilot-instructions.md" or (
        "/.cursor/" in f"/{path}" and name.endswith((".mdc", ".md"))
    )


def project_commands(root: Path, files: Sequence[str] | None = None) -> tuple[ProjectCommand, ...]:
    """The commands of the repo at ``root``, each once (first place seen), in the order of
    ``files`` (its tracked files by default)."""
    seen: dict[str, ProjectCommand] = {}
    for path in files if files is not None else tracked_files(root):
        text = _read(root, path) if _may_hold_commands(root, path) else None
        if text is None:
            continue
        found = doc_commands(text) if is_doc(path) else commands_of(path, text)
        for item in found:
            command = item.command.strip()
            if command and command not in seen:
                seen[command] = ProjectCommand(command, path, item.line)
    return tuple(seen.values())


def _may_hold_commands(root: Path, path: str) -> bool:
    """A file of a kind the extractors read, a doc, or an executable file without an
    extension (a script its shebang may reveal); a repo holds too many other files to
    read them all."""
    if extractor(path) or is_doc(path):
        return True
    if may_be_script(path):
        try:
            return os.stat(root / path).st_mode & 0o111 != 0
        except OSError:
            return False
    return False


def doc_commands(text: str) -> list[ScriptCommand]:
    """The shell commands of a Markdown text: each line of a fenced block in a shell
    language (a ``$`` prompt dropped; in a ``console`` block only prompted lines), and
    every ``$``-prompted line of a block with no language."""
    found: list[ScriptCommand] = []
    lines = text.split("\n")
    at = 0
    while at < len(lines):
        opened = _FENCE.match(lines[at])
        at += 1
        if opened is None:
            continue
        fence, language = opened.group(1), opened.group(2).lower()
        start = at
        while at < len(lines) and not lines[at].strip().startswith(fence):
            at += 1
        block = lines[start:at]
        at += 1
        if language in _SHELL_LANGUAGES or not language:
            found.extend(_block_commands(block, start + 1, language))
    return found


def _block_commands(block: list[str], first: int, language: str) -> list[ScriptCommand]:
    prompted = [_PROMPT.match(line) for line in block]
    if any(prompted) or language in ("console", "shell-session", "shellsession", "terminal", ""):
        return [
            ScriptCommand(first + n, first + n, match.group(1).strip())
            for n, match in enumerate(prompted)
            if match is not None
        ]
    return shell_commands(block, first)


def _read(root: Path, path: str) -> str | None:
    if leaving_part(path, root) is not None:
        return None
    try:
        return read_regular(root / path, MAX_FILE_BYTES).decode("utf-8")
    except (OSError, UnicodeDecodeError):
        return None


def fired(pattern: CommandPattern, commands: Iterable[ProjectCommand]) -> list[ProjectCommand]:
    """The commands ``pattern`` fires on, as recall matches it."""
    return [item for item in commands if pattern.matches(item.command)]


def is_broad(pattern: CommandPattern, commands: Sequence[ProjectCommand]) -> bool:
    """Whether ``pattern`` fires on more than ``BROAD_SHARE`` of ``commands``."""
    return bool(commands) and len(fired(pattern, commands)) > BROAD_SHARE * len(commands)


def prefixes(commands: Iterable[ProjectCommand]) -> list[Prefix]:
    """Each program and program-plus-first-word the commands start with (``uv``,
    ``uv run``; an option is no first word), with how many commands start with it, most
    first. A simple command of a compound one (``cd docs && make html``) counts as one."""
    counts: Counter[str] = Counter()
    for item in commands:
        starts: set[str] = set()
        for segment in parse(item.command).segments:
            words = segment.words
            if not words:
                continue
            starts.add(words[0])
            if len(words) > 1 and not words[1].startswith("-"):
                starts.add(f"{words[0]} {words[1]}")
        counts.update(starts)
    return [Prefix(words, count) for words, count in sorted(counts.items(), key=_most_first)]


def _most_first(item: tuple[str, int]) -> tuple[int, str]:
    return -item[1], item[0]
