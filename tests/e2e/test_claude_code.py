"""The real Claude Code CLI, wired with `lessons init --claude-code`, against a fake model.

`bash scripts/test` installs the pinned client into ./.e2e. Each test drives `claude -p`
in a temp git repo whose home and config directories are temp folders too; the model is
`fake_anthropic.FakeModel` on a free loopback port, which issues scripted tool calls and
records every request, so the assertions read exactly what reached the model and when.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from lessons_core.delivery import GATE_PREFIX
from tests.e2e.fake_anthropic import FakeModel, FakeServer, ToolCall, result_text

pytestmark = pytest.mark.e2e

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

    def lessons(self, *args: str) -> None:
        subprocess.run(
            [sys.executable, "-m", "lessons_cli", *args],
            cwd=self.root,
            check=True,
            capture_output=True,
            timeout=60,
        )


def _git(root: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=root, check=True, capture_output=True, timeout=60)


@pytest.fixture
def project(tmp_path: Path) -> Iterator[Project]:
    """A git repo with two lessons, wired with `lessons init --claude-code`."""
    if not CLAUDE.exists():
        pytest.fail(f"the Claude Code CLI is not installed at {CLAUDE}; run 'bash scripts/test'")
    root = tmp_path / "repo"
    (root / "src").mkdir(parents=True)
    (root / "scripts").mkdir()
    (root / "src" / "app.py").write_text("VALUE = 1\n")
    (root / "scripts" / "release.sh").write_text("touch released.txt\n")
    _git(root, "init", "-q")
    _git(root, "add", "-A")
    _git(root, "-c", "user.email=t@example.com", "-c", "user.name=t", "commit", "-qm", "init")
    home = tmp_path / "home"
    home.mkdir()
    server = FakeServer(FakeModel(scenarios={}, probe=(root / "released.txt").exists))
    project = Project(root, home, server)
    project.lessons("init", "--claude-code")
    project.lessons(
        "add", RELEASE_RULE, "--topic", "release", "--trigger-cmd", r"scripts/release\.sh"
    )
    project.lessons("add", APP_RULE, "--topic", "code", "--trigger-file", "src/app.py")
    try:
        yield project
    finally:
        server.close()


def _blob(request: dict[str, Any]) -> str:
    return json.dumps(request["messages"])


def _first_with(requests: list[dict[str, Any]], text: str) -> int:
    return next(i for i, r in enumerate(requests) if text in _blob(r))


def _tool_results(request: dict[str, Any]) -> list[dict[str, Any]]:
    return [
        block
        for message in request["messages"]
        if isinstance(message.get("content"), list)
        for block in message["content"]
        if block.get("type") == "tool_result"
    ]


def _write(root: Path, rel: str, content: str) -> ToolCall:
    return ToolCall("Write", {"file_path": str(root / rel), "content": content})


def _edit(root: Path, old: str, new: str) -> ToolCall:
    path = str(root / "src" / "app.py")
    return ToolCall("Edit", {"file_path": path, "old_string": old, "new_string": new})


def _bash(command: str) -> ToolCall:
    return ToolCall("Bash", {"command": command, "description": "run it"})


def test_gate_delivers_the_rule_before_the_command_runs_and_the_retry_runs(
    project: Project,
) -> None:
    """The rule reaches the model while released.txt does not exist; the retry creates it."""
    fake = project.fake
    fake.scenarios["gate"] = [_bash("bash scripts/release.sh"), _bash("bash scripts/release.sh")]
    result = project.claude("SCENARIO:gate release it", "--allowedTools", TOOLS)
    first = _first_with(fake.requests, RELEASE_RULE)
    assert fake.observed[first] is False  # the model read the rule before anything ran
    denial = _tool_results(fake.requests[first])[-1]
    assert denial["is_error"] is True
    assert GATE_PREFIX in result_text(denial)
    assert (project.root / "released.txt").exists()  # the retried call ran
    assert [d["tool_name"] for d in result["permission_denials"]] == ["Bash"]
    # The second matching call in the same session added nothing: shown once, gated once.
    assert _blob(fake.requests[-1]).count(RELEASE_RULE) == 1


def test_context_reaches_the_model_after_the_call_and_only_once(project: Project) -> None:
    """The file rule arrives in the request right after the Write; the Edit adds nothing."""
    fake = project.fake
    fake.scenarios["context"] = [
        _write(project.root, "src/app.py", "VALUE = 2\n"),
        _edit(project.root, "VALUE = 2", "VALUE = 3"),
    ]
    result = project.claude("SCENARIO:context change the app", "--allowedTools", TOOLS)
    assert result["permission_denials"] == []
    first = _first_with(fake.requests, APP_RULE)
    after_write = next(i for i, r in enumerate(fake.requests) if _tool_results(r))
    assert first == after_write  # not before the call: beside its result
    assert not _tool_results(fake.requests[first])[0].get("is_error")
    assert (project.root / "src" / "app.py").read_text() == "VALUE = 3\n"
    assert _blob(fake.requests[-1]).count(APP_RULE) == 1


def test_after_compact_the_rule_is_delivered_again(project: Project) -> None:
    """/compact (run with --resume) resets the session: the same edit brings the rule again."""
    fake = project.fake
    fake.scenarios["before"] = [_write(project.root, "src/app.py", "VALUE = 2\n")]
    fake.scenarios["again"] = [_edit(project.root, "VALUE = 2", "VALUE = 3")]
    fake.scenarios["after"] = [_edit(project.root, "VALUE = 3", "VALUE = 4")]
    session = project.claude("SCENARIO:before edit", "--allowedTools", TOOLS)["session_id"]
    assert _blob(fake.requests[-1]).count(APP_RULE) == 1
    start = len(fake.requests)
    project.claude("SCENARIO:again edit", "--resume", session, "--allowedTools", TOOLS)
    assert all(_blob(r).count(APP_RULE) == 1 for r in fake.requests[start:])  # resume keeps
    project.claude("/compact", "--resume", session)
    start = len(fake.requests)
    project.claude("SCENARIO:after edit", "--resume", session, "--allowedTools", TOOLS)
    counts = [_blob(r).count(APP_RULE) for r in fake.requests[start:]]
    assert counts[0] == 0  # compaction dropped it from the conversation...
    assert counts[-1] == 1  # ...and the next edit delivered it again
    assert (project.root / "src" / "app.py").read_text() == "VALUE = 4\n"


def test_uncovered_calls_and_pure_reads_add_no_text(project: Project) -> None:
    """A write no lesson covers, cat and Read of a covered file: no hook text at all."""
    fake = project.fake
    fake.scenarios["quiet"] = [
        _write(project.root, "docs/notes.md", "# Notes\n"),
        _bash("cat src/app.py && ls scripts"),
        ToolCall("Read", {"file_path": str(project.root / "src" / "app.py")}),
        _bash("echo done > out.txt"),
    ]
    result = project.claude("SCENARIO:quiet look around", "--allowedTools", TOOLS)
    assert result["permission_denials"] == []
    assert (project.root / "out.txt").exists()
    for request in fake.requests:
        text = _blob(request)
        assert APP_RULE not in text
        assert RELEASE_RULE not in text
        assert "PreToolUse:" not in text  # Claude Code labels every hook's added context
