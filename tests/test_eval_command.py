"""``lessons eval``: scores, failure reasons from --explain, exit codes, and the repo's gate."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from lessons_core.store.layout import Layout
from tests.conftest import run

REPO_ROOT = Path(__file__).resolve().parents[1]


def add(*args: str) -> str:
    result = run("add", *args)
    assert result.exit_code == 0, result.output
    return result.stdout.strip()


@pytest.fixture
def graph(repo: Layout) -> dict[str, str]:
    """Two lessons on src/db/models.py (exact path beats folder) and one on a command."""
    return {
        "exact": add(
            "Run the migration linter before editing models.",
            "--topic",
            "db",
            "--trigger-file",
            "src/db/models.py",
        ),
        "folder": add(
            "Keep database code free of print statements.",
            "--topic",
            "db",
            "--trigger-file",
            "src/db/**",
        ),
        "push": add(
            "Run the full test suite before pushing to main.",
            "--topic",
            "git",
            "--trigger-cmd",
            "git push",
        ),
    }


def write_cases(repo: Layout, *cases: dict[str, object]) -> str:
    path = repo.root / "cases.jsonl"
    path.write_text("".join(json.dumps(case) + "\n" for case in cases))
    return str(path)


def test_passing_cases(repo: Layout, graph: dict[str, str]) -> None:
    """All cases pass: exit 0 and a one-line summary with every metric."""
    cases = write_cases(
        repo,
        {"file": "src/db/models.py", "expect": [graph["exact"], graph["folder"]]},
        {"cmd": "git push origin main", "expect": [graph["push"]]},
        {"file": "docs/guide.md", "expect": []},
    )
    result = run("eval", cases)
    assert result.exit_code == 0, result.output
    assert result.stderr == ""
    assert result.stdout.splitlines()[0].startswith(
        "3/3 cases passed; recall@3 1.000, precision@3 1.000, MRR 1.000, "
    )


def test_failed_case_says_why(repo: Layout, graph: dict[str, str]) -> None:
    """A missed lesson is explained: ranked below k, or not matched with each trigger's detail."""
    cases = write_cases(
        repo,
        {"file": "src/db/models.py", "expect": [graph["folder"], graph["push"]], "name": "models"},
    )
    result = run("eval", cases, "--k", "1")
    assert result.exit_code == 1
    lines = result.stdout.splitlines()
    assert lines[0].startswith("0/1 cases passed; recall@1 0.000, precision@1 0.000, MRR 0.500")
    assert lines[1] == "FAIL models"
    assert f"  {graph['folder']}: shown at rank 2, below the first 1 ({graph['exact']})" in lines
    assert any(
        line.startswith(f"  {graph['push']}: not matched (command 'git push':") for line in lines
    )


def test_silence_case_names_what_was_shown(repo: Layout, graph: dict[str, str]) -> None:
    """A case expecting silence fails naming the lesson shown and its trigger."""
    cases = write_cases(repo, {"cmd": "git push", "expect": []})
    result = run("eval", cases)
    assert result.exit_code == 1
    assert f"  {graph['push']} was shown (command: git push)" in result.stdout.splitlines()


def test_json_report(repo: Layout, graph: dict[str, str]) -> None:
    """--json carries the summary, every case and the failed ones with their reasons."""
    cases = write_cases(
        repo,
        {"cmd": "git push", "expect": [graph["push"]]},
        {"file": "src/app.py", "expect": [graph["exact"]]},
    )
    result = run("eval", cases, "--json")
    assert result.exit_code == 1
    report = json.loads(result.stdout)
    assert (report["k"], report["cases"], report["passed"]) == (3, 2, 1)
    assert report["recall_at_k"] == 0.5
    assert report["mrr"] == 0.5
    assert [case["line"] for case in report["failed"]] == [2]
    assert report["failed"][0]["reasons"][0].startswith(f"{graph['exact']}: not matched")
    assert report["results"][0]["tokens"] > 0
    assert report["results"][1]["tokens"] == 0


def test_bad_cases_file_is_a_user_error(repo: Layout) -> None:
    """A malformed case exits 1 naming the file and line."""
    path = repo.root / "cases.jsonl"
    path.write_text('{"file": "a.py"}\n')
    result = run("eval", str(path))
    assert result.exit_code == 1
    assert (
        result.stderr
        == f"error: {path}:1: 'expect' must be a list of lesson ids ([] for silence)\n"
    )


def test_this_repos_lessons_pass_their_cases(monkeypatch: pytest.MonkeyPatch) -> None:
    """Regression gate: every case in tests/eval/cases.jsonl passes on this repo's .lessons/."""
    monkeypatch.chdir(REPO_ROOT)
    result = run("eval", "tests/eval/cases.jsonl", "--json")
    report = json.loads(result.stdout)
    failed = {case["label"]: case["reasons"] for case in report["failed"]}
    assert failed == {}
    assert result.exit_code == 0
    assert report["cases"] >= 12
