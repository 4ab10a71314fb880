"""``lessons review`` on a large diff: 5,020 changed files, 800 added commands, 201
lessons. docs/review.md ("Speed") records the time; this holds the CPU time the review
and its git calls take (wall time on a loaded machine says little) to a bound far above
it, so a change that makes the review quadratic in the files fails here."""

from __future__ import annotations

import json
import resource
import subprocess
from pathlib import Path

from tests.conftest import git
from tests.lesson_graphs import make_project, write_lesson
from tests.review_branch import write

FILES = 5000
SCRIPTS = 20
LESSONS = 200
BOUND_SECONDS = 60  # CPU seconds; docs/review.md has the measured figure


def _large_branch(root: Path) -> None:
    layout = make_project(root, files=())
    body = "".join(f"x{j} = {j}\n" for j in range(40))
    write(root, {f"src/pkg{i % 50}/mod{i}.py": body for i in range(FILES)})
    write(root, {f"scripts/s{i}.sh": "#!/bin/sh\necho hi\n" for i in range(SCRIPTS)})
    for i in range(LESSONS):
        glob = f"src/pkg{i % 50}/*.py" if i % 3 else f"src/pkg{i % 50}/mod{i}.py"
        commands = [f"tool{i} run"] if i % 5 == 0 else []
        write_lesson(layout, f"pkg-l{i}", f"Rule {i} for package {i % 50}.", files=[glob],
                     commands=commands)  # fmt: skip
    write_lesson(layout, "py-all", "Every Python file rule.", files=["**/*.py"])
    git(root, "add", "-A")
    git(root, "commit", "-qm", "base")
    git(root, "checkout", "-qb", "feature")
    changed = body.replace("x10 = 10\n", "x10 = 10\nadded = 1\n").replace(
        "x30 = 30\n", "x30 = 30\nmore = 2\n"
    )
    write(root, {f"src/pkg{i % 50}/mod{i}.py": changed for i in range(FILES)})
    added = "".join(f"tool{k} run --x\n" for k in range(0, LESSONS, 5))
    write(root, {f"scripts/s{i}.sh": "#!/bin/sh\necho hi\n" + added for i in range(SCRIPTS)})
    git(root, "add", "-A")
    git(root, "commit", "-qm", "feature")


def test_a_diff_of_five_thousand_files(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    _large_branch(root)
    lessons = str(Path(__file__).parents[1] / ".venv/bin/lessons")
    before = _children_cpu()
    result = subprocess.run(
        [lessons, "review", "main..feature", "--json"],
        cwd=root, capture_output=True, text=True, timeout=600, check=False,
    )  # fmt: skip
    seconds = _children_cpu() - before
    assert result.returncode == 0, result.stderr
    code = json.loads(result.stdout)["code"]
    assert len(code["files"]) == FILES + SCRIPTS
    assert len(code["commands"]) == SCRIPTS * LESSONS // 5
    assert len(code["lessons"]) == LESSONS + 1
    broad = code["lessons"][-1]
    assert (broad["id"], broad["broad"], len(broad["matches"])) == ("py-all", True, FILES)
    print(f"lessons review on {FILES + SCRIPTS} changed files: {seconds:.1f} s of CPU")
    assert seconds < BOUND_SECONDS


def _children_cpu() -> float:
    """User and system time of the finished child processes, their own children (git)
    included."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime
