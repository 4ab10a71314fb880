"""The benchmark runs end to end in its quickest mode, so it cannot rot (nothing is timed)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.slow
def test_quick_benchmark_prints_every_row() -> None:
    """``python -m bench --quick`` on small graphs builds them, checks that delivering rows
    deliver and silent rows stay silent, and prints the table with every row."""
    small = ["--sizes", "300,600", "--validate-lessons", "60", "--replay-calls", "200"]
    done = subprocess.run(
        [sys.executable, "-m", "bench", "--quick", *small],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr
    assert done.stderr == ""
    lines = done.stdout.splitlines()
    assert lines[1].startswith("machine: ")
    assert "regular ms" in lines[2]
    assert "editable ms" in lines[2]
    for graph in ("corpus", "300", "600"):
        for kind in (
            "edit",
            "prompt",
            "silent: nothing applies",
            "silent: all shown",
            "edit after a lesson changed",
        ):
            assert any(line.split()[0] == graph and f" {kind} " in line for line in lines), (
                graph,
                kind,
            )
    assert any(line.startswith("token replay (corpus): ") for line in lines)
    assert any(line.split()[:4] == ["validate", "60", "lessons", "validate"] for line in lines)
