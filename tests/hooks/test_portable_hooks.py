"""The committed hook works for every teammate: `.lessons/run` finds each machine's install.

A "machine" here is an install of lessons at its own path (``bench.installs.linked``: a
plain venv with the console script). A repo is wired from one, then used from another
after the first is deleted, the way a teammate's clone meets the committed settings.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path
from typing import Any

import pytest

from bench.installs import Install, linked
from lessons_cli.harnesses import wirings
from tests.conftest import harness_env, make_repo, run_wired

RULE = "Run the release checklist in docs/release.md before 'git push'."
HARNESSES = ("claude-code", "codex", "gemini", "cursor", "copilot", "qwen")


def _push_payload(harness: str, root: Path) -> dict[str, Any]:
    """The event each harness sends before running ``git push origin main``."""
    command = "git push origin main"
    if harness == "cursor":
        return {
            "hook_event_name": "beforeShellExecution",
            "conversation_id": "s1",
            "workspace_roots": [str(root)],
            "command": command,
            "cwd": str(root),
        }
    if harness == "copilot":
        return {"sessionId": "s1", "cwd": str(root), "toolName": "bash",
                "toolArgs": {"command": command}}  # fmt: skip
    if harness in ("gemini", "qwen"):
        event = "BeforeTool" if harness == "gemini" else "PreToolUse"
        tool = "run_shell_command"
    else:
        event, tool = "PreToolUse", "Bash"
    return {
        "hook_event_name": event,
        "session_id": "s1",
        "cwd": str(root),
        "tool_name": tool,
        "tool_input": {"command": command},
    }


def _lessons(install: Install, root: Path, *args: str) -> str:
    done = subprocess.run(
        [install.lessons, *args],
        cwd=root,
        env=harness_env(root, (Path(install.lessons).parent,)),
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    return done.stdout


def _git(root: Path, *args: str) -> str:
    return subprocess.run(
        ["git", *args], cwd=root, capture_output=True, text=True, check=True
    ).stdout


def _hook(harness: str, root: Path, bin_dirs: tuple[Path, ...]) -> str:
    """Run the command the committed settings name for the pre-tool event; its stdout."""
    spec = wirings()[harness]
    settings = json.loads((root / spec.settings).read_text())
    event = "beforeShellExecution" if harness == "cursor" else spec.events[2].name
    entry = settings["hooks"][event][0]
    command = entry[spec.command_key] if not spec.nested else entry["hooks"][0]["command"]
    payload = json.dumps(_push_payload(harness, root))
    done = run_wired(command, root, payload, harness_env(root, bin_dirs))
    assert (done.returncode, done.stderr) == (0, "")
    return done.stdout


def _wired_repo(tmp_path: Path, harness: str, install: Install) -> Path:
    root = make_repo(tmp_path / "repo", {"docs/release.md": "checklist\n"})
    _lessons(install, root, "init", f"--{harness}")
    _lessons(install, root, "add", RULE, "--topic", "release", "--trigger-cmd", "git push")
    _git(root, "add", "-A")
    _git(root, "-c", "user.name=a", "-c", "user.email=a@example.com", "commit", "-qm", "lessons")
    return root


@pytest.mark.parametrize("harness", HARNESSES)
def test_a_teammates_machine_runs_the_committed_hook(tmp_path: Path, harness: str) -> None:
    """Wired from one install, which is then deleted; another install at another path
    answers the same committed hook, and its own `lessons init` changes no file."""
    first = linked(tmp_path / "machine-a")
    root = _wired_repo(tmp_path, harness, first)
    assert RULE in _hook(harness, root, (Path(first.lessons).parent,))
    shutil.rmtree(tmp_path / "machine-a")
    second = linked(tmp_path / "machine-b")
    shutil.rmtree(root / ".lessons" / "local")  # a fresh clone has no per-clone state
    out = _hook(harness, root, (Path(second.lessons).parent,))
    assert RULE in out
    _lessons(second, root, "init", f"--{harness}")
    assert _git(root, "status", "--porcelain") == ""


def test_without_an_install_the_hook_is_silent_and_says_so_at_session_start(
    tmp_path: Path,
) -> None:
    """No lessons on the machine: the pre-tool hook exits 0 with nothing; session start
    tells the agent (and the user, through Claude Code's systemMessage) how to fix it."""
    install = linked(tmp_path / "machine-a")
    root = _wired_repo(tmp_path, "claude-code", install)
    shutil.rmtree(tmp_path / "machine-a")
    shutil.rmtree(root / ".lessons" / "local")
    env = harness_env(root, ())
    env["HOME"] = str(tmp_path / "home")
    command = 'sh "$CLAUDE_PROJECT_DIR/.lessons/run" hook claude-code || true'
    done = run_wired(command, root, json.dumps(_push_payload("claude-code", root)), env)
    assert (done.returncode, done.stdout, done.stderr) == (0, "", "")
    start = {"hook_event_name": "SessionStart", "session_id": "s1", "source": "startup"}
    done = run_wired(command, root, json.dumps(start), env)
    assert done.returncode == 0
    answer = json.loads(done.stdout)
    assert "found no lessons to run" in answer["systemMessage"]
    assert answer["hookSpecificOutput"]["hookEventName"] == "SessionStart"


def test_without_an_install_copilot_is_told_at_session_start(tmp_path: Path) -> None:
    """Copilot CLI's payloads name no event: its session start (a source, no tool) gets
    the hint as additionalContext; its tool calls stay silent."""
    install = linked(tmp_path / "machine-a")
    root = _wired_repo(tmp_path, "copilot", install)
    shutil.rmtree(tmp_path / "machine-a")
    shutil.rmtree(root / ".lessons" / "local")
    env = {**harness_env(root, ()), "HOME": str(tmp_path / "home")}
    command = 'sh "$COPILOT_PROJECT_DIR/.lessons/run" hook copilot || true'
    start = {"sessionId": "s1", "timestamp": 1, "cwd": str(root), "source": "new"}
    done = run_wired(command, root, json.dumps(start), env)
    assert done.returncode == 0
    assert "found no lessons to run" in json.loads(done.stdout)["additionalContext"]
    call = {**start, "toolName": "bash", "toolArgs": {"command": 'echo "source":"x"'}}
    call.pop("source")
    done = run_wired(command, root, json.dumps(call), env)
    assert (done.returncode, done.stdout, done.stderr) == (0, "", "")


def test_the_launcher_runs_any_command_and_fails_clearly_without_an_install(
    tmp_path: Path,
) -> None:
    """`sh .lessons/run list` works like `lessons list`; without an install it exits 127
    with the reason on stderr."""
    install = linked(tmp_path / "machine-a")
    root = _wired_repo(tmp_path, "claude-code", install)

    def listing(env: dict[str, str]) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            ["sh", ".lessons/run", "list"],
            cwd=root,
            env=env,
            capture_output=True,
            text=True,
            check=False,
        )

    listed = listing(harness_env(root, (Path(install.lessons).parent,)))
    assert listed.returncode == 0
    assert RULE in listed.stdout
    shutil.rmtree(tmp_path / "machine-a")
    env = harness_env(root, ())
    env["HOME"] = str(tmp_path / "home")
    done = listing(env)
    assert done.returncode == 127
    assert "found no lessons to run" in done.stderr
    # the places it searched, the PATH the hook ran with among them
    assert f"'lessons' on this PATH: {env['PATH']}," in done.stderr
    assert "LESSONS_PYTHON (unset)" in done.stderr
    # and the command that installs it, as the README gives it
    assert "in the root of a clone of the lessons repository, run 'pipx install .'" in done.stderr


@pytest.mark.parametrize("where", ["repo-venv", "lessons-python", "home-local-bin"])
def test_the_launcher_finds_each_usual_install(tmp_path: Path, where: str) -> None:
    """The repo's .venv, $LESSONS_PYTHON and ~/.local/bin/lessons (pipx, uv tool, pip
    --user) are each found with nothing on PATH."""
    wiring_install = linked(tmp_path / "machine-a")
    root = _wired_repo(tmp_path, "claude-code", wiring_install)
    shutil.rmtree(tmp_path / "machine-a")
    home = tmp_path / "home"
    env = harness_env(root, ())
    env["HOME"] = str(home)
    if where == "repo-venv":
        linked(root / ".venv")
    elif where == "lessons-python":
        env["LESSONS_PYTHON"] = linked(tmp_path / "elsewhere").python
    else:
        install = linked(tmp_path / "tool-venv")
        (home / ".local" / "bin").mkdir(parents=True)
        (home / ".local" / "bin" / "lessons").symlink_to(install.lessons)
    command = 'sh "$CLAUDE_PROJECT_DIR/.lessons/run" hook claude-code || true'
    done = run_wired(command, root, json.dumps(_push_payload("claude-code", root)), env)
    assert done.returncode == 0
    assert RULE in done.stdout


def test_a_real_pip_install_at_a_long_path_is_found(tmp_path: Path, lessons_wheel: Path) -> None:
    """pip writes a ``/bin/sh`` trampoline, not a shebang, for an interpreter path over
    127 characters; the launcher asks the script itself, so that install is found too."""
    wiring_install = linked(tmp_path / "machine-a")
    root = _wired_repo(tmp_path, "claude-code", wiring_install)
    shutil.rmtree(tmp_path / "machine-a")
    venv = tmp_path / ("v" * 60) / ("w" * 60) / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    python = venv / "bin" / "python"
    pip = [sys.executable, "-m", "pip", "--disable-pip-version-check", "-q"]
    subprocess.run(
        [*pip, "--python", str(python), "install", "--no-deps", str(lessons_wheel)], check=True
    )
    purelib = subprocess.run(
        [str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    # lessons' dependencies from the test run's own environment (lessons from the wheel)
    Path(purelib, "dependencies.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    script = venv / "bin" / "lessons"
    assert script.read_text().startswith("#!/bin/sh\n")
    assert RULE in _hook("claude-code", root, (script.parent,))
    cached = (root / ".lessons" / "local" / "launch").read_text().splitlines()
    assert cached == [str(python), f"{purelib}/lessons_cli/__main__.py", str(script)]


def _launch_source(root: Path) -> str:
    return (root / ".lessons" / "local" / "launch").read_text().splitlines()[2]


def test_a_repo_venv_made_later_takes_over_from_the_remembered_install(tmp_path: Path) -> None:
    """The search order holds after the first answer was remembered: a repo .venv that
    appears later is used from the next call on."""
    install = linked(tmp_path / "machine-a")
    root = _wired_repo(tmp_path, "claude-code", install)
    assert RULE in _hook("claude-code", root, (Path(install.lessons).parent,))
    assert _launch_source(root) == install.lessons
    venv = linked(root / ".venv")
    _hook("claude-code", root, (Path(install.lessons).parent,))
    assert _launch_source(root) == venv.lessons


def test_lessons_python_decides_only_while_it_is_set(tmp_path: Path) -> None:
    """An install named by LESSONS_PYTHON is remembered as such; once the variable is
    unset the search runs again, and a LESSONS_PYTHON without lessons falls back to it."""
    install = linked(tmp_path / "machine-a")
    root = _wired_repo(tmp_path, "claude-code", install)
    other = linked(tmp_path / "machine-b")
    command = 'sh "$CLAUDE_PROJECT_DIR/.lessons/run" hook claude-code || true'
    payload = json.dumps(_push_payload("claude-code", root))
    env = harness_env(root, (Path(install.lessons).parent,))
    for python, source in ((other.python, f"env:{other.python}"), ("/nowhere/python", None)):
        shutil.rmtree(root / ".lessons" / "local", ignore_errors=True)
        done = run_wired(command, root, payload, {**env, "LESSONS_PYTHON": python})
        assert RULE in done.stdout
        assert _launch_source(root) == (source or install.lessons)
    run_wired(command, root, payload, env)
    assert _launch_source(root) == install.lessons


def test_a_linked_local_folder_is_never_written_through(tmp_path: Path) -> None:
    """A repo that commits .lessons/local as a link elsewhere gets no cache written there;
    the hook still runs (and stays silent, since such a store is not used)."""
    install = linked(tmp_path / "machine-a")
    root = _wired_repo(tmp_path, "claude-code", install)
    shutil.rmtree(root / ".lessons" / "local")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (root / ".lessons" / "local").symlink_to(elsewhere)
    assert _hook("claude-code", root, (Path(install.lessons).parent,)) == ""
    assert list(elsewhere.iterdir()) == []


def test_without_a_project_variable_the_hook_runs_from_a_subfolder_too(tmp_path: Path) -> None:
    """Codex's and Cursor's command looks in the folder the session started in, and asks
    git for the top level only when the launcher is not there."""
    install = linked(tmp_path / "machine-a")
    root = _wired_repo(tmp_path, "codex", install)
    (root / "docs" / "deep").mkdir()
    settings = json.loads((root / ".codex" / "hooks.json").read_text())
    command = settings["hooks"]["PreToolUse"][0]["hooks"][0]["command"]
    payload = json.dumps(_push_payload("codex", root))
    env = harness_env(root, (Path(install.lessons).parent,))
    done = run_wired(command, root / "docs" / "deep", payload, env)
    assert (done.returncode, done.stderr) == (0, "")
    assert RULE in done.stdout


def test_without_an_install_cursor_is_told_at_session_start(tmp_path: Path) -> None:
    """Cursor's sessionStart gets the hint as additional_context, its shell calls nothing."""
    install = linked(tmp_path / "machine-a")
    root = _wired_repo(tmp_path, "cursor", install)
    shutil.rmtree(tmp_path / "machine-a")
    shutil.rmtree(root / ".lessons" / "local")
    env = {**harness_env(root, ()), "HOME": str(tmp_path / "home")}
    settings = json.loads((root / ".cursor" / "hooks.json").read_text())
    command = settings["hooks"]["sessionStart"][0]["command"]
    start = {"hook_event_name": "sessionStart", "conversation_id": "c1"}
    done = run_wired(command, root, json.dumps(start), env)
    assert "found no lessons to run" in json.loads(done.stdout)["additional_context"]
    done = run_wired(command, root, json.dumps(_push_payload("cursor", root)), env)
    assert (done.returncode, done.stdout, done.stderr) == (0, "", "")
