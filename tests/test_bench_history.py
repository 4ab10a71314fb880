"""The history replay's snapshot (``bench.history_snapshot``) and sessions (``bench.history``):
the committed snapshot is what the script makes of the committed history, it names no path
outside the repo, sessions are cut as documented, and each session runs with its own store.
"""

from __future__ import annotations

import shlex
import subprocess
import sys
from pathlib import Path, PurePosixPath
from typing import Any

import pytest

from bench.history import history_graph, load_snapshot, replay_history, session_events
from bench.history_snapshot import MAX_RUN, SNAPSHOT, STOP, render, snapshot
from lessons_core.jsonio import dumps
from tests.conftest import git

ROOT = Path(__file__).resolve().parents[1]
LESSONS = Path(sys.executable).parent / "lessons"


def _has_history(root: Path) -> bool:
    """Whether ``root``'s own git history reaches back whole to ``STOP``."""
    done = [
        subprocess.run(["git", *args], cwd=root, capture_output=True, text=True, check=False)
        for args in (
            ["cat-file", "-e", f"{STOP}^{{commit}}"],
            ["rev-parse", "--is-shallow-repository"],
        )
    ]
    return done[0].returncode == 0 and done[1].stdout.strip() == "false"


def test_the_snapshot_is_what_the_script_makes_of_the_history() -> None:
    """``python -m bench.history_snapshot`` on this checkout writes the committed file byte
    for byte. Skipped only where the checkout lacks the history up to STOP (a shallow clone
    or an export without .git); CI clones have the full history."""
    if not _has_history(ROOT):
        pytest.skip(f"this checkout has no full git history up to {STOP[:12]} (shallow or no .git)")
    assert render(snapshot(ROOT)) == SNAPSHOT.read_text(encoding="utf-8")


def test_the_snapshot_names_no_path_outside_the_repo() -> None:
    """Every changed path is relative, without ``..`` or quoting, and every stored lesson
    file is a plain ``*.json`` name."""
    data = load_snapshot()
    paths = [
        path
        for session in data["sessions"]
        for commit in session["commits"]
        for _status, *names in commit["changes"]
        for path in names
    ]
    assert len(paths) > 3000
    for path in paths:
        parts = PurePosixPath(path).parts
        assert not path.startswith(("/", '"')), path
        assert "\\" not in path, path
        assert ".." not in parts, path
        assert parts[0] != ".git", path
    for name, _text in data["lessons"]:
        assert "/" not in name, name
        assert name.endswith(".json"), name
    assert SNAPSHOT.stat().st_size < 1_000_000


def _commit(root: Path, message: str, files: dict[str, str]) -> None:
    for rel, content in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(content)
        git(root, "add", rel)
    git(root, "commit", "-q", "-m", message)


def _lesson(lesson_id: str, files: list[str]) -> str:
    data = {
        "created": "2026-11-01",
        "evidence": [],
        "id": lesson_id,
        "rule": f"Keep {files[0]} small: every import of it costs the hook its load time.",
        "status": "active",
        "topics": ["speed"],
        "triggers": {"commands": [], "files": files, "keywords": []},
    }
    return dumps(data).decode()


def test_sessions_are_branches_merged_and_runs_on_main(tmp_path: Path) -> None:
    """A branch merged is one session of its own commits; the commits on the first-parent
    line are cut into sessions of at most MAX_RUN, a merge ending one; each session's
    store is the lessons of the commit its first commit was made on."""
    root = tmp_path / "repo"
    root.mkdir()
    git(root, "init", "-q", "-b", "main")
    _commit(root, "start", {"a.py": "1"})
    _commit(root, "a lesson", {".lessons/lessons/one.json": _lesson("one", ["a.py"])})
    git(root, "checkout", "-q", "-b", "side")
    _commit(root, "side one", {"b.py": "1"})
    _commit(root, "side two", {"b.py": "2", ".lessons/lessons/two.json": _lesson("two", ["b.py"])})
    git(root, "checkout", "-q", "main")
    for number in range(MAX_RUN + 1):
        _commit(root, f"main {number}", {"a.py": str(number)})
    git(root, "merge", "-q", "--no-ff", "-m", "merge side", "side")
    git(root, "rm", "-q", "a.py")
    git(root, "commit", "-q", "-m", "last")
    data = snapshot(root, git(root, "rev-parse", "HEAD").strip())
    subjects = [[c["subject"] for c in s["commits"]] for s in data["sessions"]]
    assert subjects == [
        ["start", "a lesson", *(f"main {n}" for n in range(MAX_RUN - 2))],
        [f"main {n}" for n in range(MAX_RUN - 2, MAX_RUN + 1)],
        ["side one", "side two"],
        ["last"],
    ]
    assert [s["kind"] for s in data["sessions"]] == ["main", "main", "branch", "main"]
    names = [[data["lessons"][n][0] for n in s["lessons"]] for s in data["sessions"]]
    assert names == [[], ["one.json"], ["one.json"], ["one.json", "two.json"]]
    assert data["sessions"][3]["commits"][0]["changes"] == [["D", "a.py"]]


def test_a_commit_is_read_edited_tested_and_committed() -> None:
    """Reads of the folder then an edit for a changed file, a write without reading it for
    an added one, git rm and git mv, the changed test file's tests, git add by path and git
    commit with the real subject; the prompt is the first commit's subject."""
    session: dict[str, Any] = {
        "commits": [
            {
                "subject": "Speed up the matcher's cache",
                "changes": [
                    ["M", "pkg/cache.py"],
                    ["A", "pkg/new.py"],
                    ["D", "pkg/old.py"],
                    ["R100", "pkg/a.py", "pkg/b.py"],
                    ["M", "tests/test_cache.py"],
                ],
            }
        ]
    }
    tree = {"pkg/cache.py", "pkg/old.py", "pkg/a.py", "pkg/util.py", "tests/test_cache.py"}
    events = session_events(3, session, tree)
    assert tree == {"pkg/cache.py", "pkg/new.py", "pkg/b.py", "pkg/util.py", "tests/test_cache.py"}
    assert {e["session_id"] for e in events} == {"history-3"}
    assert events[1] == {
        "hook_event_name": "UserPromptSubmit",
        "prompt": "Speed up the matcher's cache",
        "session_id": "history-3",
    }
    calls = [(e["tool_name"], e["tool_input"]) for e in events[2:]]
    shown = [(tool, given.get("file_path") or given["command"]) for tool, given in calls]
    first_edit = shown.index(("Edit", "pkg/cache.py"))
    assert shown[first_edit - 1] == ("Read", "pkg/cache.py")
    assert all(tool == "Read" and path.startswith("pkg/") for tool, path in shown[: first_edit - 1])
    write = shown.index(("Write", "pkg/new.py"))
    assert ("Read", "pkg/new.py") not in shown
    assert shown[write - 1][0] == "Read"
    commands = [path for tool, path in shown if tool == "Bash"]
    assert commands[:2] == ["git rm -q pkg/old.py", "git mv pkg/a.py pkg/b.py"]
    assert ".venv/bin/pytest -q tests/test_cache.py" in commands
    assert commands[-2:] == [
        "git add pkg/cache.py pkg/new.py pkg/b.py tests/test_cache.py",
        "git commit -q -m " + shlex.quote("Speed up the matcher's cache"),
    ]
    assert ("Edit", "pkg/b.py") not in shown  # moved unchanged


def test_a_long_session_is_compacted() -> None:
    """Every COMPACT_AT tool calls a session is compacted, as the one long replay is."""
    changes = [["M", f"src/f{n}.py"] for n in range(150)]
    session = {"commits": [{"subject": "Rename the settings", "changes": changes}]}
    events = session_events(0, session, {c[1] for c in changes})
    starts = [e.get("source") for e in events if e["hook_event_name"] == "SessionStart"]
    assert starts[0] == "startup"
    assert starts.count("compact") >= 2
    assert sum(e["hook_event_name"] == "PreCompact" for e in events) == starts.count("compact")


def test_each_session_runs_with_the_store_it_started_with(tmp_path: Path) -> None:
    """Through the real hook: a lesson the second session's store has speaks there, and not
    in the first session, which edits the same file before the lesson existed."""
    commit = {"subject": "Tidy the entry point", "changes": [["M", "src/app.py"]]}
    data: dict[str, Any] = {
        "lessons": [["speed.json", _lesson("speed", ["src/app.py"])]],
        "sessions": [
            {"kind": "main", "config": None, "lessons": [], "commits": [commit]},
            {"kind": "main", "config": None, "lessons": [0], "commits": [commit]},
        ],
    }
    graph = history_graph(tmp_path / "history", LESSONS, data)
    first = replay_history(graph, data, 1)
    both = replay_history(history_graph(tmp_path / "again", LESSONS, data), data)
    assert (first.sessions, first.delivering, first.call_tokens) == (1, 0, 0)
    assert both.sessions == 2
    assert both.delivering >= 1
    assert both.by_trigger.get("file", 0) > 0
    assert (graph.root / "src" / "app.py").is_file()  # the tree on disk, as the session saw it
