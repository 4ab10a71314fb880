"""Time ``lessons validate`` on a deterministic 1,000-lesson graph in a temp git repo.

Usage, from the repo root: ``python -m bench.validate_bench [--lessons N] [--runs N]``

The graph and tree come from ``bench.synth`` (same seed, same files). Prints the median
time of ``validate()`` in process (graph load, ``git ls-files``, every check) and of a
whole ``lessons validate`` process, then the finding counts, so a change in behaviour shows
up beside the time.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench.synth import generate, write_repo
from lessons_core.layout import Layout
from lessons_core.validate import validate
from lessons_core.validate.render import summary


def make_repo(root: Path, lessons: int) -> Layout:
    """A committed git repo holding the synthetic tree and its lesson graph."""
    synthetic = generate(lessons)
    for path in synthetic.paths:
        target = root / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text("x\n")
    write_repo(root, synthetic)
    env = ["-c", "user.email=bench@example.com", "-c", "user.name=bench"]
    subprocess.run(["git", "init", "-q"], cwd=root, check=True)
    subprocess.run(["git", "add", "-A"], cwd=root, check=True)
    subprocess.run(["git", *env, "commit", "-qm", "bench"], cwd=root, check=True)
    return Layout(root)


def main() -> None:
    parser = argparse.ArgumentParser(description="Time lessons validate.")
    parser.add_argument("--lessons", type=int, default=1000)
    parser.add_argument("--runs", type=int, default=7)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        layout = make_repo(Path(tmp), args.lessons)
        in_process: list[float] = []
        for _ in range(args.runs):
            start = time.perf_counter()
            report = validate(layout)
            in_process.append(time.perf_counter() - start)
        whole: list[float] = []
        for _ in range(args.runs):
            start = time.perf_counter()
            subprocess.run(
                [sys.executable, "-m", "lessons_cli", "validate", "--format", "json"],
                cwd=layout.root,
                stdout=subprocess.DEVNULL,
                check=False,
            )
            whole.append(time.perf_counter() - start)
    print(
        f"validate, {args.lessons} lessons, {len(generate(args.lessons).paths)} files: "
        f"median {statistics.median(in_process) * 1000:.0f} ms in process, "
        f"{statistics.median(whole) * 1000:.0f} ms as a process ({args.runs} runs)"
    )
    print("findings:", summary(report))


if __name__ == "__main__":
    main()
