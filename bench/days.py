"""A replay of days of work on the corpus repository with a dozen lessons of its own.

The corpus (``bench/corpus/agentsmesh``) holds that repository's file list, not its commit
history, so the days are synthesised from the file list, seeded: each day is one session
(a new ``session_id``) that starts, gets a prompt, and for two to four files of one folder
reads nearby files, reads the file and edits it, then runs the folder's tests (or the whole
suite), now and then lint or the type check, and commits. The lessons are twelve rules
written for that repository's files and commands (``days-lessons.json`` beside the corpus;
the project's own text, not the repository's), in a store of their own: what a small
project's store costs day after day, against the 576-lesson corpus's one long session
(``bench.replay``).
"""

from __future__ import annotations

import random
import subprocess
from pathlib import Path
from typing import Any

import orjson

from bench.graphs import Graph, _finish
from bench.replay import SHELL_TOOL, Replay, _folder, _tool, edit_with_reads, run_sessions
from lessons_core.jsonio import dumps
from lessons_core.store.layout import Layout

DAYS = 20
LESSONS = "days-lessons.json"
PROMPT = "carry on with the {area} work from yesterday and commit it when the tests pass"


def days_graph(root: Path, corpus: Path, lessons: Path) -> Graph:
    """The corpus repository's files with the dozen lessons of ``LESSONS``, in a store
    made with the ``lessons`` console script ``lessons``."""
    root.mkdir(parents=True)
    subprocess.run(["git", "init", "-q"], cwd=root, check=True)
    subprocess.run([str(lessons), "init"], cwd=root, check=True, capture_output=True)
    layout = Layout(root)
    for lesson in orjson.loads((corpus / LESSONS).read_bytes()):
        data = {"created": "2026-11-01", "evidence": [], "status": "active", **lesson}
        (layout.lessons_dir / f"{lesson['id']}.json").write_bytes(dumps(data))
    paths = tuple((corpus / "paths.txt").read_text().split())
    return _finish("days", root, paths, PROMPT.format(area="lessons"))


def day_events(paths: tuple[str, ...], days: int = DAYS, seed: int = 7) -> list[dict[str, Any]]:
    """Every day's hook events, each day its own session."""
    rng = random.Random(seed)
    folders: dict[str, list[str]] = {}
    for path in paths:
        folders.setdefault(_folder(path), []).append(path)
    busy = [folder for folder, files in folders.items() if len(files) >= 4]
    tests = [p for p in paths if ".test." in p]
    out: list[dict[str, Any]] = []
    for day in range(days):
        folder = rng.choice(busy)
        session: list[dict[str, Any]] = [
            {"hook_event_name": "SessionStart", "source": "startup"},
            {"hook_event_name": "UserPromptSubmit", "prompt": PROMPT.format(area=folder)},
        ]
        for path in rng.sample(folders[folder], rng.choice((2, 3, 4))):
            session += edit_with_reads(rng, path, folders[folder])
        near = [t for t in tests if t.split("/")[-1].split(".")[0] in folder] or tests
        session.append(_tool(SHELL_TOOL, command=f"pnpm vitest run {rng.choice(near)}"))
        extra = rng.choice(("pnpm test", "pnpm lint", "pnpm typecheck", "git status"))
        session.append(_tool(SHELL_TOOL, command=extra))
        session.append(_tool(SHELL_TOOL, command=f"git add -A && git commit -m 'day {day}'"))
        out += [{**event, "session_id": f"day-{day}"} for event in session]
    return out


def replay_days(graph: Graph, days: int = DAYS) -> Replay:
    """The days through the hook, counted as ``bench.replay`` counts one session."""
    return run_sessions(graph, day_events(graph.paths, days))
