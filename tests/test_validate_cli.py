"""``lessons validate`` on the command line: formats, exit codes, pre-commit."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from lessons_core.matching.thresholds import NEVER_RECALLED_MIN_RECALLS
from lessons_core.store.config import Config
from lessons_core.store.layout import Layout
from lessons_core.store.project import init_project
from lessons_core.telemetry.log import record_recall
from tests.conftest import git, make_repo, run
from tests.lesson_graphs import log_failure, log_recall, make_project, write_lesson

REPO_ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    return tmp_path


def test_clean_graph_prints_the_summary_and_exits_0(project: Path) -> None:
    """No findings: only the summary line on stdout, nothing on stderr."""
    layout = make_project(project)
    write_lesson(layout, "db-a", "Quote identifiers in raw SQL.", files=["src/db/**"])
    result = run("validate")
    assert result.exit_code == 0
    assert result.stdout == "1 lesson checked: 0 errors, 0 warnings, 0 notices\n"
    assert result.stderr == ""


def test_an_error_prints_code_file_line_and_fix_and_exits_1(project: Path) -> None:
    """An invalid glob: file:line, code, severity, message, fix; exit 1."""
    layout = make_project(project)
    write_lesson(layout, "db-a", "Quote identifiers in raw SQL.", files=["../x/**"])
    result = run("validate")
    assert result.exit_code == 1
    lines = result.stdout.splitlines()
    at = next(i for i, line in enumerate(lines) if " L009 " in line)
    assert re.match(
        r"^\.lessons/lessons/db-a\.json:\d+: L009 error: file trigger '\.\./x/\*\*'", lines[at]
    )
    assert lines[at + 1].startswith("  fix: ")
    assert lines[-1] == "1 lesson checked: 2 errors, 0 warnings, 0 notices"
    assert result.stderr == ""


def test_warnings_pass_unless_strict(project: Path) -> None:
    """A dead glob exits 0, and 1 with --strict."""
    layout = make_project(project)
    write_lesson(layout, "db-a", "Quote identifiers in raw SQL.", files=["src/legacy/**"])
    assert run("validate").exit_code == 0
    strict = run("validate", "--strict")
    assert strict.exit_code == 1
    assert "L101 warning" in strict.stdout


def test_notices_never_fail_even_strict(project: Path) -> None:
    """A never-recalled notice leaves --strict at exit 0."""
    layout = make_project(project, telemetry=True)
    write_lesson(layout, "db-a", "Quote identifiers in raw SQL.", files=["src/db/**"])
    for _ in range(NEVER_RECALLED_MIN_RECALLS):
        log_recall(layout, "x", [])
    result = run("validate", "--strict")
    assert result.exit_code == 0
    assert "L301 notice" in result.stdout


def _failing_after_delivery(layout: Layout, gate: bool = False) -> None:
    """db-a shown before `alembic upgrade head`, which then failed in three sessions."""
    for session in ("s1", "s2", "s3"):
        record_recall(
            layout, Config(telemetry=True), event="PreToolUse", key="alembic upgrade head",
            candidates=["db-a"], delivered=["db-a"], tokens=20, session=session, gate=gate,
        )  # fmt: skip
        assert log_failure(layout, "alembic upgrade head", session)


def test_telemetry_warnings_never_fail_strict_only_strict_telemetry(project: Path) -> None:
    """L302 comes from this machine's log: --strict reports it and exits 0, as CI (with no
    log) would; --strict-telemetry fails on it; the JSON marks it."""
    layout = make_project(project, telemetry=True)
    write_lesson(layout, "db-a", "Quote identifiers in raw SQL.", commands=["alembic upgrade"])
    _failing_after_delivery(layout)
    strict = run("validate", "--strict")
    assert strict.exit_code == 0, strict.output
    assert "L302 warning" in strict.stdout
    assert strict.stdout.splitlines()[-1] == (
        "1 lesson checked: 0 errors, 1 warning (1 from this machine's telemetry: only "
        "--strict-telemetry fails on them), 1 notice"
    )
    assert run("validate", "--strict-telemetry").exit_code == 1
    data = json.loads(run("validate", "--format", "json", "--strict").stdout)
    assert data["ok"] is True
    assert [(f["code"], f["telemetry"]) for f in data["findings"]] == [
        ("L302", True),
        ("L350", True),  # the notice suggesting "enforce": it failed in three sessions
    ]


@pytest.mark.parametrize("gated", ["lesson", "delivery"])
def test_l302_never_suggests_a_gate_for_a_lesson_delivered_as_one(
    project: Path, gated: str
) -> None:
    """A lesson with "gate": true, or one the delivery refused the call with, was read
    before the call ran: the fix says the wording is what fails."""
    layout = make_project(project, telemetry=True)
    write_lesson(layout, "db-a", "Quote identifiers in raw SQL.", commands=["alembic upgrade"],
                 gate=gated == "lesson")  # fmt: skip
    _failing_after_delivery(layout, gate=gated == "delivery")
    findings = json.loads(run("validate", "--format", "json").stdout)["findings"]
    [finding] = [f for f in findings if f["code"] == "L302"]
    assert '"gate": true' not in finding["fix"]
    assert finding["fix"].startswith("it already comes as a gate")


def test_json_format_lists_findings_and_the_verdict(project: Path) -> None:
    """--format json: ok, summary and findings with code, file, line, fix."""
    layout = make_project(project)
    write_lesson(layout, "db-a", "Quote identifiers in raw SQL.", files=["src/legacy/**"])
    result = run("validate", "--format", "json", "--strict")
    assert result.exit_code == 1
    data = json.loads(result.stdout)
    assert data["ok"] is False
    assert data["summary"] == {"lessons": 1, "errors": 0, "warnings": 1, "notices": 0}
    [finding] = data["findings"]
    assert finding["code"] == "L101"
    assert finding["file"] == ".lessons/lessons/db-a.json"
    assert finding["lesson"] == "db-a"
    assert isinstance(finding["line"], int)
    assert finding["fix"]


def test_github_format_annotates_the_lesson_file(project: Path) -> None:
    """--format github prints ::error with file, line and title, escaped."""
    layout = make_project(project)
    write_lesson(layout, "db-a", "Quote identifiers in raw SQL.", commands=["(a)\\1"])
    result = run("validate", "--format", "github")
    assert result.exit_code == 1
    first = next(line for line in result.stdout.splitlines() if "L010" in line)
    assert re.match(
        r"^::error file=\.lessons/lessons/db-a\.json,line=\d+,title=L010 invalid command "
        r"pattern::command trigger .*%0Afix: ",
        first,
    )


def test_github_paths_are_relative_to_the_checkout(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """In a monorepo package, annotation paths start at the git top level."""
    make_repo(tmp_path, {"pkg/app/src/main.py": "x\n"})
    layout, _ = init_project(tmp_path / "pkg" / "app")
    write_lesson(layout, "app-a", "Keep main import-free.", files=["src/nothing/**"])
    monkeypatch.chdir(tmp_path / "pkg" / "app")
    result = run("validate", "--format", "github")
    assert "::warning file=pkg/app/.lessons/lessons/app-a.json," in result.stdout


def test_outside_a_project_says_how_to_start(project: Path) -> None:
    """No .lessons/: exit 1 and the fix on stderr."""
    result = run("validate")
    assert result.exit_code == 1
    assert result.stdout == ""
    assert "run 'lessons init'" in result.stderr


def test_help_has_an_example() -> None:
    """--help shows an Example block."""
    result = run("validate", "--help")
    assert result.exit_code == 0
    assert "Example:" in result.stdout
    assert "--format [text|json|github]" in result.stdout


def test_pre_commit_hook_runs_validate_without_filenames() -> None:
    """.pre-commit-hooks.yaml declares the validate entry for lesson files."""
    text = (REPO_ROOT / ".pre-commit-hooks.yaml").read_text()
    assert "- id: lessons-validate\n" in text
    assert "  entry: lessons validate\n" in text
    assert "  pass_filenames: false\n" in text
    files = re.search(r"^  files: (.+)$", text, re.M)
    assert files is not None
    pattern = re.compile(files.group(1))
    assert pattern.search(".lessons/lessons/db-a.json")
    assert pattern.search("pkg/.lessons/config.json")
    assert not pattern.search(".lessons/local/telemetry.jsonl")
    assert not pattern.search("src/lessons/x.json")


def test_pre_commit_entry_fails_a_commit_with_a_broken_lesson(tmp_path: Path) -> None:
    """The hook's entry, run as pre-commit runs it, exits 1 on a broken lesson file."""
    layout = make_project(tmp_path)
    (layout.lessons_dir / "db-a.json").write_text("{")
    git(tmp_path, "add", "-A")
    result = subprocess.run(
        [sys.executable, "-m", "lessons_cli", "validate"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 1
    assert "L001 error" in result.stdout
