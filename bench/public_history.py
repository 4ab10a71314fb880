"""A replay of a public repository's real commit history with the lessons its own
instruction files give: pydantic/pydantic-ai, a session a day.

``bench/pydantic-ai/history.json`` holds the last ``COMMITS`` commits of that
repository's first-parent line up to ``HEAD`` (each a squashed pull request): per commit,
its day (UTC), subject and changed paths with their status (renames detected). It is written
by ``python -m bench.public_history GIT_DIR`` from a clone's git directory and read only
from the file after that, so the figures do not move. The repository's MIT licence is
``bench/pydantic-ai/LICENSE``; NOTICE.md beside it says what the file holds.

The project is rebuilt as ``lessons eval --import`` rebuilds it
(``lessons_core.eval.adoption_repo.materialise``: its file list as empty files, its
instruction, CI and task files with their text, from ``tests/fixtures/adoption``), and its
lessons are what ``lessons import instructions`` makes of those files
(``lessons_core.eval.adoption.run_imports``). The commits of each calendar day are one
session (its own ``session_id``), replayed as ``bench.history`` replays a session: a read
before every edit and one to three reads nearby, the commit's tests
(``uv run pytest`` on the test files it changed, or on the test files named after a
changed module), now and then ``make lint`` and ``make typecheck``, ``git add`` and
``git commit`` with the commit's real subject; the first commit's subject is the prompt.
"""

from __future__ import annotations

import argparse
import os
import random
import subprocess
from collections.abc import Iterable
from functools import partial
from itertools import groupby
from pathlib import Path
from typing import Any

import orjson

from bench.graphs import Graph
from bench.history import check_commands, replay_session, session_events
from bench.replay import Replay, combined
from lessons_core.eval.adoption import run_imports
from lessons_core.eval.adoption_labels import read_index
from lessons_core.eval.adoption_repo import materialise
from lessons_core.index.cache import load_index
from lessons_core.store.launcher import write_launcher
from lessons_core.store.layout import Layout

PUBLIC_NAME = "pydantic/pydantic-ai's history, lessons from its instruction files"
REPO = "pydantic/pydantic-ai"
HEAD = "4fda38988f2939fa6ea9cdefcf120693e10ef491"
COMMITS = 300
HERE = Path(__file__).resolve().parent
SNAPSHOT = HERE / "pydantic-ai" / "history.json"
ADOPTION = HERE.parent / "tests" / "fixtures" / "adoption" / "index.json"
PYTEST = "uv run pytest"
LINT = "make lint"
TYPECHECK = "make typecheck"


def extract(git_dir: Path, head: str = HEAD, count: int = COMMITS) -> dict[str, Any]:
    """The last ``count`` first-parent commits up to ``head``, oldest first."""
    log = ("log", "--first-parent", f"-{count}", "-M", "--name-status")
    shape = ("--date=format-local:%Y-%m-%d", "--format=@@%cd%x09%s")
    out = subprocess.run(
        ["git", "--git-dir", str(git_dir), *log, *shape, head],
        env={**os.environ, "TZ": "UTC"},  # the day a commit landed, in UTC
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    commits: list[dict[str, Any]] = []
    for line in out.splitlines():
        if line.startswith("@@"):
            date, subject = line[2:].split("\t", 1)
            commits.append({"date": date, "subject": subject, "changes": []})
        elif line.strip():
            commits[-1]["changes"].append(line.split("\t"))
    return {"repo": REPO, "head": head, "commits": commits[::-1]}


def load_public(path: Path = SNAPSHOT) -> dict[str, Any]:
    data: dict[str, Any] = orjson.loads(path.read_bytes())
    return data


def public_graph(root: Path, lessons: Path, adoption: Path = ADOPTION) -> Graph:
    """The project rebuilt at ``root`` with its imported lessons, in a store made with
    the ``lessons`` console script ``lessons``."""
    project = next(p for p in read_index(adoption) if p.repo == REPO)
    materialise(project, root)
    subprocess.run([str(lessons), "init"], cwd=root, check=True, capture_output=True)
    run_imports(root)
    layout = Layout(root)
    write_launcher(layout)
    load_index(layout)  # builds the cache, as the first hook would
    count = sum(1 for _ in layout.lessons_dir.glob("*.json"))
    tracked = subprocess.run(
        ["git", "ls-files"], cwd=root, check=True, capture_output=True, text=True
    ).stdout.split()
    return Graph(PUBLIC_NAME, root, count, tuple(tracked), "", "", "")


def days(data: dict[str, Any]) -> list[list[dict[str, Any]]]:
    """The commits of each day, in order."""
    return [list(day) for _date, day in groupby(data["commits"], key=lambda c: c["date"])]


def replay_public(graph: Graph, data: dict[str, Any], sessions: int | None = None) -> Replay:
    """The first ``sessions`` days (all by default) through the hook, a session each."""
    tree = set(graph.paths)
    parts = []
    for number, commits in enumerate(days(data)[:sessions]):
        session = {"commits": commits}
        events = partial(session_events, number, session, run_checks=checks, name="day")
        parts.append(replay_session(graph, tree, events))
    return combined(parts)


def checks(rng: random.Random, touched: list[str], tree: set[str]) -> list[str]:
    """The commands run before a commit: ``uv run pytest`` on the test files it changed,
    or on those named after a changed module (``tests/**/test_NAME.py``), and now and then
    lint and the type check when Python changed."""
    python = [p for p in touched if p.endswith(".py")]
    tests = [p for p in python if _is_test(p)]
    if not tests:
        names = {f"test_{p.rsplit('/', 1)[-1]}" for p in python}
        tests = sorted(p for p in tree if _is_test(p) and p.rsplit("/", 1)[-1] in names)[:3]
    test = f"{PYTEST} {' '.join(tests)}" if tests else ""
    return check_commands(rng, test, bool(python), LINT, TYPECHECK)


def _is_test(path: str) -> bool:
    return path.startswith("tests/") and path.rsplit("/", 1)[-1].startswith("test_")


def _write(data: dict[str, Any], path: Path) -> None:
    """One commit a line: small, and a new snapshot's diff reads commit by commit."""
    head = {key: value for key, value in data.items() if key != "commits"}
    lines = [orjson.dumps(commit).decode() for commit in data["commits"]]
    text = orjson.dumps(head).decode()[:-1] + ', "commits": [\n' + ",\n".join(lines) + "\n]}\n"
    path.write_text(text, encoding="utf-8")


def main(argv: Iterable[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description="write bench/pydantic-ai/history.json")
    parser.add_argument("git_dir", type=Path, help="a clone's git directory")
    args = parser.parse_args(None if argv is None else list(argv))
    _write(extract(args.git_dir), SNAPSHOT)


if __name__ == "__main__":
    main()
