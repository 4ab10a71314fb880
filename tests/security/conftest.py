"""Shared pieces of the reliability and security tests: the hook tests' project fixture, a
time budget, and one hypothesis profile (fixed seed, no example database) so a run is
repeatable and leaves nothing behind."""

from __future__ import annotations

import json
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

from hypothesis import HealthCheck, settings

from lessons_cli.harnesses import copilot
from tests.hooks.conftest import payload, project

T = TypeVar("T")

__all__ = [
    "ANSWERS",
    "COMMAND",
    "checked_answer",
    "command_calls",
    "event_of",
    "fuzz_settings",
    "project",
    "within",
]


def fuzz_settings(examples: int) -> settings:
    """``examples`` derandomised examples, no deadline (``within`` times what matters)."""
    return settings(
        max_examples=examples,
        derandomize=True,
        database=None,
        deadline=None,
        suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
    )


# The timeout `lessons init` gives each hook in the harness settings: past it, a call
# that waits (on a lock, a pipe) instead of computing has failed.
HOOK_TIMEOUT = 10.0


def within(seconds: float, work: Callable[[], T]) -> T:
    """Run ``work`` and fail the test if it uses more than ``seconds`` of CPU, or waits
    longer than the hook timeout; its result.

    CPU time of this process, not wall time, is held to ``seconds``: on a CI machine whose
    cores are busy with other tests the wall clock can run ten times slower, while the
    work an input costs stays the same.
    """
    # A coverage tracer (scripts/test measures coverage) multiplies the cost of Python
    # code; the budget is for the work, so the tracer is paused while it runs.
    tracer = sys.gettrace()
    sys.settrace(None)
    start, wall = time.process_time(), time.perf_counter()
    try:
        result = work()
    finally:
        took = time.process_time() - start
        sys.settrace(tracer)
    assert took < seconds, f"took {took:.2f}s of CPU, the budget is {seconds}s"
    assert time.perf_counter() - wall < HOOK_TIMEOUT
    return result


# What each harness accepts from a hook, by the events lessons answers: (event, answer
# shape). Claude Code, Codex and Qwen Code share a protocol; Gemini CLI, Cursor and
# Copilot CLI have their own.
_CONTEXT, _DENY = "context", "deny"
ANSWERS: dict[str, dict[str, frozenset[str]]] = {
    "claude-code": {
        "SessionStart": frozenset({_CONTEXT}),
        "UserPromptSubmit": frozenset({_CONTEXT}),
        "PreToolUse": frozenset({_CONTEXT, _DENY}),
        "PostToolUseFailure": frozenset({_CONTEXT}),
    },
    "codex": {
        "SessionStart": frozenset({_CONTEXT}),
        "UserPromptSubmit": frozenset({_CONTEXT}),
        "PreToolUse": frozenset({_CONTEXT, _DENY}),
    },
    "gemini": {
        "SessionStart": frozenset({_CONTEXT}),
        "BeforeAgent": frozenset({_CONTEXT}),
        "BeforeTool": frozenset({_DENY}),
        "AfterTool": frozenset({_CONTEXT}),
    },
    "cursor": {
        "sessionStart": frozenset({_CONTEXT}),
        "beforeShellExecution": frozenset({_DENY}),
        "preToolUse": frozenset({_DENY}),
        "postToolUse": frozenset({_CONTEXT}),
    },
    "copilot": {
        "sessionStart": frozenset({_CONTEXT}),
        "userPromptSubmitted": frozenset({_CONTEXT}),
        "preToolUse": frozenset({_CONTEXT, _DENY}),
        "postToolUseFailure": frozenset({_CONTEXT}),
    },
    "qwen": {
        "SessionStart": frozenset({_CONTEXT}),
        "UserPromptSubmit": frozenset({_CONTEXT}),
        "PreToolUse": frozenset({_DENY}),
        "PostToolUse": frozenset({_CONTEXT}),
        "PostToolUseFailure": frozenset({_CONTEXT}),
    },
}


def event_of(harness: str, data: Any) -> object:
    """The event a payload is for: its ``hook_event_name``, or for Copilot CLI (whose
    payloads name none) what its adapter reads from the fields."""
    if not isinstance(data, dict):
        return None
    if harness == "copilot":
        return copilot.event_of(data)
    return data.get("hook_event_name")


def checked_answer(harness: str, event: object, out: bytes) -> str | None:
    """Assert ``out`` is nothing, or one line of JSON ``harness`` accepts for ``event``;
    return the text it hands the model (None when silent)."""
    if not out:
        return None
    assert out.endswith(b"\n"), out[:200]
    assert out.count(b"\n") == 1, out[:200]
    data = json.loads(out)
    allowed = ANSWERS[harness].get(event) if isinstance(event, str) else None
    assert allowed, f"{harness} answered {event!r}, an event it never answers: {data}"
    kind, text = _shape(harness, event, data)
    assert kind in allowed, (event, data)
    assert isinstance(text, str), data
    assert text.strip(), data
    return text


def _shape(harness: str, event: object, data: Any) -> tuple[str, Any]:
    if harness == "copilot":
        if set(data) == {"additionalContext"}:
            return _CONTEXT, data["additionalContext"]
        assert set(data) == {"permissionDecision", "permissionDecisionReason"}, data
        assert data["permissionDecision"] == "deny", data
        return _DENY, data["permissionDecisionReason"]
    if harness == "cursor":
        if set(data) == {"additional_context"}:
            return _CONTEXT, data["additional_context"]
        assert set(data) == {"permission", "user_message", "agent_message"}, data
        assert data["permission"] == "deny"
        return _DENY, data["agent_message"]
    if harness == "gemini" and "decision" in data:
        assert set(data) == {"decision", "reason"}, data
        assert data["decision"] == "deny", data
        return _DENY, data["reason"]
    assert set(data) == {"hookSpecificOutput"}, data
    inner = data["hookSpecificOutput"]
    assert inner.get("hookEventName") == event, data
    if set(inner) == {"hookEventName", "additionalContext"}:
        return _CONTEXT, inner["additionalContext"]
    assert set(inner) == {"hookEventName", "permissionDecision", "permissionDecisionReason"}
    assert inner["permissionDecision"] == "deny", data
    return _DENY, inner["permissionDecisionReason"]


COMMAND = "git push origin release"
SHELL = "run_shell_command"  # Qwen Code's shell tool


def command_calls(harness: str, root: Path) -> list[dict[str, Any]]:
    """One ``git push origin release`` as the harness reports it (pre and post events)."""
    shell = {"command": COMMAND}
    return {
        "claude-code": lambda: [
            payload("claude-code", "pre_tool_use_bash_redirect", root, tool_input=shell)
        ],
        "codex": lambda: [payload("codex", "pre_tool_use_bash", root, tool_input=shell)],
        "gemini": lambda: [
            payload("gemini", "before_tool_shell", root, tool_input=shell),
            payload("gemini", "after_tool_shell", root, tool_input=shell),
        ],
        "cursor": lambda: [
            payload("cursor", "before_shell_execution", root, command=COMMAND),
            payload("cursor", "post_tool_use_write", root, tool_name="Shell", tool_input=shell),
        ],
        "qwen": lambda: [
            payload("qwen", "pre_tool_use_shell", root, tool_input=shell),
            payload("qwen", "post_tool_use_edit", root, tool_name=SHELL, tool_input=shell),
        ],
        "copilot": lambda: [payload("copilot", "pre_tool_use_bash", root, toolArgs=shell)],
    }[harness]()
