"""``python -m bench.history_snapshot``: write ``bench/history.json``, this repository's own
commit history as work sessions with the lessons each session started with, for the
history replay (``bench.history``). Run by hand, after moving ``STOP`` to the commit the
snapshot should end at; the benchmark only reads the file, so its figures do not move as
the history grows.

What it reads is this checkout's own git history, up to the fixed commit ``STOP`` and no
further: ``git rev-list`` for the shape of the history, ``git log --name-status`` for what
each commit changed (renames detected), ``git ls-tree`` and ``git cat-file`` for the
lesson files and config under ``.lessons/`` as they stood.

A session is a line of work done apart. The first-parent line of ``STOP`` is walked from
the root commit:

- each merge on it brings the commits reachable from its second parent and not from its
  first (a branch merged, or the commits a branch merged in from main meanwhile), made
  without merges; they are one session, in the order they were made;
- the commits made on the first-parent line itself are grouped in order into sessions of
  at most ``MAX_RUN`` commits, and a merge ends a group.

Every commit up to ``STOP`` but the merges is in exactly one session. The commit dates of
this history are compressed into a few days, so they do not delimit sessions. A session's
store is the lesson files and config of the commit its first commit was made on (its first
parent): the lessons it started with, superseded and deprecated ones too, as the store
held them (recall reads only the active ones). Each distinct lesson file is stored once and the
sessions name them by number.
"""

from __future__ import annotations

import argparse
import json
import subprocess
from pathlib import Path
from typing import Any

# The last commit the snapshot covers, so the replay's figures are fixed.
STOP = "f72e1f8c4f45c97d2c3d3d171f816c736c9ca4ae"
MAX_RUN = 6  # commits of a session made on the first-parent line
SNAPSHOT = Path(__file__).resolve().parent / "history.json"
LESSONS_DIR = ".lessons/lessons"
CONFIG = ".lessons/config.json"


def snapshot(repo: Path, stop: str = STOP) -> dict[str, Any]:
    """The sessions of ``repo``'s history up to ``stop``, with their commits and stores."""
    changes = _changes(repo, stop)
    lessons: dict[tuple[str, str], int] = {}  # (file name, blob) -> number
    texts: list[list[str]] = []
    sessions: list[dict[str, Any]] = []
    for kind, commits in _sessions(repo, stop):
        parents = _git(repo, "rev-list", "--parents", "-n", "1", commits[0]).split()[1:]
        store = _store(repo, parents[0], lessons, texts) if parents else ([], None)
        sessions.append(
            {
                "kind": kind,
                "config": store[1],
                "lessons": store[0],
                "commits": [changes[commit] for commit in commits],
            }
        )
    return {"stop": stop, "max_run": MAX_RUN, "lessons": texts, "sessions": sessions}


def _sessions(repo: Path, stop: str) -> list[tuple[str, list[str]]]:
    """Each session's kind ("branch" or "main") and its commits, oldest first."""
    found: list[tuple[str, list[str]]] = []
    run: list[str] = []
    for line in _git(
        repo, "rev-list", "--first-parent", "--reverse", "--parents", stop
    ).splitlines():
        commit, *parents = line.split()
        if len(parents) < 2:
            run.append(commit)
            if len(run) == MAX_RUN:
                found.append(("main", run))
                run = []
            continue
        if run:
            found.append(("main", run))
            run = []
        side = _git(
            repo,
            "rev-list",
            "--reverse",
            "--topo-order",
            "--no-merges",
            f"{parents[0]}..{parents[1]}",
        )
        if side.split():
            found.append(("branch", side.split()))
    if run:
        found.append(("main", run))
    return found


def _changes(repo: Path, stop: str) -> dict[str, dict[str, Any]]:
    """Each commit's subject and what it changed: ``[status, path]``, or for a rename
    ``[R<similarity>, old path, new path]``, as ``git log --name-status`` says."""
    out = _git(repo, "log", "--no-merges", "-M", "--name-status", "--format=%x00%H%x00%s", stop)
    found: dict[str, dict[str, Any]] = {}
    parts = out.split("\x00")[1:]
    for commit, body in zip(parts[0::2], parts[1::2], strict=True):
        subject, _newline, rest = body.partition("\n")
        files = [line.split("\t") for line in rest.splitlines() if line]
        found[commit] = {"subject": subject, "changes": files}
    return found


def _store(
    repo: Path, commit: str, lessons: dict[tuple[str, str], int], texts: list[list[str]]
) -> tuple[list[int], int | None]:
    """The numbers of the lesson files at ``commit`` and of its config (None when it has
    none), adding the files not seen before to ``texts``."""
    numbers = []
    for line in _git(repo, "ls-tree", commit, f"{LESSONS_DIR}/").splitlines():
        meta, path = line.split("\t", 1)
        blob = meta.split()[2]
        name = path.rsplit("/", 1)[1]
        if (name, blob) not in lessons:
            lessons[name, blob] = len(texts)
            texts.append([name, _git(repo, "cat-file", "blob", blob)])
        numbers.append(lessons[name, blob])
    listed = _git(repo, "ls-tree", commit, CONFIG).split()
    if not listed:
        return numbers, None
    if ("", listed[2]) not in lessons:
        lessons["", listed[2]] = len(texts)
        texts.append([CONFIG.rsplit("/", 1)[1], _git(repo, "cat-file", "blob", listed[2])])
    return numbers, lessons["", listed[2]]


def _git(repo: Path, *args: str) -> str:
    # The same output whatever the user's git config says about paths, roots and renames.
    fixed = ["-c", "core.quotePath=false", "-c", "log.showRoot=true", "-c", "diff.renameLimit=0"]
    return subprocess.run(
        ["git", *fixed, *args], cwd=repo, check=True, capture_output=True, text=True
    ).stdout


def render(data: dict[str, Any]) -> str:
    """The snapshot as committed: compact JSON, a line for each lesson file and commit."""
    dump = json.dumps  # keys in the order written, so the file reads top down
    lines = [f'{{"stop":{dump(data["stop"])},"max_run":{data["max_run"]},"lessons":[']
    lines += [dump(text, ensure_ascii=False) + "," for text in data["lessons"]]
    lines[-1] = lines[-1].rstrip(",")
    lines.append('],"sessions":[')
    for number, session in enumerate(data["sessions"]):
        head = {key: session[key] for key in ("kind", "config", "lessons")}
        lines.append(dump(head, ensure_ascii=False, separators=(",", ":"))[:-1] + ',"commits":[')
        lines += [
            dump(commit, ensure_ascii=False, separators=(",", ":")) + ","
            for commit in session["commits"]
        ]
        lines[-1] = lines[-1].rstrip(",")
        lines.append("]}" + ("," if number < len(data["sessions"]) - 1 else ""))
    lines.append("]}")
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.history_snapshot", description=__doc__)
    parser.add_argument("--repo", type=Path, default=SNAPSHOT.parents[1], help="the checkout")
    parser.add_argument("--out", type=Path, default=SNAPSHOT, help=f"default {SNAPSHOT.name}")
    args = parser.parse_args(argv)
    args.out.write_text(render(snapshot(args.repo)), encoding="utf-8")


if __name__ == "__main__":
    main()
