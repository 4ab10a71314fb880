"""Whole-process timing: medians over repeated runs, and each run's peak memory.

Each run is a fresh process, as a hook is; ``os.wait4`` gives that child's own peak RSS
(runs start from the lean ``bench/spawn.py``, see there).
Runs of the baseline and the measured command are interleaved so that machine noise hits
both alike, and results are reported as ratios to the baseline.
"""

from __future__ import annotations

import json
import statistics
import subprocess
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class Measure:
    """Median wall time (ms) and the largest peak RSS (MiB) over the runs."""

    median_ms: float
    peak_mib: float


@dataclass(frozen=True)
class Probe:
    """One command to time: argv, where to run it, what to feed it on stdin.

    Every ``RUN`` in ``stdin`` or ``argv`` becomes the run's number, so each run can be a
    new session.
    """

    argv: tuple[str, ...]
    cwd: Path
    stdin: bytes = b""
    env: tuple[tuple[str, str], ...] = ()

    def input_for(self, run: int) -> bytes:
        return self.stdin.replace(RUN, str(run).encode())

    def argv_for(self, run: int) -> tuple[str, ...]:
        return tuple(arg.replace(RUN.decode(), str(run)) for arg in self.argv)


RUN = b"@RUN@"


def run_once(probe: Probe, run: int = 0, ok_codes: tuple[int, ...] = (0,)) -> tuple[float, float]:
    """Wall time in ms and peak RSS in MiB of one run; fails loudly on another exit code."""
    return _spawn([(probe, run, ok_codes)])[0]


def measure_interleaved(probes: Sequence[Probe], runs: int) -> list[Measure]:
    """Run every probe ``runs`` times, round-robin, after one warm-up each."""
    _spawn([(probe, -1, (0,)) for probe in probes])
    order = [(probe, run, (0,)) for run in range(runs) for probe in probes]
    results = _spawn(order)
    times: list[list[float]] = [[] for _ in probes]
    peaks: list[float] = [0.0 for _ in probes]
    for number, (elapsed, peak) in enumerate(results):
        times[number % len(probes)].append(elapsed)
        peaks[number % len(probes)] = max(peaks[number % len(probes)], peak)
    return [Measure(statistics.median(t), p) for t, p in zip(times, peaks, strict=True)]


def _spawn(runs: Sequence[tuple[Probe, int, tuple[int, ...]]]) -> list[tuple[float, float]]:
    """Run ``runs`` in order from ``bench/spawn.py`` (see there why a separate process)."""
    items = [
        [
            n,
            list(p.argv_for(run)),
            str(p.cwd),
            p.input_for(run).decode("utf-8", "surrogateescape"),
            dict(p.env),
            list(codes),
        ]
        for n, (p, run, codes) in enumerate(runs)
    ]
    done = subprocess.run(
        [sys.executable, "-S", str(Path(__file__).with_name("spawn.py"))],
        input=json.dumps(items).encode(),
        capture_output=True,
        check=False,
    )
    if done.returncode != 0:
        raise RuntimeError(done.stderr.decode(errors="replace").strip())
    return [(float(elapsed), float(peak)) for elapsed, peak in json.loads(done.stdout)]
