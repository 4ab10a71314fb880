"""The README's install, for real: `pipx install .` run in this checkout's root, into a
fresh pipx home, answers `--version` and a hook call in a repo it wired; without the mcp
extra, `lessons mcp`, `init --mcp` and `doctor` name the `pipx inject` line, which then
makes the server answer."""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from bench.mcp_tools import INITIALIZE
from lessons_cli.commands.init import server_command
from lessons_cli.harnesses import servers
from tests.conftest import harness_env, make_repo, run_wired

CHECKOUT = Path(__file__).resolve().parents[1]

RULE = "Run the release checklist in docs/release.md before 'git push'."


def _done(
    *args: str | Path, cwd: Path | None = None, env: dict[str, str] | None = None, stdin: str = ""
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(a) for a in args],
        cwd=cwd,
        env=env,
        input=stdin,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )


def _run(*args: str | Path, cwd: Path | None = None, env: dict[str, str] | None = None) -> str:
    done = _done(*args, cwd=cwd, env=env)
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout


@pytest.fixture(scope="module")
def pipx_env(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    """The environment of a pipx with a home of its own (nothing of the machine's)."""
    home = tmp_path_factory.mktemp("pipx")
    return {
        **os.environ,
        "PIPX_HOME": str(home / "home"),
        "PIPX_BIN_DIR": str(home / "bin"),
        "PIPX_MAN_DIR": str(home / "man"),
        "PIPX_DEFAULT_PYTHON": sys.executable,
    }


def _pipx(line: str, env: dict[str, str], cwd: Path | None = None) -> str:
    """A README line ``pipx ...`` run as written, by this interpreter's pipx."""
    words = shlex.split(line)
    assert words[0] == "pipx"
    return _run(sys.executable, "-m", "pipx", *words[1:], cwd=cwd, env=env)


@pytest.fixture(scope="module")
def installed(pipx_env: dict[str, str]) -> Path:
    """The bin folder of lessons' venv after the README's `pipx install .`, run in the
    root of this checkout (where the quick start leaves you)."""
    readme = (CHECKOUT / "README.md").read_text()
    line = "pipx install ."
    assert f"\n{line}    " in readme  # the line of the Install section, as written there
    _pipx(line, pipx_env, cwd=CHECKOUT)
    return Path(pipx_env["PIPX_HOME"]) / "venvs" / "lessons" / "bin"


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


def test_without_the_mcp_extra_each_command_names_the_line_that_adds_it(
    installed: Path, pipx_env: dict[str, str], tmp_path: Path
) -> None:
    """The plain install has no MCP SDK: `lessons mcp` and `init --mcp` exit 1 naming
    `pipx inject lessons 'mcp>=2.3,<3'` (init writing nothing), `doctor` fails a
    registered server with that fix; run as written, the line makes the server answer."""
    line = "pipx inject lessons 'mcp>=2.3,<3'"
    root = make_repo(tmp_path / "repo", {"src/a.py": "x = 1\n"})
    env = {**harness_env(root, (installed,)), **{k: v for k, v in pipx_env.items() if "PIPX" in k}}
    refused = _done(installed / "lessons", "init", "--claude-code", "--mcp", cwd=root, env=env)
    assert refused.returncode == 1
    assert line in refused.stderr
    assert "Traceback" not in refused.stderr
    assert not (root / ".lessons").exists()
    _run(installed / "lessons", "init", "--claude-code", cwd=root, env=env)
    servers.install(root, ".mcp.json", server_command("claude-code", root))  # as a teammate's
    served = _done(installed / "lessons", "mcp", cwd=root, env=env, stdin=json.dumps(INITIALIZE))
    assert served.returncode == 1
    assert served.stdout == ""
    assert f"install it with: {line}" in served.stderr
    assert "Traceback" not in served.stderr
    doctor = _done(installed / "lessons", "doctor", "--json", cwd=root, env=env)
    assert doctor.returncode == 1
    (check,) = [
        c for c in json.loads(doctor.stdout)["checks"] if c["detail"].startswith(".mcp.json")
    ]
    assert (check["status"], check["fix"]) == ("fail", line)
    _pipx(line, pipx_env)
    doctor = _done(installed / "lessons", "doctor", "--json", cwd=root, env=env)
    (check,) = [
        c for c in json.loads(doctor.stdout)["checks"] if c["detail"].startswith(".mcp.json")
    ]
    assert check["status"] == "ok"
    served = _done(installed / "lessons", "mcp", cwd=root, env=env, stdin=json.dumps(INITIALIZE))
    assert served.returncode == 0, served.stderr
    assert json.loads(served.stdout)["id"] == 0
