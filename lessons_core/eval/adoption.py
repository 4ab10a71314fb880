"""``lessons eval --import``: the importer on real public projects, judged against labels.

Each labelled project (``adoption_labels``) is rebuilt as a git repo in a temporary
folder (``adoption_repo``), and the importer runs there as a new user would run it:
``lessons import instructions`` with no argument, then ``lessons import cursor`` on each
Cursor rule file the project has. Every lesson written is judged (``adoption_judge``);
then validate runs on what was written. Per project and in total, tuned and held-out
projects apart:

- the share of imported lessons judged good (goal at least 90%) and wrong (at most 2%);
- the share of labelled rules (each names a file, folder or command) carried by a good
  lesson (goal at least 80%);
- imported lessons with a command trigger firing on more than a third of the project's
  everyday commands (``project_commands``; goal 0);
- what validate says above a notice (goal: nothing).
"""

from __future__ import annotations

import os
import re
import tempfile
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field, replace
from functools import partial
from pathlib import Path
from typing import Any

from lessons_core.authoring.repo_files import tracked_files
from lessons_core.errors import LessonsError
from lessons_core.eval.adoption_breadth import fired, prefixes
from lessons_core.eval.adoption_judge import GOOD, POOR, WRONG, Judge, Judged
from lessons_core.eval.adoption_labels import Label, Project, read_index
from lessons_core.eval.adoption_repo import materialise
from lessons_core.importers.apply import apply_plan
from lessons_core.importers.instructions import plan_instructions
from lessons_core.importers.plan import ImportPlan
from lessons_core.importers.rule_import import plan_rule_files
from lessons_core.matching.commands import CommandPatternError, compile_command
from lessons_core.matching.glob_counts import FileIndex
from lessons_core.project_commands import ProjectCommand, project_commands
from lessons_core.store.files import load_graph
from lessons_core.store.project import init_project
from lessons_core.validate.findings import Severity
from lessons_core.validate.runner import load_context, validate

# Runner prefixes and bare multi-purpose programs a person might give as a command
# trigger; the report says how many of each project's everyday commands each fires on.
NAIVE_TRIGGERS = (
    "uv",
    "uv run",
    "poetry run",
    "npx",
    "npm run",
    "pnpm",
    "pnpm run",
    "yarn",
    "gh",
    "just",
    "make",
    "go",
    "cargo",
    "docker compose",
)
GOALS = {"good": 0.9, "wrong": 0.02, "carried": 0.8, "broad": 0, "above_notice": 0}
_CURSOR_RULE = re.compile(r"(?:^|/)\.cursor/rules(?:/.+)?\.mdc$")
_SPECIAL = re.compile(r"([.^$*+?()\[\]{}|\\])")


@dataclass(frozen=True)
class Figures:
    imported: int = 0
    good: int = 0
    poor: int = 0
    wrong: int = 0
    unlabelled: int = 0
    rules: int = 0
    carried: int = 0
    broad: int = 0
    above_notice: Counter[str] = field(default_factory=Counter)  # validate code -> findings

    def __add__(self, other: Figures) -> Figures:
        counts = {name: getattr(self, name) + getattr(other, name) for name in _COUNTS}
        return replace(Figures(above_notice=self.above_notice + other.above_notice), **counts)

    def share(self, part: int, whole: int) -> float | None:
        return part / whole if whole else None

    @property
    def shares(self) -> dict[str, float | None]:
        return {
            "good": self.share(self.good, self.imported),
            "poor": self.share(self.poor, self.imported),
            "wrong": self.share(self.wrong, self.imported),
            "carried": self.share(self.carried, self.rules),
        }

    @property
    def met(self) -> dict[str, bool]:
        """Each goal, met or not; a share with nothing to count (no lesson imported, no
        rule labelled) meets its goal."""
        shares = self.shares
        return {
            "good": shares["good"] is None or shares["good"] >= GOALS["good"],
            "wrong": shares["wrong"] is None or shares["wrong"] <= GOALS["wrong"],
            "carried": shares["carried"] is None or shares["carried"] >= GOALS["carried"],
            "broad": self.broad <= GOALS["broad"],
            "above_notice": sum(self.above_notice.values()) <= GOALS["above_notice"],
        }

    def to_dict(self) -> dict[str, Any]:
        counts = {name: getattr(self, name) for name in _COUNTS}
        return {
            **counts,
            "above_notice": dict(sorted(self.above_notice.items())),
            "shares": self.shares,
            "met": self.met,
        }


_COUNTS = ("imported", "good", "poor", "wrong", "unlabelled", "rules", "carried", "broad")


@dataclass(frozen=True)
class Breadth:
    """What a naive command trigger would be in this project: its everyday commands, and
    each program or program-plus-word (``uv run``) that fires on over a third of them."""

    commands: tuple[ProjectCommand, ...]
    prefixes: int
    broad_prefixes: tuple[tuple[str, int], ...]
    naive: tuple[tuple[str, int], ...]  # each of NAIVE_TRIGGERS and the commands it fires on

    def to_dict(self) -> dict[str, Any]:
        return {
            "commands": len(self.commands),
            "prefixes": self.prefixes,
            "broad_prefixes": [{"prefix": p, "fires_on": n} for p, n in self.broad_prefixes],
            "naive_triggers": dict(self.naive),
            "everyday_commands": [c.to_dict() for c in self.commands],
        }


@dataclass(frozen=True)
class ProjectResult:
    project: Project
    figures: Figures
    lessons: tuple[Judged, ...]
    missed: tuple[Label, ...]  # labelled rules no good lesson carries
    breadth: Breadth
    fired_on: dict[str, int]  # each imported command trigger -> everyday commands it fires on
    problems: tuple[str, ...]  # import errors, as the command would print them

    def to_dict(self) -> dict[str, Any]:
        project = self.project
        return {
            "repo": project.repo,
            "language": project.language,
            "licence": project.licence,
            "held_out": project.held_out,
            **self.figures.to_dict(),
            "breadth": self.breadth.to_dict(),
            "command_triggers": self.fired_on,
            "problems": list(self.problems),
            "lessons": [judged.to_dict() for judged in self.lessons],
            "missed_rules": [label.to_dict() for label in self.missed],
        }


@dataclass(frozen=True)
class AdoptionReport:
    results: tuple[ProjectResult, ...]

    def total(self, held_out: bool | None = None) -> Figures:
        picked = [r for r in self.results if held_out is None or r.project.held_out == held_out]
        return sum((r.figures for r in picked), Figures())

    @property
    def met(self) -> bool:
        return all(self.total(part).met[goal] for part in (False, True) for goal in GOALS)

    def to_dict(self) -> dict[str, Any]:
        return {
            "goals": GOALS,
            "met": self.met,
            "tuned": self.total(held_out=False).to_dict(),
            "held_out": self.total(held_out=True).to_dict(),
            "total": self.total().to_dict(),
            "projects": [result.to_dict() for result in self.results],
        }


def evaluate_adoption(index: Path) -> AdoptionReport:
    """Import, judge and validate every project the index at ``index`` lists."""
    return AdoptionReport(tuple(evaluate_project(project) for project in read_index(index)))


def evaluate_project(project: Project) -> ProjectResult:
    with tempfile.TemporaryDirectory(prefix="lessons-adoption-", dir=scratch_parent()) as scratch:
        root = Path(scratch) / project.dir.name
        materialise(project, root)
        layout, _created = init_project(root)
        problems = run_imports(layout.root)
        graph = load_graph(layout)
        files = FileIndex(tracked_files(root))
        commands = project_commands(root, files.paths)
        judge = Judge(project.labels, files, commands)
        judged = tuple(judge.judge(lesson) for lesson in graph.lessons.values())
        report = validate(layout, load_context(layout, graph, files))
    above = Counter(f.code for f in report.findings if f.severity is not Severity.NOTICE)
    carried = {id(label) for j in judged for label in j.carried}
    missed = tuple(label for label in project.rules if id(label) not in carried)
    verdicts = Counter(j.verdict for j in judged)
    figures = Figures(
        imported=len(judged),
        good=verdicts[GOOD],
        poor=verdicts[POOR],
        wrong=verdicts[WRONG],
        unlabelled=sum(1 for j in judged if j.label is None),
        rules=len(project.rules),
        carried=len(project.rules) - len(missed),
        broad=sum(1 for j in judged if j.broad),
        above_notice=above,
    )
    triggers = sorted({p for j in judged for p in j.lesson.triggers.commands})
    return ProjectResult(
        project=project,
        figures=figures,
        lessons=judged,
        missed=missed,
        breadth=breadth(commands),
        fired_on={pattern: judge.fired_on(pattern) for pattern in triggers},
        problems=problems,
    )


def scratch_parent() -> str | None:
    """Where to rebuild a project: a rebuilt repo is thousands of empty files, which a
    memory-backed folder (Linux's /dev/shm) creates many times faster than a disk under
    load; elsewhere the system's temporary folder."""
    shm = "/dev/shm"
    return shm if os.path.isdir(shm) and os.access(shm, os.W_OK | os.X_OK) else None


def run_imports(root: Path) -> tuple[str, ...]:
    """Import as a new user would: instruction files with no argument, then each Cursor
    rule file with text; what an import refused, as its message."""
    layout, _created = init_project(root)
    problems: list[str] = []
    plans: list[Callable[[], ImportPlan]] = [lambda: plan_instructions(layout, [])]
    for path in cursor_rule_files(root, tracked_files(root)):
        plans.append(partial(plan_rule_files, layout, "cursor", root / path))
    for plan in plans:
        try:
            apply_plan(layout, plan(), dry_run=False)
        except LessonsError as err:
            problems.append(str(err))
    return tuple(problems)


def cursor_rule_files(root: Path, files: Iterable[str]) -> list[str]:
    """The project's Cursor rule files (``.cursor/rules/**/*.mdc`` or a ``.cursor/rules.mdc``
    in any folder) that hold text."""
    return [
        path
        for path in files
        if _CURSOR_RULE.search(path) and (root / path).is_file() and (root / path).stat().st_size
    ]


def breadth(commands: Sequence[ProjectCommand]) -> Breadth:
    found = prefixes(commands)
    broad: list[tuple[str, int]] = []
    for prefix in found:
        count = _fires_on(prefix.words, commands)
        if count * 3 > len(commands):
            broad.append((prefix.words, count))
    naive = tuple((trigger, _fires_on(trigger, commands)) for trigger in NAIVE_TRIGGERS)
    return Breadth(tuple(commands), len(found), tuple(broad), naive)


def _fires_on(words: str, commands: Sequence[ProjectCommand]) -> int:
    """How many of ``commands`` the literal trigger ``words`` fires on."""
    try:
        return len(fired(compile_command(literal(words)), commands))
    except CommandPatternError:
        return 0


def literal(text: str) -> str:
    """``text`` as a command pattern that matches it literally, as a person would write
    a program's name as a trigger."""
    return _SPECIAL.sub(r"\\\1", text)
