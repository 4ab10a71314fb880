"""The drift check (validate L304) on a real git repo of 10,000 commits.

The history is written in one ``git fast-import`` stream (seconds, where 10,000
``git commit`` runs would take minutes): each commit changes one of a few hundred files,
the first also adds ``.lessons/`` with lessons whose file triggers cover some of them.
Timed as whole processes against ``python -c pass`` of the same interpreter, interleaved:
the check alone (``load_context`` and ``drift.check``, what it needs), and all of
``lessons validate``, as a pre-commit hook runs it.
"""

from __future__ import annotations

import statistics
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path

from bench.installs import editable
from bench.timing import Measure, Probe, measure_interleaved
from lessons_core.jsonio import dumps
from lessons_core.store.config import Config
from lessons_core.store.layout import Layout
from lessons_core.validate import drift
from lessons_core.validate.runner import load_context

PACKAGES = 40
MODULES = 10  # files a package: 400 in all
START = 1_735_689_600  # 2025-01-01, after every lesson's created day
DRIFT_CHECK = (
    "import sys\n"
    "from pathlib import Path\n"
    "from lessons_core.store.layout import Layout\n"
    "from lessons_core.validate import drift\n"
    "from lessons_core.validate.runner import load_context\n"
    "found = list(drift.check(load_context(Layout(Path.cwd()))))\n"
    "sys.exit(0 if len(found) == int(sys.argv[1]) else 9)\n"
)


@dataclass(frozen=True)
class DriftCost:
    commits: int
    window: int
    lessons: int
    reported: int
    in_process_ms: float  # the check alone, what it adds to a validate already running
    check: Measure
    validate: Measure
    bare: Measure

    def summary(self) -> str:
        ratio = self.check.median_ms / self.bare.median_ms
        whole = self.validate.median_ms / self.bare.median_ms
        return (
            f"drift check (L304), {self.commits} commits, window {self.window}, "
            f"{self.lessons} lessons ({self.reported} reported): {self.in_process_ms:.0f} ms "
            f"in process; {self.check.median_ms:.0f} ms median as a process, "
            f"{ratio:.2f}x python -c pass "
            f"({self.bare.median_ms:.0f} ms); all of lessons validate "
            f"{self.validate.median_ms:.0f} ms, {whole:.2f}x"
        )


def history_repo(root: Path, commits: int, lessons: int) -> Path:
    """A git repo at ``root`` with ``commits`` commits and ``lessons`` lessons."""
    root.mkdir(parents=True)
    subprocess.run(["git", "init", "-q", "-b", "main"], cwd=root, check=True)
    stream = bytearray()
    for n in range(commits):
        files: dict[str, bytes] = {}
        if n == 0:
            files = _first_tree(lessons)
        else:
            files[_module(n)] = f"value = {n}\n".encode()
        stamp = START + n * 600
        message = f"change {n}\n".encode()
        stream += b"commit refs/heads/main\n"
        stream += f"committer bench <bench@example.com> {stamp} +0000\n".encode()
        stream += b"data %d\n%s" % (len(message), message)
        for path, content in files.items():
            stream += f"M 100644 inline {path}\ndata {len(content)}\n".encode() + content + b"\n"
    subprocess.run(["git", "fast-import", "--quiet"], cwd=root, input=bytes(stream), check=True)
    subprocess.run(["git", "reset", "-q", "--hard", "main"], cwd=root, check=True)
    return root


def _module(n: int) -> str:
    return f"src/pkg{n % PACKAGES}/mod{(n // PACKAGES) % MODULES}.py"


def _first_tree(lessons: int) -> dict[str, bytes]:
    files = {_module(n): b"value = 0\n" for n in range(PACKAGES * MODULES)}
    files[".lessons/config.json"] = dumps(Config().to_dict())
    files[".lessons/.gitignore"] = b"local/\n"
    for n in range(lessons):
        lesson_id = f"pkg-rule-{n}"
        # Half the lessons name a package, half one exact file: both kinds of trigger.
        glob = f"src/pkg{n % PACKAGES}/**" if n % 2 else _module(n)
        files[f".lessons/lessons/{lesson_id}.json"] = dumps(
            {
                "id": lesson_id,
                "rule": f"Keep the public names of package {n} stable across releases.",
                "topics": ["pkg"],
                "triggers": {"files": [glob], "commands": [], "keywords": []},
                "evidence": [],
                "status": "active",
                "created": "2024-06-01",
            }
        )
    return files


def drift_cost(root: Path, runs: int, commits: int = 10_000, lessons: int = 40) -> DriftCost:
    """Build the history, count what the check reports there (each timed run must report
    as many, or it exits 9 and the bench stops), then time the processes."""
    repo = history_repo(root, commits, lessons)
    context = load_context(Layout(repo))
    reported = len(list(drift.check(context)))
    times = []
    for _ in range(runs):
        started = time.perf_counter()
        list(drift.check(context))
        times.append((time.perf_counter() - started) * 1000)
    install = editable()
    probes = [
        Probe((install.python, "-c", "pass"), repo),
        Probe((install.python, "-c", DRIFT_CHECK, str(reported)), repo),
        Probe((install.lessons, "validate"), repo),
    ]
    bare, check, validate = measure_interleaved(probes, runs)
    window = min(commits, Config().drift_max_commits)
    return DriftCost(
        commits, window, lessons, reported, statistics.median(times), check, validate, bare
    )
