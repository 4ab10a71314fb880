"""How broad a command trigger is in a project of the adoption evaluation: the project's
commands (``lessons_core.project_commands``) it fires on, and the programs and
program-plus-first-word prefixes those commands start with, for the report."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from lessons_core.matching.commands import CommandPattern
from lessons_core.matching.shell_command import parse
from lessons_core.matching.thresholds import BROAD_PROJECT_SHARE
from lessons_core.project_commands import ProjectCommand


@dataclass(frozen=True)
class Prefix:
    """A program (``uv``) or a program and its first word (``uv run``), with how many of
    the project's commands start with it."""

    words: str
    commands: int


def fired(pattern: CommandPattern, commands: Iterable[ProjectCommand]) -> list[ProjectCommand]:
    """The commands ``pattern`` fires on, as recall matches it."""
    return [item for item in commands if pattern.matches(item.command)]


def is_broad(pattern: CommandPattern, commands: Sequence[ProjectCommand]) -> bool:
    """Whether ``pattern`` fires on more than ``BROAD_PROJECT_SHARE`` of ``commands`` (the
    share past which ``lessons add`` refuses a trigger as the project's routine)."""
    return bool(commands) and len(fired(pattern, commands)) > BROAD_PROJECT_SHARE * len(commands)


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
