"""``lessons validate`` as a whole process over a deterministic graph in a real git repo:
the synthetic tree and lessons of ``bench.synth`` (same seed, same files), committed."""

from __future__ import annotations

import statistics
import subprocess
from pathlib import Path

from bench.graphs import Graph
from bench.installs import editable
from bench.report import Line
from bench.synth import generate, write_repo
from bench.timing import Measure, Probe, run_once

GIT = ("-c", "user.email=bench@example.com", "-c", "user.name=bench")


def make_repo(root: Path, lessons: int) -> Graph:
    """A committed git repo holding the synthetic tree and its ``lessons``-lesson graph."""
    synthetic = generate(lessons)
    for path in synthetic.paths:
        target = root / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text("x\n")
    write_repo(root, synthetic)
    for args in (["init", "-q"], ["add", "-A"], [*GIT, "commit", "-qm", "bench"]):
        subprocess.run(["git", *args], cwd=root, check=True)
    return Graph("validate", root, lessons, synthetic.paths, "", "", "")


def validate_line(root: Path, lessons: int, runs: int) -> Line:
    """Median of ``runs`` whole ``lessons validate --format json`` processes."""
    graph = make_repo(root, lessons)
    probe = Probe((editable().lessons, "validate", "--format", "json"), root)
    times, peaks = [], []
    for _ in range(max(3, runs // 3)):
        elapsed, peak = run_once(probe, ok_codes=(0, 1))
        times.append(elapsed)
        peaks.append(peak)
    return Line(
        "editable", graph, "lessons validate", Measure(statistics.median(times), max(peaks))
    )
