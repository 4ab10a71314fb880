"""The repo every real-client test starts from: two files, two lessons, one commit.

``scripts/release.sh`` creates ``released.txt`` (so a test sees whether a gated command
ran) and a command lesson covers it; a file lesson covers ``src/app.py``.
"""

from __future__ import annotations

import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Generic

from tests.e2e.fake_server import ApiT, FakeServer

RELEASE_RULE = "Bump VERSION before running scripts/release.sh; it tags whatever is there."
APP_RULE = "Keep src/app.py free of import-time side effects."


def git(root: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=root, check=True, capture_output=True, timeout=60)


def lessons(root: Path, *args: str) -> str:
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


def make_repo(root: Path) -> None:
    """The two files, committed."""
    (root / "src").mkdir(parents=True)
    (root / "scripts").mkdir()
    (root / "src" / "app.py").write_text("VALUE = 1\n")
    (root / "scripts" / "release.sh").write_text("touch released.txt\n")
    git(root, "init", "-q")
    git(root, "add", "-A")
    git(root, "-c", "user.email=t@example.com", "-c", "user.name=t", "commit", "-qm", "init")


def serve_wired_repo(root: Path, api: ApiT, harness_flag: str) -> FakeServer[ApiT]:
    """The repo at ``root`` after `lessons init HARNESS_FLAG` and the two lessons, and the
    fake model ``api`` served for it (closed again if wiring fails)."""
    make_repo(root)
    server = FakeServer(api)
    try:
        lessons(root, "init", harness_flag)
        command = r"scripts/release\.sh"
        lessons(root, "add", RELEASE_RULE, "--topic", "release", "--trigger-cmd", command)
        lessons(root, "add", APP_RULE, "--topic", "code", "--trigger-file", "src/app.py")
    except BaseException:
        server.close()
        raise
    return server


@dataclass
class ClientProject(Generic[ApiT]):
    """A wired repo, the temp home its client runs with, and its fake model's server."""

    root: Path
    home: Path
    server: FakeServer[ApiT]

    @property
    def fake(self) -> ApiT:
        return self.server.api

    def lessons(self, *args: str) -> str:
        """Run `python -m lessons_cli ...` in the repo; return its stdout."""
        return lessons(self.root, *args)

    def run_client(
        self, argv: list[str], env: dict[str, str], exit_code: int = 0
    ) -> subprocess.CompletedProcess[str]:
        """Run the client in the repo, without a terminal; it must exit with ``exit_code``."""
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
        assert done.returncode == exit_code, done.stderr + done.stdout
        return done
