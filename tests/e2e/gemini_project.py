"""A temp git repo wired with `lessons init --gemini`, driven by the real Gemini CLI.

`bash scripts/test` installs the pinned client into ./.e2e. Its home is a temp folder
whose user settings hold only what a headless user sets (API-key auth, no usage
statistics, no update check) plus the client's own local telemetry: with ``logPrompts``
on, the client writes every hook run it made (event, stdin payload, stdout, stderr, exit
code) to a file, which is how these tests see the hooks from the client's side. The model
is ``fake_gemini.FakeGemini`` on a free loopback port.

Project hooks run only in a trusted folder: ``gemini(trust_env=True)`` sets
``GEMINI_CLI_TRUST_WORKSPACE=true``, ``trust_folder`` writes ``trustedFolders.json``.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tests.e2e.fake_gemini import FakeGemini
from tests.e2e.fake_server import ToolCall
from tests.e2e.sample_repo import ClientProject, serve_wired_repo

GEMINI = Path(__file__).resolve().parents[2] / ".e2e" / "node_modules" / ".bin" / "gemini"
MODEL = "gemini-2.5-flash"
HOOK_NAME = "lessons"  # the name `lessons init --gemini` gives its hook entries
# Gemini CLI exits with this code when run headless in a folder it does not trust.
UNTRUSTED_EXIT = 55


@dataclass(frozen=True)
class HookCall:
    """One run of our hook, as the client logged it."""

    event: str
    input: dict[str, Any]
    stdout: str
    stderr: str
    exit_code: int
    success: bool

    @property
    def answer(self) -> dict[str, Any] | None:
        text = self.stdout.strip()
        return json.loads(text) if text else None

    @property
    def tool(self) -> str | None:
        name = self.input.get("tool_name")
        return name if isinstance(name, str) else None


@dataclass
class Project(ClientProject[FakeGemini]):
    runs: int = 0

    def settings(self, **extra: Any) -> None:
        """Write the user settings (``~/.gemini/settings.json``), with ``extra`` keys."""
        base: dict[str, Any] = {
            "security": {"auth": {"selectedType": "gemini-api-key"}},
            "privacy": {"usageStatisticsEnabled": False},
            "general": {"enableAutoUpdate": False, "enableAutoUpdateNotification": False},
            "telemetry": {"enabled": True, "target": "local", "logPrompts": True},
        }
        path = self.home / ".gemini" / "settings.json"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps({**base, **extra}, indent=2))

    def trust_folder(self) -> None:
        """Trust the repo the way the client's own trust prompt records it."""
        path = self.home / ".gemini" / "trustedFolders.json"
        path.write_text(json.dumps({str(self.root): "TRUST_FOLDER"}, indent=2))

    def env(self) -> dict[str, str]:
        """The client's environment: temp home, no Gemini, Google or lessons settings of
        the host, and `lessons` on PATH as after `pipx install` (the launcher finds it)."""
        skipped = ("GEMINI", "GOOGLE", "LESSONS_")
        env = {k: v for k, v in os.environ.items() if not k.startswith(skipped)}
        path = self.hook_path(env.get("PATH", "/usr/bin:/bin"), self.on_path)
        env.update(HOME=str(self.home), PATH=path)
        return env

    def gemini(self, *args: str, trust_env: bool = True, exit_code: int = 0) -> str:
        """Run `gemini ... --yolo` headless in the repo; return its stdout."""
        env = self.env()
        env.update(
            GOOGLE_GEMINI_BASE_URL=self.server.url,
            GEMINI_API_KEY="test-key-not-secret",
            GEMINI_TELEMETRY_OUTFILE=str(self._telemetry(self.runs)),
            # The CLI otherwise starts itself again in a child node (for memory flags).
            GEMINI_CLI_NO_RELAUNCH="true",
        )
        if trust_env:
            env["GEMINI_CLI_TRUST_WORKSPACE"] = "true"
        self.runs += 1
        argv = [str(GEMINI), *args, "--yolo", "-m", MODEL, "--output-format", "json"]
        return self.run_client(argv, env, exit_code).stdout

    def doctor(self) -> tuple[int, list[str]]:
        """`lessons doctor --json` run by this home's user: its exit code and the status
        of each Gemini CLI check."""
        code, checks = self.doctor_checks(self.env(), "gemini")
        return code, [c["status"] for c in checks]

    def _telemetry(self, run: int) -> Path:
        return self.home / f"telemetry-{run}.log"

    def hook_calls(self, run: int | None = None) -> list[HookCall]:
        """Our hook's runs in run ``run`` (every run if None), in the order logged."""
        runs = range(self.runs) if run is None else [run]
        return [call for n in runs for call in _hook_calls(self._telemetry(n))]


def _hook_calls(path: Path) -> list[HookCall]:
    """The client's telemetry file: pretty-printed JSON records, one after another."""
    if not path.exists():
        return []
    text = path.read_text()
    decoder = json.JSONDecoder()
    calls: list[HookCall] = []
    at = 0
    while True:
        while at < len(text) and text[at].isspace():
            at += 1
        if at >= len(text):
            return calls
        record, at = decoder.raw_decode(text, at)
        attributes = record.get("attributes", {}) if isinstance(record, dict) else {}
        if attributes.get("event.name") != "gemini_cli.hook_call":
            continue
        if attributes.get("hook_name") != HOOK_NAME:
            continue
        calls.append(
            HookCall(
                event=attributes["hook_event_name"],
                input=json.loads(attributes["hook_input"]),
                stdout=attributes.get("stdout") or "",
                stderr=attributes.get("stderr") or "",
                exit_code=attributes["exit_code"],
                success=attributes["success"],
            )
        )


def make_project(tmp_path: Path) -> Project:
    """A git repo with two lessons, wired with `lessons init --gemini`; close its server."""
    root = (tmp_path / "repo").resolve()
    fake = FakeGemini(scenarios={}, probe=(root / "released.txt").exists)
    server = serve_wired_repo(root, fake, "--gemini")
    project = Project(root, tmp_path / "home", server)
    project.settings()
    return project


def shell_call(command: str) -> ToolCall:
    return ToolCall("run_shell_command", {"command": command, "description": "run it"})


def write_call(root: Path, rel: str, content: str) -> ToolCall:
    return ToolCall("write_file", {"file_path": str(root / rel), "content": content})


def replace_call(root: Path, old: str, new: str) -> ToolCall:
    path = str(root / "src" / "app.py")
    return ToolCall(
        "replace",
        {"file_path": path, "old_string": old, "new_string": new, "instruction": "change it"},
    )


def read_call(root: Path, rel: str) -> ToolCall:
    return ToolCall("read_file", {"file_path": str(root / rel)})
