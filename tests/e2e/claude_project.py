"""A temp git repo wired with `lessons init --claude-code`, driven by the real Claude Code CLI.

`bash scripts/test` installs the pinned client into ./.e2e. Its home and config
directories are temp folders too, and the model is `fake_anthropic.FakeModel` on a free
loopback port.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tests.e2e.fake_anthropic import FakeModel
from tests.e2e.fake_server import ToolCall
from tests.e2e.sample_repo import ClientProject, open_project, recording_command, released

CLAUDE = Path(__file__).resolve().parents[2] / ".e2e" / "node_modules" / ".bin" / "claude"
TOOLS = "Bash,Write,Edit,Read"


@dataclass
class Project(ClientProject[FakeModel]):
    def claude(self, *args: str, **values: str) -> dict[str, Any]:
        """Run `claude -p ...` (``values``: more environment variables); return its JSON
        result."""
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
            PATH=self.hook_path(env.get("PATH", "/usr/bin:/bin"), self.on_path),
        )
        env.update(values)
        done = self.run_client([str(CLAUDE), "-p", *args, "--output-format", "json"], env)
        result: dict[str, Any] = json.loads(done.stdout)
        return result

    def transcript(self, session_id: str) -> Path:
        """The JSONL file the client keeps for ``session_id``."""
        (path,) = (self.home / ".claude" / "projects").glob(f"*/{session_id}.jsonl")
        return path


def make_project(tmp_path: Path) -> Project:
    """A git repo with two lessons, wired with `lessons init --claude-code`; close its server."""
    fake = FakeModel(scenarios={}, probe=released(tmp_path))
    return open_project(Project, tmp_path, fake, "--claude-code")


CLAUDE_EVENTS = (
    "SessionStart", "UserPromptSubmit", "PreToolUse", "PostToolUseFailure", "PreCompact", "Stop"
)  # fmt: skip


def record_payloads(settings: Path, target: Path, events: tuple[str, ...]) -> None:
    """Add a hook for each of ``events`` to the user settings file ``settings`` (beside, not
    inside, the repo's wiring) that appends its stdin to ``target``."""
    data = json.loads(settings.read_text()) if settings.exists() else {}
    handler = {"type": "command", "command": recording_command(target), "timeout": 10}
    data["hooks"] = {event: [{"matcher": "*", "hooks": [handler]}] for event in events}
    settings.parent.mkdir(parents=True, exist_ok=True)
    settings.write_text(json.dumps(data))


def write_call(root: Path, rel: str, content: str) -> ToolCall:
    return ToolCall("Write", {"file_path": str(root / rel), "content": content})


def edit_call(root: Path, old: str, new: str) -> ToolCall:
    path = str(root / "src" / "app.py")
    return ToolCall("Edit", {"file_path": path, "old_string": old, "new_string": new})


def bash_call(command: str) -> ToolCall:
    return ToolCall("Bash", {"command": command, "description": "run it"})
