"""The `lessons hook` entry point: a real process, fast imports, click only for --help."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from click.testing import CliRunner

from lessons_cli.app import cli
from lessons_core.layout import Layout
from tests.hooks.conftest import payload, write_lesson

PROBE = """
import atexit, sys
heavy = ("click", "numpy", "rank_bm25", "detect_secrets")
atexit.register(lambda: sys.stderr.write(",".join(m for m in heavy if m in sys.modules)))
from lessons_cli.main import main
main(["hook", "claude-code"])
"""


def _run(code: str, stdin: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", code],
        input=stdin,
        capture_output=True,
        text=True,
        cwd=cwd,
        timeout=60,
        check=False,
    )


def test_hook_process_never_imports_click_bm25_or_detect_secrets(project: Layout) -> None:
    """A delivering PreToolUse hook imports none of click, numpy/rank_bm25, detect_secrets."""
    write_lesson(
        project, "build-gen-before-push", "Run make gen before pushing.", commands=("git push",)
    )
    data = payload("claude-code", "pre_tool_use_bash_redirect", project.root)
    data["tool_input"] = {"command": "git push"}
    done = _run(PROBE, json.dumps(data), project.root)
    assert done.returncode == 0
    assert "make gen" in json.loads(done.stdout)["hookSpecificOutput"]["permissionDecisionReason"]
    assert done.stderr == ""


def test_console_script_runs_the_hook_and_exits_zero_on_garbage(project: Layout) -> None:
    """`python -m lessons_cli hook claude-code` with bad stdin: exit 0, empty stdout."""
    done = subprocess.run(
        [sys.executable, "-m", "lessons_cli", "hook", "claude-code"],
        input="not json",
        capture_output=True,
        text=True,
        cwd=project.root,
        timeout=60,
        check=False,
    )
    assert (done.returncode, done.stdout, done.stderr) == (0, "", "")


def test_hook_help_lists_every_harness() -> None:
    """`lessons hook --help` documents the harnesses and shows an example."""
    result = CliRunner().invoke(cli, ["hook", "--help"])
    assert result.exit_code == 0
    for name in ("claude-code", "codex", "gemini", "cursor", "Example:"):
        assert name in result.output


def test_unknown_harness_is_a_usage_error() -> None:
    """A harness name lessons does not know exits 2 with click's message on stderr."""
    result = CliRunner().invoke(cli, ["hook", "vim"])
    assert result.exit_code == 2
    assert "vim" in result.stderr
