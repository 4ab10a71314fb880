"""A temp git repo wired with `lessons init --pi`, driven by the real Pi coding agent.

`bash scripts/test` installs the pinned client into ./.e2e. It runs `pi -p` against
`PiModel` (chat completions) on a free loopback port, declared as a provider in
`$PI_CODING_AGENT_DIR/models.json`; that folder, the home and every XDG folder are temp
folders, and `PI_OFFLINE=1 PI_TELEMETRY=0` keep it off the network. The client loads the
extension `lessons init --pi` wrote (`.pi/extensions/lessons.ts`) on every run.
"""

from __future__ import annotations

import json
import os
import subprocess
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tests.conftest import INSTALL_BIN
from tests.e2e.copilot_project import E2E
from tests.e2e.fake_chat_completions import (
    FakeModel,
    completed_calls,
    newest_scenario,
)
from tests.e2e.fake_server import ToolCall
from tests.e2e.sample_repo import ClientProject, open_project, released

PI = E2E / "node_modules" / ".bin" / "pi"
PROVIDER, MODEL = "fake", "fake-model"
CONTEXT_WINDOW = 128_000
# Pi compacts when the last answer's prompt is within reserveTokens (16,384 by default)
# of the window.
FULL_PROMPT_TOKENS = 120_000
DONE = "All steps are done."
RPC_WAIT_SECONDS = 120


@dataclass
class PiModel(FakeModel):
    """``FakeModel``, and ``full_after``: the scenarios whose closing answer reports a
    full context. Pi decides to compact only when a run ends, from the last answer."""

    full_after: set[str] = field(default_factory=set)

    def reply(self, body: dict[str, Any], index: int) -> tuple[dict[str, Any], int]:
        message, tokens = super().reply(body, index)
        scenario = newest_scenario(body.get("messages", []))
        if message.get("content") == DONE and scenario in self.full_after:
            messages = body["messages"]
            if len(completed_calls(messages, scenario)) == len(self.scenarios[scenario]):
                return message, FULL_PROMPT_TOKENS
        return message, tokens


@dataclass
class PiProject(ClientProject[PiModel]):
    # False: lessons is nowhere the launcher looks (not on PATH, not in ~/.local/bin).
    installed: bool = True

    def agent_dir(self) -> Path:
        return self.home / ".pi" / "agent"

    def settle(self) -> None:
        """The provider of the fake model, in the client's own folder."""
        provider = {
            "baseUrl": f"{self.server.url}/v1",
            "api": "openai-completions",
            "apiKey": "dummy",
            "compat": {"supportsDeveloperRole": False, "supportsReasoningEffort": False},
            "models": [{"id": MODEL, "contextWindow": CONTEXT_WINDOW, "maxTokens": 4096}],
        }
        self.agent_dir().mkdir(parents=True)
        models = {"providers": {PROVIDER: provider}}
        (self.agent_dir() / "models.json").write_text(json.dumps(models))

    def env(self) -> dict[str, str]:
        """The client's environment: temp home and agent folder, offline, no telemetry."""
        env = self.client_env(
            ("PI_",),
            self.on_path,
            PI_CODING_AGENT_DIR=str(self.agent_dir()),
            PI_OFFLINE="1",
            PI_TELEMETRY="0",
        )
        if not self.installed:
            folders = env["PATH"].split(os.pathsep)
            env["PATH"] = os.pathsep.join(d for d in folders if Path(d) != INSTALL_BIN)
        return env

    def rpc(self, prompt: str, done: Callable[[], bool]) -> None:
        """Send PROMPT to a long-lived `pi --mode rpc` (an interactive session as far as
        extensions can tell: it has a UI), wait until ``done()``, then end it."""
        argv = [str(PI), "--provider", PROVIDER, "--model", MODEL, "--mode", "rpc"]
        with subprocess.Popen(
            argv, cwd=self.root, env=self.env(), stdin=subprocess.PIPE,
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, text=True,
        ) as client:  # fmt: skip
            assert client.stdin is not None
            client.stdin.write(json.dumps({"type": "prompt", "message": prompt}) + "\n")
            client.stdin.flush()
            until = time.monotonic() + RPC_WAIT_SECONDS
            while not done() and time.monotonic() < until:
                time.sleep(0.2)
            client.stdin.close()
            client.wait(timeout=60)
        assert done()

    def settings(self, **values: Any) -> None:
        """The client's user settings (``$PI_CODING_AGENT_DIR/settings.json``)."""
        (self.agent_dir() / "settings.json").write_text(json.dumps(values))

    def pi(self, prompt: str, *args: str) -> str:
        """Run `pi -p PROMPT ...` with the fake model; return its output."""
        argv = [str(PI), "--provider", PROVIDER, "--model", MODEL, *args, "-p", prompt]
        return self.run_client(argv, self.env()).stdout


def make_pi_project(tmp_path: Path) -> PiProject:
    """A git repo with two lessons, wired with `lessons init --pi`; close its server."""
    fake = PiModel(scenarios={}, probe=released(tmp_path))
    project = open_project(PiProject, tmp_path, fake, "--pi")
    project.settle()
    return project


def read_call(path: str) -> ToolCall:
    return ToolCall("read", {"path": path})


def edit_call(path: str, old: str, new: str) -> ToolCall:
    return ToolCall("edit", {"path": path, "edits": [{"oldText": old, "newText": new}]})


def write_call(path: str, content: str) -> ToolCall:
    return ToolCall("write", {"path": path, "content": content})


def bash_call(command: str) -> ToolCall:
    return ToolCall("bash", {"command": command})
