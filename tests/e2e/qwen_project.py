"""A temp git repo wired with `lessons init --qwen`, driven by the real Qwen Code CLI.

`bash scripts/test` installs the pinned client into ./.e2e. It runs with its home in a temp
folder against `fake_chat_completions.FakeModel` on a free loopback port
(`OPENAI_BASE_URL`), in `--yolo` mode so no tool call waits for approval.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from tests.e2e.copilot_project import E2E
from tests.e2e.fake_chat_completions import FakeModel
from tests.e2e.fake_server import ToolCall
from tests.e2e.sample_repo import ClientProject, open_project, released

QWEN = E2E / "node_modules" / ".bin" / "qwen"
MODEL = "qwen3-coder-plus"
# Qwen Code compacts past 85% of its context window (1,000,000 tokens for this model).
FULL_PROMPT_TOKENS = 900_000


@dataclass
class QwenProject(ClientProject[FakeModel]):
    def env(self) -> dict[str, str]:
        """The client's environment: temp home, the fake model, this install findable."""
        return self.client_env(
            ("OPENAI", "QWEN", "DASHSCOPE"),
            self.on_path,
            OPENAI_BASE_URL=f"{self.server.url}/v1",
            OPENAI_API_KEY="dummy",
            OPENAI_MODEL=MODEL,
            QWEN_CODE_SUPPRESS_YOLO_WARNING="1",
        )

    def settle(self) -> None:
        """The user settings a scripted run needs: no self-update from the registry."""
        settings = self.home / ".qwen" / "settings.json"
        settings.parent.mkdir(parents=True, exist_ok=True)
        settings.write_text(json.dumps({"general": {"enableAutoUpdate": False}}))

    def qwen(self, prompt: str, *args: str) -> str:
        """Run `qwen -p PROMPT --yolo ...`; return its output."""
        return self.run_client([str(QWEN), "-p", prompt, "--yolo", *args], self.env()).stdout


def make_qwen_project(tmp_path: Path) -> QwenProject:
    """A git repo with two lessons, wired with `lessons init --qwen`; close its server."""
    fake = FakeModel(scenarios={}, probe=released(tmp_path))
    fake.full_prompt_tokens = FULL_PROMPT_TOKENS
    project = open_project(QwenProject, tmp_path, fake, "--qwen")
    project.settle()
    return project


def shell_call(command: str) -> ToolCall:
    return ToolCall("run_shell_command", {"command": command, "description": "run it"})


def read_call(root: Path) -> ToolCall:
    return ToolCall("read_file", {"file_path": str(root / "src" / "app.py")})


def edit_call(root: Path, old: str, new: str) -> ToolCall:
    path = str(root / "src" / "app.py")
    return ToolCall("edit", {"file_path": path, "old_string": old, "new_string": new})
