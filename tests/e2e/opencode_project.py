"""A temp git repo wired with `lessons init --opencode` (or `--kilo`), driven by the real
OpenCode CLI (or Kilo Code CLI, its fork).

`bash scripts/test` installs the pinned clients into ./.e2e. Each runs `CLI run PROMPT`
with its home in a temp folder against `fake_chat_completions.FakeModel` on a free loopback
port: the provider comes in `OPENCODE_CONFIG_CONTENT` (Kilo: `KILO_CONFIG_CONTENT`), so the
repo holds nothing but what `lessons init` wrote, and every tool is allowed.

At start both clients install their plugin package from the npm registry into every folder
they load plugins from, and wait for it before loading any plugin: offline that is a hang.
What makes them skip it (an empty `node_modules/` and a `package-lock.json` naming the
package, beside the plugin folder) is written here by the tests, not by `lessons init`
(docs/hooks.md).
"""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import time
import urllib.error
import urllib.request
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tests.e2e.copilot_project import E2E
from tests.e2e.fake_chat_completions import FakeModel
from tests.e2e.fake_server import ToolCall
from tests.e2e.sample_repo import ClientProject, open_project, released

# Compaction starts when a reply reports a prompt this close to the model's context limit.
CONTEXT_LIMIT = 20_000
FULL_PROMPT_TOKENS = 19_500
# How long one `CLI run` may take before it counts as hung (offline, a plugin package
# install would wait for ever).
RUN_SECONDS = 360


@dataclass(frozen=True)
class Client:
    """What differs between OpenCode and Kilo for a test."""

    name: str  # the `lessons init` flag and `lessons hook` harness
    binary: Path
    folder: str  # the project's and the user's config folder name
    prefix: str  # of the client's environment variables
    packages: tuple[str, ...]  # the plugin packages it installs at start


OPENCODE = Client(
    "opencode",
    E2E / "node_modules" / ".bin" / "opencode",
    ".opencode",
    "OPENCODE",
    ("@opencode-ai/plugin",),
)
KILO = Client(
    "kilo",
    E2E / "node_modules" / ".bin" / "kilo",
    ".kilo",
    "KILO",
    ("@kilocode/plugin", "@opencode-ai/plugin"),
)


def skip_plugin_install(folder: Path, packages: tuple[str, ...]) -> None:
    """What makes the client take ``packages`` as installed in ``folder``: an empty
    node_modules/ and a lock naming them (its `Npm.install` skips such a folder)."""
    (folder / "node_modules").mkdir(parents=True, exist_ok=True)
    lock = {"packages": {"": {"dependencies": dict.fromkeys(packages, "*")}}}
    (folder / "package-lock.json").write_text(json.dumps(lock))


@dataclass
class OpenCodeProject(ClientProject[FakeModel]):
    client: Client = OPENCODE

    def config(self) -> str:
        """The client's config: the fake provider and model, every tool allowed."""
        model = {"name": "fake-model", "limit": {"context": CONTEXT_LIMIT, "output": 4096}}
        provider = {
            "npm": "@ai-sdk/openai-compatible",
            "name": "fake",
            "options": {"baseURL": f"{self.server.url}/v1", "apiKey": "dummy"},
            "models": {"fake-model": model},
        }
        allow = {"edit": "allow", "bash": "allow", "external_directory": "allow"}
        config = {
            "provider": {"fake": provider},
            "model": "fake/fake-model",
            "small_model": "fake/fake-model",
            "permission": allow,
            "autoupdate": False,
            "share": "disabled",
        }
        return json.dumps(config)

    def env(self) -> dict[str, str]:
        """Temp home, the config, nothing fetched from the network, lessons findable."""
        p = self.client.prefix
        switches = ("AUTOUPDATE", "MODELS_FETCH", "LSP_DOWNLOAD", "SHARE", "DEFAULT_PLUGINS")
        return self.client_env(
            (p, "OPENAI"),
            self.on_path,
            **{f"{p}_CONFIG_CONTENT": self.config()},
            **{f"{p}_DISABLE_{switch}": "1" for switch in switches},
            **{f"{p}_DISABLE_CLAUDE_CODE": "1", "KILO_TELEMETRY_LEVEL": "off"},
            # The client takes its folder from PWD, not from the folder it starts in.
            PWD=str(self.root),
        )

    def settle(self) -> None:
        """No plugin package install, in the project and the user's config folder."""
        user = self.home / ".config" / self.client.folder.lstrip(".")
        for folder in (self.root / self.client.folder, user):
            skip_plugin_install(folder, self.client.packages)

    def run(self, prompt: str, *args: str) -> str:
        """`CLI run PROMPT ...`; its output. Kilo alone takes seconds to start (a Bun
        binary of 290 MB, its sandbox and database), so a run is given longer than the
        other clients' before it counts as hung."""
        argv = [str(self.client.binary), "run", *args, prompt]
        client = subprocess.Popen(
            argv,
            cwd=self.root,
            env=self.env(),
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            start_new_session=True,
        )
        try:
            out, err = client.communicate(timeout=RUN_SECONDS)
        finally:
            # Kilo's command is a node script that starts the real binary: stopping the
            # script alone would leave the binary running.
            _stop_group(client)
        assert client.returncode == 0, err + out
        return out

    def serve(self, prompt: str, until: Callable[[], bool]) -> None:
        """`CLI serve` on a free loopback port, as the TUI runs it: a session sent
        ``prompt`` over its HTTP API, then left running until ``until()`` holds (at most
        a minute); the server is stopped then. `CLI run` ends at the session's first
        idle, so a message a plugin sends then is never answered there."""
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            port = probe.getsockname()[1]
        argv = [str(self.client.binary), "serve", "--port", str(port), "--hostname", "127.0.0.1"]
        server = subprocess.Popen(
            argv,
            cwd=self.root,
            env=self.env(),
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
        )
        try:
            api = f"http://127.0.0.1:{port}"
            _wait(lambda: _answers(f"{api}/session"), 90)
            session = _post(f"{api}/session", {})
            text = {"parts": [{"type": "text", "text": prompt}]}
            _post(f"{api}/session/{session['id']}/message", text)
            _wait(until, 60)
        finally:
            _stop_group(server)


def _stop_group(process: subprocess.Popen[str] | subprocess.Popen[bytes]) -> None:
    """End ``process`` and whatever it started in its process group (its own session)."""
    try:
        os.killpg(process.pid, signal.SIGTERM)
    except ProcessLookupError:
        return
    try:
        process.wait(timeout=30)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        process.wait(timeout=30)


def _post(url: str, body: dict[str, Any]) -> Any:
    data = json.dumps(body).encode()
    request = urllib.request.Request(url, data, {"content-type": "application/json"})
    with urllib.request.urlopen(request, timeout=150) as answer:
        return json.loads(answer.read() or b"null")


def _answers(url: str) -> bool:
    try:
        with urllib.request.urlopen(url, timeout=5):
            return True
    except (urllib.error.URLError, OSError):
        return False


def _wait(done: Callable[[], bool], seconds: float) -> None:
    """Poll ``done`` until it holds; fail after ``seconds``."""
    end = time.monotonic() + seconds
    while not done():
        assert time.monotonic() < end, f"still waiting after {seconds} s"
        time.sleep(0.5)


def make_project(tmp_path: Path, client: Client) -> OpenCodeProject:
    """A git repo with two lessons, wired with `lessons init --CLIENT`; close its server."""
    fake = FakeModel(scenarios={}, probe=released(tmp_path))
    fake.full_prompt_tokens = FULL_PROMPT_TOKENS
    project = open_project(OpenCodeProject, tmp_path, fake, f"--{client.name}")
    project.client = client
    project.settle()
    return project


def shell_call(command: str) -> ToolCall:
    return ToolCall("bash", {"command": command, "description": "run it"})


def read_call(root: Path, name: str = "src/app.py") -> ToolCall:
    return ToolCall("read", {"filePath": str(root / name)})


def edit_call(root: Path, old: str, new: str) -> ToolCall:
    path = str(root / "src" / "app.py")
    return ToolCall("edit", {"filePath": path, "oldString": old, "newString": new})


def write_call(path: Path, content: str) -> ToolCall:
    return ToolCall("write", {"filePath": str(path), "content": content})
