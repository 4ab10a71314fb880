"""A replay of this repository's own commit history with its own lessons.

``bench/history.json`` (written by ``python -m bench.history_snapshot``, see there) holds
the history up to a fixed commit as work sessions: each merge on the first-parent line
brings one session (the commits of its second parent not reachable from its first), and
the commits made on the first-parent line itself are grouped into sessions of at most six.
Each session also holds the store it started with: the lesson files and config under
``.lessons/`` of the commit its first commit was made on.

Each session is its own ``session_id``. Before it, the store is rebuilt with those lesson
files and that config (the index is built as the first hook would), and the tree on disk
holds, as empty files, every file the session's start has or its commits add. The session
starts, gets its first commit's subject as the prompt (real text), and for each commit:
for each file it changed, reads one to three files of the same folder and the file, then
edits it (``Edit``; ``Write`` without reading it first for a file the commit adds); a
deleted file is ``git rm``, a renamed one ``git mv`` (then edited unless it moved
unchanged). Then the tests of the commit run: ``pytest`` on the test files it changed, or
on the test file named after a changed module; ruff on about a third of the commits that
change Python and mypy on a fifth (seeded per session), ``git add`` of the changed paths
and ``git commit -m`` with the commit's real subject. A session is compacted (``PreCompact``
then a ``SessionStart`` of source ``compact``) each time it has made ``COMPACT_AT`` more
tool calls, as ``bench.replay`` compacts its one long session.
"""

from __future__ import annotations

import random
import shlex
import shutil
import subprocess
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any

import orjson

from bench.graphs import Graph
from bench.history_snapshot import SNAPSHOT
from bench.replay import (
    COMPACT_AT,
    SHELL_TOOL,
    Replay,
    _folder,
    _tool,
    combined,
    edit_with_reads,
    run_sessions,
)
from lessons_core.index.cache import load_index
from lessons_core.store.launcher import write_launcher
from lessons_core.store.layout import Layout

HISTORY_NAME = "this repository's history, its own lessons"  # on the benchmark's line
PYTEST = ".venv/bin/pytest -q"
RUFF = ".venv/bin/ruff check lessons_core lessons_cli bench tests"
MYPY = ".venv/bin/mypy"
TEST_DIR = "tests/"
# What a commit runs before it is made: (seeded random, paths it touched, the tree) -> commands.
Checks = Callable[[random.Random, list[str], set[str]], list[str]]


def load_snapshot(path: Path = SNAPSHOT) -> dict[str, Any]:
    data: dict[str, Any] = orjson.loads(path.read_bytes())
    return data


def history_graph(root: Path, lessons: Path, data: dict[str, Any]) -> Graph:
    """A git repository at ``root`` with a store made by the ``lessons`` console script
    ``lessons``, to hold each session's files and lessons in turn."""
    root.mkdir(parents=True)
    subprocess.run(["git", "init", "-q"], cwd=root, check=True)
    subprocess.run([str(lessons), "init"], cwd=root, check=True, capture_output=True)
    write_launcher(Layout(root))
    paths = {
        change[-1]
        for session in data["sessions"]
        for commit in session["commits"]
        for change in commit["changes"]
    }
    last = len(data["sessions"][-1]["lessons"]) if data["sessions"] else 0
    return Graph(HISTORY_NAME, root, last, tuple(sorted(paths)), "", "", "")


def replay_history(graph: Graph, data: dict[str, Any], sessions: int | None = None) -> Replay:
    """The first ``sessions`` sessions (all by default) through the hook, each with its own
    store, counted as ``bench.replay`` counts one session."""
    tree: set[str] = set()
    parts = []
    initial = Layout(graph.root).config_path.read_text(encoding="utf-8")  # lessons init's
    for number, session in enumerate(data["sessions"][:sessions]):
        set_store(graph.root, data, session, initial)
        parts.append(replay_session(graph, tree, partial(session_events, number, session)))
    return combined(parts)


def replay_session(
    graph: Graph, tree: set[str], events_of: Callable[[set[str]], list[dict[str, Any]]]
) -> Replay:
    """One session through the hook: ``events_of(tree)`` gives its events and moves
    ``tree`` (the files before it) past it (``session_events``). The files it adds are on
    disk, as empty files, while it runs; those it deletes are gone after it."""
    before = set(tree)
    events = events_of(tree)
    for path in sorted(tree - before):
        target = graph.root / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.touch()
    replayed = run_sessions(graph, events)
    for path in before - tree:
        (graph.root / path).unlink(missing_ok=True)
    return replayed


def set_store(root: Path, data: dict[str, Any], session: dict[str, Any], initial: str) -> None:
    """Rebuild the store of ``root`` as ``session`` started with it (the ``initial``
    config where its commit had none), and build its index as the first hook would."""
    layout = Layout(root)
    shutil.rmtree(layout.lessons_dir)
    layout.lessons_dir.mkdir()
    for number in session["lessons"]:
        name, text = data["lessons"][number]
        (layout.lessons_dir / name).write_text(text, encoding="utf-8")
    config = initial if session["config"] is None else data["lessons"][session["config"]][1]
    layout.config_path.write_text(config, encoding="utf-8")
    load_index(layout)


def session_events(
    number: int,
    session: dict[str, Any],
    tree: set[str],
    run_checks: Checks | None = None,
    name: str = "history",
) -> list[dict[str, Any]]:
    """The hook events of one session; ``tree`` (the files before it) is left holding the
    files after it. ``run_checks`` says what a commit runs before it is made (``checks``
    by default), ``name`` starts the session's id."""
    rng = random.Random(number)
    commits = session["commits"]
    out: list[dict[str, Any]] = [
        {"hook_event_name": "SessionStart", "source": "startup"},
        {"hook_event_name": "UserPromptSubmit", "prompt": commits[0]["subject"]},
    ]
    since_start = 0
    for commit in commits:
        for step in commit_steps(rng, commit, tree, run_checks or checks):
            if since_start >= COMPACT_AT:
                out.append({"hook_event_name": "PreCompact", "trigger": "auto"})
                out.append({"hook_event_name": "SessionStart", "source": "compact"})
                since_start = 0
            out += step
            since_start += len(step)
    return [{**event, "session_id": f"{name}-{number}"} for event in out]


def commit_steps(
    rng: random.Random, commit: dict[str, Any], tree: set[str], run_checks: Checks
) -> list[list[dict[str, Any]]]:
    """One commit as the agent makes it, in steps (an edit with its reads, a command),
    changing ``tree`` as the commit did."""
    steps: list[list[dict[str, Any]]] = []
    touched: list[str] = []
    for status, *paths in commit["changes"]:
        path = paths[-1]
        if status.startswith("D"):
            steps.append([_tool(SHELL_TOOL, command=f"git rm -q {shlex.quote(path)}")])
            tree.discard(path)
            continue
        if status.startswith("R"):
            move = f"git mv {shlex.quote(paths[0])} {shlex.quote(path)}"
            steps.append([_tool(SHELL_TOOL, command=move)])
            tree.discard(paths[0])
        added = status.startswith("A")
        if status != "R100":
            nearby = sorted(p for p in tree if _folder(p) == _folder(path)) or [path]
            tool = "Write" if added else "Edit"
            steps.append(edit_with_reads(rng, path, nearby, tool, new=added))
        tree.add(path)
        touched.append(path)
    steps += [[_tool(SHELL_TOOL, command=command)] for command in run_checks(rng, touched, tree)]
    if touched:
        add = "git add " + " ".join(shlex.quote(p) for p in touched)
        steps.append([_tool(SHELL_TOOL, command=add)])
    commit_line = f"git commit -q -m {shlex.quote(commit['subject'])}"
    steps.append([_tool(SHELL_TOOL, command=commit_line)])
    return steps


def checks(rng: random.Random, touched: list[str], tree: set[str]) -> list[str]:
    """The commands run before the commit: the tests of the changed files, and now and
    then lint and the type check when Python changed."""
    python = [p for p in touched if p.endswith(".py")]
    tests = [
        p for p in python if p.startswith(TEST_DIR) and p.rsplit("/", 1)[-1].startswith("test_")
    ]
    if not tests:
        named = (f"{TEST_DIR}test_{p.rsplit('/', 1)[-1]}" for p in python)
        tests = sorted({t for t in named if t in tree})
    return check_commands(rng, f"{PYTEST} {' '.join(tests)}" if tests else "", bool(python))


def check_commands(
    rng: random.Random, test: str, python: bool, lint: str = RUFF, typecheck: str = MYPY
) -> list[str]:
    """The ``test`` command (if any), then ``lint`` on about a third and ``typecheck`` on
    a fifth of the commits that change Python, seeded."""
    commands = [test] if test else []
    if python and rng.random() < 0.3:
        commands.append(lint)
    if python and rng.random() < 0.2:
        commands.append(typecheck)
    return commands
