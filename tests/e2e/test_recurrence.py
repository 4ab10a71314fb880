"""Recurring failures with the real clients: a command fails twice the same way, and
before the third attempt the lesson covering it comes back as a refusal (Claude Code,
Qwen Code, Copilot CLI, Gemini CLI, Codex CLI); with no lesson covering it, the second failure
brings the stronger nudge (Claude Code).

The fake model issues the same failing call again and again; every command also appends
a line to ``attempts.txt``, so the probe tells how many attempts had run when each
request reached the model.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.e2e import codex_project, copilot_project, gemini_project, qwen_project
from tests.e2e.claude_project import TOOLS, Project, bash_call
from tests.e2e.copilot_project import CopilotProject
from tests.e2e.fake_anthropic import result_text, tool_results
from tests.e2e.fake_server import ToolCall
from tests.e2e.gemini_project import Project as GeminiProject
from tests.e2e.qwen_project import QwenProject

pytestmark = pytest.mark.e2e

# A script, not ``python3 -c``: inline code names no action to count failures under.
SCRIPT = "scripts/nosuchmod_xyz/check.py"
COMMAND = f"echo x >> attempts.txt; python3 {SCRIPT}"
RULE = "Run nosuchmod_xyz checks through scripts/check.sh; the module is not installed."


def _attempts(root: Path) -> int:
    path = root / "attempts.txt"
    return len(path.read_text().splitlines()) if path.exists() else 0


def _write_script(root: Path) -> None:
    """The script the command runs: it imports a module that is not installed."""
    (root / SCRIPT).parent.mkdir(parents=True, exist_ok=True)
    (root / SCRIPT).write_text("import nosuchmod_xyz\n")


def _last_result(request: dict[str, Any]) -> dict[str, Any]:
    return tool_results(request)[-1]


def test_a_command_failing_twice_brings_its_lesson_back_before_the_third_attempt(
    project: Project,
) -> None:
    """Gate, run and fail, run and fail, then the recurrence gate: the model reads the
    rule again, with the failure count and class, before the third attempt ran; the
    retry after it runs."""
    project.lessons("add", RULE, "--topic", "checks", "--trigger-cmd", "nosuchmod_xyz")
    _write_script(project.root)
    fake = project.fake
    fake.probe = lambda: _attempts(project.root)
    # Three steps: the fake model repeats a step the hook refused, as a model would.
    fake.scenarios["recur"] = [bash_call(COMMAND) for _ in range(3)]
    result = project.claude("SCENARIO:recur check it", "--allowedTools", TOOLS)
    # The requests after each call: 1 refused (first showing), 2 and 3 failed, 4 refused
    # as a recurrence, 5 ran.
    results = [_last_result(request) for request in fake.requests[1:6]]
    assert [fake.observed[n] for n in range(1, 6)] == [0, 1, 2, 2, 3]
    assert all(result["is_error"] for result in results)
    recurrence = result_text(results[3])
    assert "This call failed 2 times in this session (exit 1: ModuleNotFoundError)" in recurrence
    assert RULE in recurrence
    assert RULE in result_text(results[0])  # shown before, and shown again past suppression
    assert "failed 2 times" not in result_text(results[0])
    assert len(result["permission_denials"]) == 2
    assert _attempts(project.root) == 3


def test_an_uncovered_command_failing_twice_gets_the_stronger_nudge(project: Project) -> None:
    """No lesson covers the command: the first failure brings the capture nudge, the
    second the stronger one with the same line, the third nothing more."""
    _write_script(project.root)
    fake = project.fake
    fake.scenarios["recur"] = [bash_call(COMMAND) for _ in range(3)]
    project.claude("SCENARIO:recur check it", "--allowedTools", TOOLS)
    blobs = [json.dumps(request["messages"]) for request in fake.requests]
    first = next(n for n, blob in enumerate(blobs) if "That call failed." in blob)
    stronger = next(n for n, blob in enumerate(blobs) if "no project lesson covers it" in blob)
    assert first < stronger
    assert "failed 2 times in this session with the same error" in blobs[stronger]
    assert blobs[-1].count("no project lesson covers it") == 1
    assert blobs[-1].count("That call failed.") == 1
    assert _attempts(project.root) == 3


def _run_qwen(project: QwenProject, prompt: str) -> None:
    project.qwen(prompt)


def _run_codex(project: codex_project.Project, prompt: str) -> None:
    project.codex(prompt)


def _run_copilot(project: CopilotProject, prompt: str) -> None:
    project.copilot(prompt, "--trust-folder")


def _run_gemini(project: GeminiProject, prompt: str) -> None:
    project.gemini("-p", prompt)


CLIENTS: dict[str, tuple[Callable[[str], ToolCall], Callable[[Any, str], None]]] = {
    "qwen_project": (qwen_project.shell_call, _run_qwen),
    "copilot_project": (copilot_project.bash_call, _run_copilot),
    "gemini": (gemini_project.shell_call, _run_gemini),
    "codex": (codex_project.shell_call, _run_codex),
}


@pytest.mark.parametrize("client", list(CLIENTS))
def test_other_clients_bring_the_lesson_back_before_the_third_attempt(
    client: str, request: pytest.FixtureRequest
) -> None:
    """Qwen Code, Copilot CLI (the failure read from postToolUse), Gemini CLI (from
    AfterTool) and Codex CLI (PostToolUse, the exit code read from its session file): the
    same command failing twice, the model reads the recurrence gate with its rule while
    only two attempts ran, and the retry runs."""
    project: Any = request.getfixturevalue(client)
    call, run = CLIENTS[client]
    project.lessons("add", RULE, "--topic", "checks", "--trigger-cmd", "nosuchmod_xyz")
    _write_script(project.root)
    fake = project.fake
    fake.probe = lambda: _attempts(project.root)
    # Each attempt differs in its first part only (its action is the same): Qwen Code and
    # Gemini CLI halt a run that repeats one call verbatim.
    fake.scenarios["recur"] = [call(COMMAND.replace("echo x", f"echo {n}")) for n in range(3)]
    run(project, "SCENARIO:recur check it")
    blobs = [json.dumps(r) for r in fake.requests]
    marker = "This call failed 2 times in this session (exit 1: ModuleNotFoundError)"
    gated = next(n for n, blob in enumerate(blobs) if marker in blob)
    assert RULE in blobs[gated].split(marker, 1)[1]
    assert fake.observed[gated] == 2
    assert _attempts(project.root) == 3
