"""The repo every real-client test drives: two files, two lessons, wired by `lessons init`.

`scripts/release.sh` is covered by a command lesson (gated by default), `src/app.py` by a
file lesson (context by default). Running the script creates `released.txt`, so a fake
model's probe can tell whether the command ran before the model read its rule.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from tests.conftest import INSTALL_BIN
from tests.e2e.fake_model import FakeModel, FakeServer, Route

RELEASE_RULE = "Bump VERSION before running scripts/release.sh; it tags whatever is there."
APP_RULE = "Keep src/app.py free of import-time side effects."


def git(root: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=root, check=True, capture_output=True, timeout=60)


def run_lessons(root: Path, *args: str) -> str:
    """Run `python -m lessons_cli ...` in ``root``; return its stdout."""
    done = subprocess.run(
        [sys.executable, "-m", "lessons_cli", *args],
        cwd=root,
        check=True,
        capture_output=True,
        text=True,
        timeout=60,
    )
    return done.stdout


def make_repo(root: Path, harness: str) -> Path:
    """The repo at ``root``, committed, wired with `lessons init --<harness>`."""
    (root / "src").mkdir(parents=True)
    (root / "scripts").mkdir()
    (root / "src" / "app.py").write_text("VALUE = 1\n")
    (root / "scripts" / "release.sh").write_text("touch released.txt\n")
    git(root, "init", "-q")
    git(root, "add", "-A")
    git(root, "-c", "user.email=t@example.com", "-c", "user.name=t", "commit", "-qm", "init")
    run_lessons(root, "init", f"--{harness}")
    command = r"scripts/release\.sh"
    run_lessons(root, "add", RELEASE_RULE, "--topic", "release", "--trigger-cmd", command)
    run_lessons(root, "add", APP_RULE, "--topic", "code", "--trigger-file", "src/app.py")
    return root


def serve_model(root: Path, route: Route) -> FakeServer:
    """A fake model for the repo at ``root`` speaking ``route``'s API; its probe tells
    whether scripts/release.sh ran."""
    return FakeServer(FakeModel(scenarios={}, probe=(root / "released.txt").exists), route)


def client_env(home: Path, *drop: str) -> dict[str, str]:
    """This process's environment for an agent client: without the variables starting
    with ``drop`` (nor LESSONS_PYTHON), ``home`` as HOME, and lessons on PATH as after
    `pipx install` (the install the committed launcher then finds)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith((*drop, "LESSONS_PYTHON"))}
    system = [d for d in env.get("PATH", "/usr/bin:/bin").split(os.pathsep) if d]
    env.update(
        HOME=str(home),
        PATH=os.pathsep.join([str(INSTALL_BIN), *(d for d in system if Path(d) != INSTALL_BIN)]),
    )
    return env


def run_client(argv: list[str], root: Path, env: dict[str, str], exit_code: int = 0) -> str:
    """Run an agent client headless in ``root`` (no stdin); check its exit code; its stdout."""
    done = subprocess.run(
        argv,
        cwd=root,
        env=env,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=180,
        check=False,
    )
    assert done.returncode == exit_code, done.stderr + done.stdout
    return done.stdout
