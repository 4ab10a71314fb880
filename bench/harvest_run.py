"""Harvest in the benchmark: its recall and precision on the recorded transcripts, and how
its time grows with a transcript's size (a generated one, ``bench.transcripts``).

Time is the process's CPU time for ``harvest`` over the file (reading, detecting, matching
the candidates), so other work on the machine does not count; a size four times larger
should take about four times as long (linear), where a quadratic pass would take 16.
"""

from __future__ import annotations

import subprocess
import time
from dataclasses import dataclass
from pathlib import Path

from bench.transcripts import write_transcript
from lessons_cli.transcript_actions import per_transcript
from lessons_core.harvest.candidates import harvest
from lessons_core.harvest.scoring import HarvestScore, score_labelled
from lessons_core.store.layout import Layout
from lessons_core.store.project import init_project

LABELS = Path(__file__).resolve().parents[1] / "tests" / "fixtures" / "harvest" / "labels.json"


@dataclass(frozen=True)
class HarvestRun:
    score: HarvestScore
    sizes_mb: tuple[float, float]
    seconds: tuple[float, float]

    @property
    def growth(self) -> float:
        """Time ratio of the larger file to the smaller, divided by their size ratio."""
        return (self.seconds[1] / self.seconds[0]) / (self.sizes_mb[1] / self.sizes_mb[0])

    def summary(self) -> str:
        s = self.score
        recall = "-" if s.recall is None else f"{s.recall:.3f}"
        small, large = self.sizes_mb
        return (
            f"harvest: recall {recall}, precision {s.precision:.3f} on "
            f"{len(s.transcripts)} recorded transcripts ({s.matched} of {s.expected} expected "
            f"found, {s.found} found); {large:.1f} MB transcript in {self.seconds[1]:.2f} s "
            f"CPU ({large / self.seconds[1]:.1f} MB/s), {small:.1f} MB in {self.seconds[0]:.2f} s: "
            f"time grew {self.growth:.2f}x the size ratio (1 = linear)"
        )


def harvest_run(folder: Path, megabytes: float) -> HarvestRun:
    """Score the recorded transcripts in a fresh repo, then time a quarter-size and a
    full-size generated transcript."""
    root = folder / "repo"
    root.mkdir(parents=True)
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    layout, _ = init_project(root)
    score, _result = score_labelled(layout, LABELS, per_transcript(layout))
    sizes: list[float] = []
    seconds: list[float] = []
    for share in (0.25, 1.0):
        path = folder / f"generated-{share}.jsonl"
        sizes.append(write_transcript(path, megabytes * share, str(root)) / 1_000_000)
        seconds.append(time_harvest(layout, path))
    return HarvestRun(score, (sizes[0], sizes[1]), (seconds[0], seconds[1]))


def time_harvest(layout: Layout, path: Path) -> float:
    started = time.process_time()
    harvest(layout, [path], per_transcript(layout))
    return time.process_time() - started
