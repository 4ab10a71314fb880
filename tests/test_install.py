"""The README's install, for real: a wheel built from this checkout, installed into a fresh
venv with its dependencies, answers `--version` and a hook call in a repo it wired."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import harness_env, make_repo, run_wired

RULE = "Run the release checklist in docs/release.md before 'git push'."


def _run(*args: str | Path, cwd: Path | None = None, env: dict[str, str] | None = None) -> str:
    done = subprocess.run(
        [str(a) for a in args],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory, lessons_wheel: Path) -> Path:
    """The bin folder of a fresh venv with lessons installed from a freshly built wheel."""
    folder = tmp_path_factory.mktemp("install")
    wheel = lessons_wheel
    _run(sys.executable, "-m", "venv", folder / "venv")
    venv_pip = (folder / "venv" / "bin" / "python", "-m", "pip", "--disable-pip-version-check")
    _run(*venv_pip, "-q", "install", wheel)
    return folder / "venv" / "bin"


def test_the_installed_console_script_reports_its_version(installed: Path) -> None:
    """`lessons --version` from the wheel's console script."""
    assert _run(installed / "lessons", "--version").startswith("lessons, version ")


def test_the_installed_lessons_wires_a_repo_and_answers_its_hook(
    installed: Path, tmp_path: Path
) -> None:
    """init writes the launcher from the wheel's data; the hook gates a covered push."""
    root = make_repo(tmp_path / "repo", {"docs/release.md": "checklist\n"})
    env = harness_env(root, (installed,))
    _run(installed / "lessons", "init", "--claude-code", cwd=root, env=env)
    _run(
        installed / "lessons",
        "add",
        RULE,
        "--topic",
        "release",
        "--trigger-cmd",
        "git push",
        cwd=root,
        env=env,
    )
    settings = json.loads((root / ".claude" / "settings.json").read_text())
    command = settings["hooks"]["PreToolUse"][0]["hooks"][0]["command"]
    payload = {
        "hook_event_name": "PreToolUse",
        "session_id": "s1",
        "cwd": str(root),
        "tool_name": "Bash",
        "tool_input": {"command": "git push origin main"},
    }
    done = run_wired(command, root, json.dumps(payload), env)
    assert (done.returncode, done.stderr) == (0, "")
    answer = json.loads(done.stdout)["hookSpecificOutput"]
    assert answer["permissionDecision"] == "deny"
    assert RULE in answer["permissionDecisionReason"]
    launch = (root / ".lessons" / "local" / "launch").read_text().splitlines()
    assert launch[0].startswith(str(installed.parent))
