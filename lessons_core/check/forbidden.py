"""Which lines break a file lesson's ``forbid`` pattern.

A line is checked against the active lessons that carry a ``forbid`` pattern and whose
file triggers cover its file, matched by the one file matcher recall uses
(``CompiledGlob.matches``), so ``lessons check`` and the hook agree on which rules speak
about a file. Each line is searched on its own (``first_forbidden``): a finding names one
line, and the first match on it.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import NamedTuple

from lessons_core.check.diff_lines import AddedLine
from lessons_core.matching.forbid import first_forbidden
from lessons_core.matching.globs import CompiledGlob, GlobError, compile_glob
from lessons_core.store.files import Graph
from lessons_core.store.model import Lesson


class ForbidRule(NamedTuple):
    """An active lesson with a ``forbid`` pattern, and its file triggers compiled (one
    that can never fire left out)."""

    lesson: Lesson
    pattern: str
    globs: tuple[CompiledGlob, ...]

    def covers(self, path: str) -> bool:
        return any(glob.matches(path) for glob in self.globs)


class Breach(NamedTuple):
    """A line that breaks a rule: where, the text matched, and the lesson."""

    path: str
    line: int
    matched: str
    lesson: Lesson


def forbid_rules(graph: Graph) -> list[ForbidRule]:
    """The active lessons with a ``forbid`` pattern, by id."""
    rules = []
    for lesson in sorted(graph.active(), key=lambda x: x.id):
        if lesson.forbid is None:
            continue
        globs = tuple(_compiled(lesson.triggers.files))
        if globs:
            rules.append(ForbidRule(lesson, lesson.forbid, globs))
    return rules


def _compiled(globs: Iterable[str]) -> Iterator[CompiledGlob]:
    for glob in globs:
        try:
            yield compile_glob(glob)
        except GlobError:  # validate reports it (L009); the lesson's other globs still hold
            continue


def breaches(rules: list[ForbidRule], lines: Iterable[AddedLine]) -> list[Breach]:
    """Every (line, rule) where a rule covering the line's file matches it, in the order
    of the lines, then of the rules."""
    found: list[Breach] = []
    covering: dict[str, list[ForbidRule]] = {}
    for added in lines:
        if added.path not in covering:
            covering[added.path] = [rule for rule in rules if rule.covers(added.path)]
        for rule in covering[added.path]:
            match = first_forbidden(rule.pattern, added.text)
            if match is not None:
                found.append(Breach(added.path, added.line, match.text, rule.lesson))
    return found
