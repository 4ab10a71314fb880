"""The repo every real-client test drives: two lessons, wired with `lessons init --HARNESS`,
and a fake model serving it on loopback.

The command lesson covers `scripts/release.sh` (which creates released.txt, so a test can
tell whether it ran); the file lesson covers `src/app.py`.
"""

from __future__ import annotations

import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Generic

from tests.e2e.fake_server import FakeServer, Model

RELEASE_RULE = "Bump VERSION before running scripts/release.sh; it tags whatever is there."
APP_RULE = "Keep src/app.py free of import-time side effects."


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


def git(root: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=root, check=True, capture_output=True, timeout=60)


def make_repo_with_lessons(root: Path, init_flag: str) -> None:
    """A git repo with src/app.py and scripts/release.sh, wired with `lessons init
    INIT_FLAG`, holding a command lesson (RELEASE_RULE) and a file lesson (APP_RULE)."""
    (root / "src").mkdir(parents=True)
    (root / "scripts").mkdir()
    (root / "src" / "app.py").write_text("VALUE = 1\n")
    (root / "scripts" / "release.sh").write_text("touch released.txt\n")
    git(root, "init", "-q")
    git(root, "add", "-A")
    git(root, "-c", "user.email=t@example.com", "-c", "user.name=t", "commit", "-qm", "init")
    run_lessons(root, "init", init_flag)
    run_lessons(
        root, "add", RELEASE_RULE, "--topic", "release", "--trigger-cmd", r"scripts/release\.sh"
    )
    run_lessons(root, "add", APP_RULE, "--topic", "code", "--trigger-file", "src/app.py")


@dataclass
class WiredRepo(Generic[Model]):
    """The repo, the client's home, and the server of its fake model."""

    root: Path
    home: Path
    server: FakeServer[Model]

    @property
    def fake(self) -> Model:
        return self.server.fake

    def lessons(self, *args: str) -> str:
        return run_lessons(self.root, *args)

    def run_client(self, argv: list[str], env: dict[str, str]) -> str:
        """Run the agent client in the repo with no terminal; its stdout (exit 0 asserted)."""
        done = subprocess.run(
            argv,
            cwd=self.root,
            env=env,
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
            timeout=180,
            check=False,
        )
        assert done.returncode == 0, done.stderr + done.stdout
        return done.stdout


def serve_wired_repo(
    tmp_path: Path, init_flag: str, model: type[Model]
) -> tuple[Path, Path, FakeServer[Model]]:
    """The repo (``tmp_path/repo``), an empty home for the client and a server of
    ``model``, whose probe says whether released.txt exists; the caller closes the server."""
    root = tmp_path / "repo"
    home = tmp_path / "home"
    home.mkdir()
    server = FakeServer(model(scenarios={}, probe=(root / "released.txt").exists))
    try:
        make_repo_with_lessons(root, init_flag)
    except BaseException:
        server.close()
        raise
    return root, home, server
