"""Whole-process timing: medians over repeated runs, and each run's peak memory.

Each run is a fresh process, as a hook is; ``os.wait4`` gives that child's own peak RSS.
Runs of the baseline and the measured command are interleaved so that machine noise hits
both alike, and results are reported as ratios to the baseline.
"""

from __future__ import annotations

import os
import statistics
import subprocess
import time
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
    """One command to time: argv, where to run it, what to feed it on stdin."""

    argv: tuple[str, ...]
    cwd: Path
    stdin: bytes = b""
    env: tuple[tuple[str, str], ...] = ()


def run_once(probe: Probe) -> tuple[float, float]:
    """Wall time in ms and peak RSS in MiB of one run; fails loudly on a non-zero exit."""
    env = dict(os.environ, **dict(probe.env))
    start = time.perf_counter()
    proc = subprocess.Popen(
        probe.argv,
        cwd=probe.cwd,
        env=env,
        stdin=subprocess.PIPE,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    assert proc.stdin is not None
    proc.stdin.write(probe.stdin)
    proc.stdin.close()
    _, status, usage = os.wait4(proc.pid, 0)
    elapsed = (time.perf_counter() - start) * 1000
    proc.returncode = os.waitstatus_to_exitcode(status)
    stderr = proc.stderr.read() if proc.stderr else b""
    if proc.returncode != 0:
        raise RuntimeError(f"{' '.join(probe.argv)} exited {proc.returncode}: {stderr!r}")
    return elapsed, usage.ru_maxrss / 1024


def measure_interleaved(probes: Sequence[Probe], runs: int) -> list[Measure]:
    """Run every probe ``runs`` times, round-robin, after one warm-up each."""
    for probe in probes:
        run_once(probe)
    times: list[list[float]] = [[] for _ in probes]
    peaks: list[float] = [0.0 for _ in probes]
    for _ in range(runs):
        for index, probe in enumerate(probes):
            elapsed, peak = run_once(probe)
            times[index].append(elapsed)
            peaks[index] = max(peaks[index], peak)
    return [Measure(statistics.median(t), p) for t, p in zip(times, peaks, strict=True)]
