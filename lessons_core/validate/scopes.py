"""``lessons validate`` over every scope: the project, each pack as a source of its own, and
(with ``--personal``) the user's personal store, plus L204 across them.

A pack's findings name its files by their path in the repository
(``vendor/platform-lessons/lessons/x.json``), a personal lesson's by its absolute path, so
a reader knows where each fix goes. A pack path that leaves the repository is an L011
finding on config.json. Two lessons of different scopes that contradict each other where
both fire are an L204 finding naming each scope: the agent would be shown both.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, replace

from lessons_core.authoring.stances import Stance, stances
from lessons_core.errors import LessonsError
from lessons_core.matching.glob_counts import FileIndex
from lessons_core.recall.printable import inert
from lessons_core.store.files import load_graph
from lessons_core.store.layout import Layout
from lessons_core.store.model import Lesson
from lessons_core.store.sources import SourceStore, pack_stores
from lessons_core.validate.context import Context
from lessons_core.validate.findings import Finding
from lessons_core.validate.overlap import shared_trigger
from lessons_core.validate.runner import ValidationReport, load_context, validate

# How many cross-scope contradictions one lesson's findings name.
MAX_NAMED = 5


@dataclass(frozen=True)
class Scope:
    """One source of lessons as validate names it: ``project``, ``pack NAME``, ``personal``."""

    label: str
    context: Context

    def lesson_file(self, lesson_id: str) -> str:
        return self.context.lesson_file(lesson_id)


def validate_scopes(layout: Layout | None, personal: SourceStore | None = None) -> ValidationReport:
    """Without ``personal``: the project's findings, each pack's, and the contradictions
    across them. With it: the personal store's findings, and its contradictions with the
    project and its packs (none outside a project: ``layout`` None)."""
    if layout is None:
        if personal is None:
            raise LessonsError("nothing to validate: no project and no personal store")
        return validate(personal)
    project = load_context(layout)
    scopes = [Scope("project", project)]
    findings: list[Finding] = []
    if personal is None:
        findings.extend(validate(layout, project).findings)
    try:
        packs = pack_stores(layout, project.config.packs)
    except LessonsError as err:
        packs = []
        findings.append(_config_finding(project, str(err)))
    for pack in packs:
        scopes.append(Scope(pack.label, _context(pack, project)))
    if personal is not None:
        scopes.append(Scope(personal.label, _context(personal, project)))
    checked = scopes[-1:] if personal is not None else scopes[1:]
    for scope in checked:
        store = scope.context.layout
        findings.extend(validate(store, scope.context).findings)
    crossing = across(scopes, project.files)
    if personal is not None:  # only the contradictions a personal lesson is part of
        context = scopes[-1].context
        mine = context.rel(context.layout.lessons_dir) + "/"
        crossing = (finding for finding in crossing if finding.file.startswith(mine))
    findings.extend(crossing)
    findings.sort(key=lambda f: (f.file, f.line or 0, f.code, f.message))
    counted = checked if personal is not None else scopes
    lessons = sum(len(scope.context.graph.lessons) for scope in counted)
    return ValidationReport(findings=tuple(findings), lessons=lessons)


def _context(store: SourceStore, project: Context) -> Context:
    """``store`` judged by the project's settings and files; no telemetry of its own."""
    return replace(project, layout=store, graph=load_graph(store), config_errors=(), telemetry=None)


def _config_finding(project: Context, problem: str) -> Finding:
    return Finding(
        "L011",
        project.rel(project.layout.config_path),
        problem,
        'list in "packs" only folders inside the repository, each holding lessons/*.json',
        anchor='"packs"',
    )


def across(scopes: Sequence[Scope], files: FileIndex) -> Iterator[Finding]:
    """L204 for each lesson of a later scope whose rule contradicts an active lesson of an
    earlier scope, where both fire on one call."""
    held: dict[tuple[frozenset[str], bool], list[tuple[int, Lesson, Stance]]] = defaultdict(list)
    for number, scope in enumerate(scopes):
        for lesson in sorted(scope.context.graph.active(), key=lambda x: x.id):
            seen: set[tuple[frozenset[str], bool]] = set()
            for stance in stances(lesson.rule):
                if (stance.key, stance.positive) not in seen:
                    seen.add((stance.key, stance.positive))
                    held[stance.key, stance.positive].append((number, lesson, stance))
    named: dict[tuple[int, str], int] = defaultdict(int)
    for (key, positive), holders in sorted(held.items(), key=lambda item: sorted(item[0][0])):
        if not positive:
            continue
        for mine in holders:
            for other in held.get((key, False), ()):
                if mine[0] == other[0]:
                    continue  # within one scope: that scope's own L204
                first, second = sorted((mine, other), key=lambda entry: entry[0])
                where = (second[0], second[1].id)
                if named[where] >= MAX_NAMED:
                    continue
                shared = shared_trigger(first[1].triggers, second[1].triggers, files)
                if shared is not None:
                    named[where] += 1
                    yield _finding(scopes, first, second, shared)


def _finding(
    scopes: Sequence[Scope],
    first: tuple[int, Lesson, Stance],
    second: tuple[int, Lesson, Stance],
    shared: str,
) -> Finding:
    """L204 on the later scope's lesson, naming both lessons, their scopes and files."""
    (one, older, older_says), (two, newer, newer_says) = first, second
    theirs, mine = scopes[one], scopes[two]
    return Finding(
        "L204",
        mine.lesson_file(newer.id),
        f"the {mine.label} rule contradicts {theirs.label} lesson '{older.id}' "
        f"({theirs.lesson_file(older.id)}), and both fire on {shared}: the {mine.label} "
        f'one says "{inert(newer_says.text)}", the {theirs.label} one says '
        f'"{inert(older_says.text)}"',
        "keep the one that holds: retire the other where it lives (lessons deprecate, in "
        "its own scope), or narrow a trigger so they never fire together",
        newer.id,
        '"rule"',
    )
