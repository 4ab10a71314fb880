"""A temp git repo wired with `lessons init --codex`, driven by the real Codex CLI.

`bash scripts/test` installs the pinned client into ./.e2e. Its home (``HOME``,
``CODEX_HOME``) is a temp folder whose config.toml points a custom model provider at
``fake_responses.FakeResponses`` on a free loopback port; ``trust`` writes the project and
hook trust a user gives in Codex's own trust steps (see codex_trust).
"""

from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass
from pathlib import Path

from tests.e2e.codex_trust import hook_trust, project_trust
from tests.e2e.fake_responses import FULL_CONTEXT_TOKENS, FakeResponses
from tests.e2e.fake_server import ToolCall
from tests.e2e.sample_repo import ClientProject, recording_command, serve_wired_repo

CODEX = Path(__file__).resolve().parents[2] / ".e2e" / "node_modules" / ".bin" / "codex"
# Codex prints each hook run to stderr: "hook: PreToolUse" when it starts, then the event
# and its status (Completed, Blocked, Failed, ...) when it ends.
_HOOK_RUN = re.compile(r"^hook: (\w+) (\w+)$", re.MULTILINE)


@dataclass(frozen=True)
class Run:
    """One `codex exec`: its final message, stderr, and the hook runs it reported."""

    stdout: str
    stderr: str
    hooks: list[tuple[str, str]]


class Project(ClientProject[FakeResponses]):
    @property
    def codex_home(self) -> Path:
        return self.home / ".codex"

    @property
    def config(self) -> Path:
        return self.codex_home / "config.toml"

    def env(self) -> dict[str, str]:
        """The client's environment: temp home, no OpenAI, Codex or lessons settings of the
        host, and `lessons` on PATH as after `pipx install` (the launcher finds it there)."""
        skipped = ("OPENAI_", "CODEX_", "LESSONS_")
        env = {k: v for k, v in os.environ.items() if not k.startswith(skipped)}
        path = self.hook_path(env.get("PATH", "/usr/bin:/bin"), self.on_path)
        env.update(HOME=str(self.home), CODEX_HOME=str(self.codex_home), PATH=path)
        return env

    def trust(self) -> None:
        """The documented trust steps: trust the folder, then trust its hooks as they are."""
        with self.config.open("a") as config:
            config.write("\n" + project_trust(self.root))
        self.trust_hooks()

    def trust_hooks(self) -> None:
        """What "Trust all and continue" in Codex's hooks review writes."""
        with self.config.open("a") as config:
            config.write(hook_trust(self.root / ".codex" / "hooks.json"))

    def codex(self, prompt: str, *args: str) -> Run:
        """Run `codex exec PROMPT` in the repo; every hook it reports must have run cleanly."""
        done = self.run_client([str(CODEX), "exec", "--color", "never", *args, prompt], self.env())
        hooks = _HOOK_RUN.findall(done.stderr)
        assert all(status in {"Completed", "Blocked"} for _, status in hooks), done.stderr
        log = self.root / ".lessons" / "local" / "hook.log"
        assert not log.exists() or not log.read_text(), log.read_text()
        return Run(done.stdout, done.stderr, hooks)

    def record_hook_payloads(self, target: Path) -> None:
        """Add a user-level hook (trusted too) that appends each event's stdin to ``target``.

        It lives in ``$CODEX_HOME/hooks.json``, beside and not inside the repo's wiring.
        """
        command = recording_command(target)
        handler = {"hooks": [{"type": "command", "command": command, "timeout": 10}]}
        events = (
            "SessionStart", "UserPromptSubmit", "PreToolUse", "PostToolUse", "PreCompact", "Stop"
        )  # fmt: skip
        hooks_file = self.codex_home / "hooks.json"
        hooks_file.write_text(json.dumps({"hooks": {event: [handler] for event in events}}))
        with self.config.open("a") as config:
            config.write(hook_trust(hooks_file))


def make_project(tmp_path: Path) -> Project:
    """A git repo with two lessons, wired with `lessons init --codex`; close its server.

    Nothing is trusted yet: call ``Project.trust`` for that.
    """
    root = (tmp_path / "repo").resolve()
    released, app = root / "released.txt", root / "src" / "app.py"
    fake = FakeResponses(scenarios={}, probe=lambda: (released.exists(), app.read_text()))
    server = serve_wired_repo(root, fake, "--codex")
    project = Project(root, tmp_path / "home", server)
    project.codex_home.mkdir(parents=True)
    project.config.write_text(_client_config(server.url))
    return project


def _client_config(url: str) -> str:
    """A user config.toml: the fake as a Responses API provider, no approvals, no sandbox
    (hooks run outside it anyway), and a compaction threshold the fake can cross."""
    return f"""\
model = "gpt-5.5"
model_provider = "fake"
approval_policy = "never"
sandbox_mode = "danger-full-access"
model_auto_compact_token_limit = {FULL_CONTEXT_TOKENS // 2}

[model_providers.fake]
name = "fake model on loopback"
base_url = "{url}/v1"
wire_api = "responses"

[analytics]
enabled = false
"""


def shell_call(command: str) -> ToolCall:
    """A call of Codex's shell tool (hooks see it as ``Bash``)."""
    return ToolCall("exec_command", {"cmd": command})


def patch_call(patch: str) -> ToolCall:
    """A call of Codex's freeform ``apply_patch`` tool."""
    return ToolCall("apply_patch", {"input": patch})


def update_patch(path: str, old: str, new: str) -> str:
    return f"*** Begin Patch\n*** Update File: {path}\n@@\n-{old}\n+{new}\n*** End Patch\n"
