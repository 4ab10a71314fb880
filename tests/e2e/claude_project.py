"""A temp git repo wired with `lessons init --claude-code`, driven by the real Claude Code CLI.

`bash scripts/test` installs the pinned client into ./.e2e. Its home and config
directories are temp folders too, and the model is `fake_anthropic.FakeModel` on a free
loopback port.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tests.conftest import INSTALL_BIN
from tests.e2e.fake_anthropic import FakeModel, FakeServer, ToolCall

CLAUDE = Path(__file__).resolve().parents[2] / ".e2e" / "node_modules" / ".bin" / "claude"
RELEASE_RULE = "Bump VERSION before running scripts/release.sh; it tags whatever is there."
APP_RULE = "Keep src/app.py free of import-time side effects."
TOOLS = "Bash,Write,Edit,Read"


@dataclass
class Project:
    root: Path
    home: Path
    server: FakeServer

    @property
    def fake(self) -> FakeModel:
        return self.server.fake

    def claude(self, *args: str) -> dict[str, Any]:
        """Run `claude -p ...`; return its JSON result."""
        env = {k: v for k, v in os.environ.items() if not k.startswith(("ANTHROPIC_", "CLAUDE"))}
        env.update(
            HOME=str(self.home),
            CLAUDE_CONFIG_DIR=str(self.home / ".claude"),
            XDG_CONFIG_HOME=str(self.home / ".config"),
            ANTHROPIC_BASE_URL=self.server.url,
            ANTHROPIC_API_KEY="sk-ant-test-dummy",
            DISABLE_TELEMETRY="1",
            DISABLE_AUTOUPDATER="1",
            DISABLE_ERROR_REPORTING="1",
            DISABLE_BUG_COMMAND="1",
            CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC="1",
            # lessons on PATH, as after `pipx install`: the committed launcher finds it.
            PATH=f"{INSTALL_BIN}{os.pathsep}{env.get('PATH', '/usr/bin:/bin')}",
        )
        done = subprocess.run(
            [str(CLAUDE), "-p", *args, "--output-format", "json"],
            cwd=self.root,
            env=env,
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
            timeout=180,
            check=False,
        )
        assert done.returncode == 0, done.stderr + done.stdout
        result: dict[str, Any] = json.loads(done.stdout)
        return result

    def lessons(self, *args: str) -> str:
        """Run `python -m lessons_cli ...` in the repo; return its stdout."""
        done = subprocess.run(
            [sys.executable, "-m", "lessons_cli", *args],
            cwd=self.root,
            check=True,
            capture_output=True,
            text=True,
            timeout=60,
        )
        return done.stdout

    def transcript(self, session_id: str) -> Path:
        """The JSONL file the client keeps for ``session_id``."""
        (path,) = (self.home / ".claude" / "projects").glob(f"*/{session_id}.jsonl")
        return path


def git(root: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=root, check=True, capture_output=True, timeout=60)


def make_project(tmp_path: Path) -> Project:
    """A git repo with two lessons, wired with `lessons init --claude-code`; close its server."""
    root = tmp_path / "repo"
    (root / "src").mkdir(parents=True)
    (root / "scripts").mkdir()
    (root / "src" / "app.py").write_text("VALUE = 1\n")
    (root / "scripts" / "release.sh").write_text("touch released.txt\n")
    git(root, "init", "-q")
    git(root, "add", "-A")
    git(root, "-c", "user.email=t@example.com", "-c", "user.name=t", "commit", "-qm", "init")
    home = tmp_path / "home"
    home.mkdir()
    server = FakeServer(FakeModel(scenarios={}, probe=(root / "released.txt").exists))
    project = Project(root, home, server)
    try:
        project.lessons("init", "--claude-code")
        project.lessons(
            "add", RELEASE_RULE, "--topic", "release", "--trigger-cmd", r"scripts/release\.sh"
        )
        project.lessons("add", APP_RULE, "--topic", "code", "--trigger-file", "src/app.py")
    except BaseException:
        server.close()
        raise
    return project


def write_call(root: Path, rel: str, content: str) -> ToolCall:
    return ToolCall("Write", {"file_path": str(root / rel), "content": content})


def edit_call(root: Path, old: str, new: str) -> ToolCall:
    path = str(root / "src" / "app.py")
    return ToolCall("Edit", {"file_path": path, "old_string": old, "new_string": new})


def bash_call(command: str) -> ToolCall:
    return ToolCall("Bash", {"command": command, "description": "run it"})
