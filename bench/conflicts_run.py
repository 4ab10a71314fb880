"""What ``lessons validate`` finds of contradictions (L204) and near-copies (L202), and what
those checks cost.

- Quality: the labelled pairs of ``tests/fixtures/conflicts/pairs.json``, scored by
  ``lessons_core.eval.conflicts`` exactly as ``lessons eval --conflicts`` scores them.
- Cost, in process (the checks as validate runs them, on lessons already loaded): the
  real corpus (imported with ``lessons import agentsmesh``), the synthetic graph of
  ``bench.synth`` at 10,000 lessons (``--conflict-lessons``), and a graph of as many
  lessons made to contradict itself:
  short "never"/"always"/"instead of" rules over a few dozen objects, their triggers drawn
  from a few folders and commands, so most stances have opposites and many pairs meet.
"""

from __future__ import annotations

import random
import time
from dataclasses import dataclass
from pathlib import Path

from bench.synth import generate
from lessons_core.authoring.stances import anchors, same_object, stances
from lessons_core.eval.conflicts import ConflictScore, read_pairs, score_pairs
from lessons_core.matching.glob_counts import FileIndex
from lessons_core.store.files import load_graph
from lessons_core.store.layout import Layout
from lessons_core.store.model import Lesson, Triggers
from lessons_core.validate.contradictions import contradictions
from lessons_core.validate.duplicates import near_copies

PAIRS = Path(__file__).resolve().parents[1] / "tests" / "fixtures" / "conflicts" / "pairs.json"
_OBJECTS = """pnpm npm yarn tags main rebase --force --no-verify pathlib os.path console.log
    dist/ vitest jest tabs spaces lockfile alembic migrations fixtures snapshots mocks
    execSync spawnSync readline prompt-io latest major.minor tokens env: sudo curl""".split()
_VERBS = ("push", "run", "commit", "edit", "use", "delete", "pin", "mock", "cache", "log")
_FOLDERS = ("src/db", "src/cli", "src/api", "tests/e2e", "scripts", "docs")
_COMMANDS = ("git push", "git commit", "pnpm test", "npm install", "vitest", "make")


@dataclass(frozen=True)
class ConflictCost:
    name: str
    lessons: int
    contradiction_seconds: float  # L204
    copy_seconds: float  # L202's join and clusters
    contradictions: int  # lessons L204 names
    clusters: int  # L202 findings (one a cluster)


def conflicts_summary(corpus_root: Path, runs: int, size: int = 10_000) -> str:
    """The quality line, then one cost line a graph (synthetic ones of ``size`` lessons)."""
    score = score_pairs(read_pairs(PAIRS))
    costs = [cost("corpus", _active(corpus_root), FileIndex(()), runs)]
    synthetic = generate(size)
    costs.append(cost("synthetic", list(synthetic.lessons), FileIndex(synthetic.paths), runs))
    costs.append(cost("self-contradicting", opposed_graph(size), FileIndex(()), runs))
    return "\n".join([quality_line(score), *(_cost_line(c) for c in costs)])


def quality_line(score: ConflictScore) -> str:
    return f"lessons eval --conflicts {PAIRS.relative_to(PAIRS.parents[3])}: {score.summary()}"


def cost(name: str, lessons: list[Lesson], files: FileIndex, runs: int) -> ConflictCost:
    """Median times of the L204 and the L202 check over ``runs`` runs."""
    ordered = sorted(lessons, key=lambda lesson: (lesson.created, lesson.id))
    opposed_times, copy_times = [], []
    for _ in range(max(1, runs)):
        for cached in (stances, anchors, same_object):  # each run reads every rule afresh,
            cached.cache_clear()  # as one validate process does
        started = time.perf_counter()
        found = contradictions(ordered, files)
        opposed_times.append(time.perf_counter() - started)
        stances.cache_clear()
        started = time.perf_counter()
        clusters = near_copies(ordered)
        copy_times.append(time.perf_counter() - started)
    return ConflictCost(
        name, len(ordered), _median(opposed_times), _median(copy_times), len(found), len(clusters)
    )


def _median(times: list[float]) -> float:
    return sorted(times)[len(times) // 2]


def _cost_line(found: ConflictCost) -> str:
    return (
        f"{found.name} ({found.lessons:,} active lessons): contradictions (L204) "
        f"{found.contradiction_seconds:.2f} s, near-copies (L202) {found.copy_seconds:.2f} s "
        f"in process; {found.contradictions} lessons contradict an older one, "
        f"{found.clusters} near-copy clusters"
    )


def _active(root: Path) -> list[Lesson]:
    return load_graph(Layout(root)).active()


def opposed_graph(count: int, seed: int = 11) -> list[Lesson]:
    """``count`` short rules built to oppose each other (see the module docstring)."""
    rng = random.Random(seed)
    lessons = []
    for n in range(count):
        verb, thing = rng.choice(_VERBS), rng.choice(_OBJECTS)
        form = rng.randrange(4)
        if form == 0:
            rule = f"Never {verb} {thing}."
        elif form == 1:
            rule = f"Always {verb} {thing}."
        elif form == 2:
            rule = f"Use {thing} instead of {rng.choice(_OBJECTS)}."
        else:
            rule = f"Don't {verb} {thing} in {rng.choice(_FOLDERS)}."
        if rng.random() < 0.7:
            triggers = Triggers(files=(f"{rng.choice(_FOLDERS)}/**",))
        else:
            triggers = Triggers(commands=(rng.choice(_COMMANDS),))
        lessons.append(
            Lesson(
                id=f"opposed-{n:05d}",
                rule=rule,
                topics=("bench",),
                triggers=triggers,
                created=f"2026-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d}",
            )
        )
    return lessons
