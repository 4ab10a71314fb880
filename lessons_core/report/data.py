"""The figures behind the HTML report."""

from __future__ import annotations

import datetime as dt
from collections import Counter
from dataclasses import dataclass

from lessons_core.matching.trigger_checks import TriggerProblem, judge_glob
from lessons_core.store.layout import Layout
from lessons_core.store.model import Lesson, Status
from lessons_core.telemetry.stats import Stats, compute
from lessons_core.validate import ValidationReport, load_context, validate

COVERAGE_DEPTH = 2


@dataclass(frozen=True)
class FolderCoverage:
    """How many of a folder's files (at any depth) some active file trigger matches."""

    folder: str
    depth: int
    files: int
    covered: int

    @property
    def share(self) -> float:
        return self.covered / self.files if self.files else 0.0


@dataclass(frozen=True)
class ReportData:
    project: str
    generated: str
    statuses: dict[str, int]
    broken: int
    topics: tuple[tuple[str, int], ...]
    files: int
    covered: int
    folders: tuple[FolderCoverage, ...]
    validation: ValidationReport
    telemetry_on: bool
    stats: Stats | None
    retired: tuple[Lesson, ...] = ()  # deprecated and superseded lessons, by id


def gather(layout: Layout, now: dt.datetime | None = None) -> ReportData:
    ctx = load_context(layout)
    lessons = list(ctx.graph.lessons.values())
    active = [lesson for lesson in lessons if lesson.is_active]
    covered: set[str] = set()
    for lesson in active:
        for glob in lesson.triggers.files:
            compiled = judge_glob(glob)
            if not isinstance(compiled, TriggerProblem):
                covered.update(ctx.files.matching(compiled))
    topics = Counter(topic for lesson in active for topic in lesson.topics)
    log = ctx.telemetry
    return ReportData(
        project=layout.root.name,
        generated=(now or dt.datetime.now()).strftime("%Y-%m-%d %H:%M"),
        statuses={s.value: sum(1 for x in lessons if x.status is s) for s in Status},
        broken=len(ctx.graph.broken),
        topics=tuple(sorted(topics.items(), key=lambda item: (-item[1], item[0]))),
        files=len(ctx.files),
        covered=len(covered),
        folders=folder_coverage(ctx.files.paths, covered),
        validation=validate(layout, ctx),
        telemetry_on=log is not None,
        stats=compute(log, lessons) if log is not None and log.recalls else None,
        retired=tuple(sorted((x for x in lessons if not x.is_active), key=lambda x: x.id)),
    )


def folder_coverage(paths: list[str], covered: set[str]) -> tuple[FolderCoverage, ...]:
    """Coverage of each folder down to ``COVERAGE_DEPTH`` levels, in tree order."""
    files: Counter[str] = Counter()
    hits: Counter[str] = Counter()
    for path in paths:
        parts = path.split("/")[:-1]
        folders = ["/".join(parts[:n]) for n in range(1, min(len(parts), COVERAGE_DEPTH) + 1)]
        for folder in folders or ["."]:
            files[folder] += 1
            hits[folder] += path in covered
    return tuple(
        FolderCoverage(folder, 0 if folder == "." else folder.count("/") + 1, n, hits[folder])
        for folder, n in sorted(files.items())
    )
