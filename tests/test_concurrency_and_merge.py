"""Parallel captures lose nothing; branches that add lessons merge without conflict."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import orjson
import pytest

from lessons_core.store.files import load_graph
from lessons_core.store.layout import Layout
from lessons_core.store.project import init_project
from tests.conftest import git, make_repo, run

NOUNS = (
    "invoice ledger tenant webhook quota cursor token bucket replica shard schema fixture "
    "locale payload session cache worker router crypto upload"
).split()


def start_add(root: Path, *args: str) -> subprocess.Popen[bytes]:
    """A `lessons add` in its own process, as a parallel agent would run it."""
    return subprocess.Popen(
        [sys.executable, "-m", "lessons_cli", "add", *args],
        cwd=root,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )


def test_twenty_parallel_adds_make_twenty_valid_files(repo: Layout) -> None:
    """20 concurrent `lessons add` processes in one topic produce 20 valid lesson files."""
    procs = [
        start_add(
            repo.root,
            f"Call the {noun} guard before writing {noun} rows in {NOUNS[n - 1]} jobs.",
            *("--topic", "billing", "--trigger-keyword", noun),
        )
        for n, noun in enumerate(NOUNS)
    ]
    outputs = [proc.communicate(timeout=120) for proc in procs]
    assert [proc.returncode for proc in procs] == [0] * 20, [err for _, err in outputs]
    ids = {out.decode().strip() for out, _ in outputs}
    graph = load_graph(repo)
    assert not graph.broken
    assert set(graph.lessons) == ids
    assert len(ids) == 20
    leftovers = [p.name for p in repo.lessons_dir.iterdir() if p.name.startswith(".")]
    assert leftovers == []


def test_parallel_adds_of_one_rule_make_one_lesson(repo: Layout) -> None:
    """The same rule captured by several agents at once ends as one merged lesson."""
    rule = "Regenerate the OpenAPI client after changing routes."
    keywords = ("openapi", "routes", "swagger", "endpoint")
    procs = [start_add(repo.root, rule, "--topic", "api", "--trigger-keyword", k) for k in keywords]
    for proc in procs:
        proc.communicate(timeout=120)
        assert proc.returncode == 0
    graph = load_graph(repo)
    assert len(graph.lessons) == 1
    (lesson,) = graph.lessons.values()
    assert set(lesson.triggers.keywords) == {"openapi", "routes", "swagger", "endpoint"}


def commit_lesson(root: Path, rule: str) -> None:
    """Capture a lesson in the db topic and commit it on the current branch."""
    assert run("add", rule, "--topic", "db", "--trigger-file", "src/db.py").exit_code == 0
    git(root, "add", "-A")
    git(root, "commit", "-qm", f"lesson: {rule}")


def test_two_branches_adding_lessons_merge_cleanly(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Lessons added on two branches, same topic, merge with plain git merge."""
    root = make_repo(tmp_path / "r", {"src/app.py": "x\n", "src/db.py": "y\n"})
    init_project(root)
    monkeypatch.chdir(root)
    git(root, "add", "-A")
    git(root, "commit", "-qm", "lessons init")
    git(root, "checkout", "-qb", "feature")
    commit_lesson(root, "Close the db session in a finally block.")
    git(root, "checkout", "-q", "main")
    commit_lesson(root, "Index foreign keys when adding a db relation.")
    merge = subprocess.run(
        ["git", "merge", "--no-edit", "feature"],
        cwd=root,
        capture_output=True,
        text=True,
        check=False,
    )
    assert merge.returncode == 0, merge.stdout + merge.stderr
    assert "CONFLICT" not in merge.stdout
    listed = orjson.loads(run("list", "--json").stdout)["lessons"]
    assert len(listed) == 2
    assert git(root, "status", "--porcelain") == ""


def test_local_state_is_ignored_by_git(repo: Layout) -> None:
    """Session and cache files under .lessons/local/ never show up in git status."""
    (repo.local_dir / "sessions").mkdir()
    (repo.local_dir / "sessions" / "x.json").write_text("{}")
    status = git(repo.root, "status", "--porcelain", "--untracked-files=all")
    assert ".lessons/local" not in status
    assert ".lessons/config.json" in status
