"""A temp git repo wired with `lessons init --cline`, driven by the real Cline CLI.

`bash scripts/test` installs the pinned client into ./.e2e. It runs `cline --json PROMPT`
(act mode, every tool approved) with its home in a temp folder, against
`fake_chat_completions.FakeModel` on a free loopback port, set as its
`openai-compatible` provider in the home's settings. `CLINE_SESSION_BACKEND_MODE=local`
keeps each run in its own process: without it the client leaves a hub process listening
on 127.0.0.1 after it exits. `processes_left` finds any process still running with the
temp home, so a test can prove nothing outlived the run.
"""

from __future__ import annotations

import json
import os
import subprocess
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tests.e2e.copilot_project import E2E
from tests.e2e.fake_chat_completions import (
    PROMPT_TOKENS,
    SUMMARY_TEXT,
    FakeModel,
    completed_calls,
    newest_scenario,
)
from tests.e2e.fake_server import ToolCall
from tests.e2e.sample_repo import ClientProject, open_project, released

CLINE = E2E / "node_modules" / ".bin" / "cline"
MODEL = "fake-model"
# Cline compacts when a request nears its context window (128,000 tokens for a model it
# does not know): a reply reporting this many prompt tokens starts a compaction.
FULL_PROMPT_TOKENS = 990_000


@dataclass
class ClineFake(FakeModel):
    """The fake model for Cline, whose compaction request holds the session as text in one
    user message: the calls done so far are carried into the summary from the request
    before it, so the scenario goes on after the compaction where it was."""

    done: dict[str, set[str]] = field(default_factory=dict)

    def reply(self, body: dict[str, Any], index: int) -> tuple[dict[str, Any], int]:
        messages = body.get("messages", [])
        if body.get("tools"):
            scenario = newest_scenario(messages)
            if scenario:
                self.done[scenario] = completed_calls(messages, scenario)
            return super().reply(body, index)
        carried = " ".join(
            f"SCENARIO:{name} CALLS-DONE:{','.join(sorted(calls))}"
            for name, calls in self.done.items()
        )
        return {"role": "assistant", "content": f"{SUMMARY_TEXT} {carried}"}, PROMPT_TOKENS


@dataclass
class ClineProject(ClientProject[ClineFake]):
    def env(self) -> dict[str, str]:
        """The client's environment: temp home, local sessions only, no self-update."""
        return self.client_env(
            ("CLINE", "OPENAI"),
            self.on_path,
            CLINE_SESSION_BACKEND_MODE="local",
            CLINE_NO_AUTO_UPDATE="1",
            TERM="dumb",
            # Cline gives its plugin process 4 s to start, too few on a loaded machine.
            CLINE_PLUGIN_IMPORT_TIMEOUT_MS="60000",
            # Each hook answers in its own process: none outlives the run.
            LESSONS_HOOK_SERVER="0",
        )

    def settle(self) -> None:
        """The fake model as the provider, as `cline auth -p openai-compatible` writes it."""
        settings = {
            "provider": "openai-compatible",
            "apiKey": "dummy",
            "model": MODEL,
            "baseUrl": f"{self.server.url}/v1",
        }
        providers = {
            "version": 1,
            "lastUsedProvider": "openai-compatible",
            "modes": {},
            "providers": {
                "openai-compatible": {
                    "settings": settings,
                    "updatedAt": "2026-01-01T00:00:00.000Z",
                    "tokenSource": "manual",
                }
            },
        }
        path = self.home / ".cline" / "data" / "settings" / "providers.json"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(providers))

    def warm(self) -> None:
        """`.lessons/run doctor` as the client's user, as `lessons init` says to run next:
        the launcher remembers where lessons is and the index is built, so no first hook
        of a run pays for that (Cline waits for a plugin's hook 3 s at most)."""
        launcher = str(self.root / ".lessons" / "run")
        subprocess.run(
            ["sh", launcher, "doctor"], cwd=self.root, env=self.env(), capture_output=True,
            timeout=120, check=True,
        )  # fmt: skip

    def cline(self, prompt: str) -> list[dict[str, Any]]:
        """Run `cline --json PROMPT`; return its events. Nothing it started may outlive it."""
        done = self.run_client([str(CLINE), "--json", prompt], self.env())
        assert processes_left(self.home) == []
        lines = [line for line in done.stdout.splitlines() if line.startswith("{")]
        return [json.loads(line) for line in lines]


def processes_left(home: Path) -> list[str]:
    """The command lines of running processes whose environment has ``HOME=home``."""
    wanted = f"HOME={home}".encode()
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit() or int(entry.name) == os.getpid():
            continue
        try:
            environ = (entry / "environ").read_bytes().split(b"\0")
            command = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode()
        except OSError:  # gone, or another user's
            continue
        if wanted in environ:
            found.append(command)
    return found


def make_cline_project(tmp_path: Path) -> ClineProject:
    """A git repo with two lessons, wired with `lessons init --cline`."""
    fake = ClineFake(scenarios={}, probe=released(tmp_path))
    fake.full_prompt_tokens = FULL_PROMPT_TOKENS
    project = open_project(ClineProject, tmp_path, fake, "--cline")
    project.settle()
    project.warm()
    return project


def shell_call(*commands: str) -> ToolCall:
    return ToolCall("run_commands", {"commands": list(commands)})


def read_call(root: Path, name: str = "src/app.py") -> ToolCall:
    return ToolCall("read_files", {"files": [{"path": str(root / name)}]})


def edit_call(root: Path, old: str, new: str) -> ToolCall:
    path = str(root / "src" / "app.py")
    return ToolCall("editor", {"path": path, "old_text": old, "new_text": new})


def create_call(path: Path, text: str) -> ToolCall:
    """`editor` without `old_text`: Cline creates the file."""
    return ToolCall("editor", {"path": str(path), "new_text": text})
