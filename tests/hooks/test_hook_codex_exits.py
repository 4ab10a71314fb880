"""Codex CLI's PostToolUse after a shell call: the exit code comes from the session file
(its payload carries the output only). The payload and the session file's last records
are as the real client (0.171.0) left them when the hook ran, for a command that printed
``out`` and ``err`` and exited 3."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from lessons_cli.harnesses import codex_exits
from lessons_core.store.layout import Layout
from tests.hooks.conftest import FIXTURES, answer, payload, write_lesson

SCRIPT_COMMAND = "python3 scripts/check.py --fast"
RULE = "Run the checks through scripts/check.sh."


def _recorded(layout: Layout, **changes: Any) -> dict[str, Any]:
    """The recorded payload, its session file written where it points."""
    data = payload("codex", "post_tool_use_bash", layout.root, **changes)
    rollout = Path(data["transcript_path"])
    rollout.parent.mkdir(parents=True, exist_ok=True)
    text = (FIXTURES / "codex" / "rollout_at_post_tool_use.jsonl").read_text()
    rollout.write_text(text.replace("$PROJECT", str(layout.root)))
    return data


def _context(got: dict[str, Any] | None) -> str:
    assert got is not None
    assert got["hookSpecificOutput"]["hookEventName"] == "PostToolUse"
    return str(got["hookSpecificOutput"]["additionalContext"])


def test_the_exit_code_is_read_from_the_session_file(project: Layout) -> None:
    data = _recorded(project)
    assert data["tool_response"] == "out\nerr\n"  # no exit code in the payload
    assert codex_exits.exit_code(data["transcript_path"], data["tool_use_id"]) == 3
    assert codex_exits.exit_code(data["transcript_path"], "call_other") is None
    assert codex_exits.exit_code(str(project.root / "missing.jsonl"), "call_f_0_0000") is None
    assert codex_exits.exit_code(None, "call_f_0_0000") is None


def test_only_the_tail_of_a_long_session_file_is_read(project: Layout) -> None:
    """A record beyond the last TAIL_BYTES is not found; one inside it is, across blocks."""
    data = _recorded(project)
    rollout = Path(data["transcript_path"])
    records = rollout.read_text()
    filler = json.dumps({"type": "event_msg", "payload": {"type": "x", "pad": "y" * 1000}})
    padding = (filler + "\n") * (codex_exits.TAIL_BYTES // len(filler) + 1)
    rollout.write_text(records + padding)
    assert codex_exits.exit_code(str(rollout), data["tool_use_id"]) is None
    rollout.write_text(padding + records + (filler + "\n") * 100)
    assert codex_exits.exit_code(str(rollout), data["tool_use_id"]) == 3


def test_a_failed_shell_call_brings_the_nudge_then_the_stronger_one(project: Layout) -> None:
    data = _recorded(project, tool_input={"command": SCRIPT_COMMAND})
    assert answer("codex", data) is None  # exit 3 names no wrong command, flag, path or tool
    second = _context(answer("codex", data))
    assert "failed 2 times in this session with the same error (exit 3)" in second
    assert "--trigger-cmd '^python3 scripts/check\\.py'" in second


def test_a_covered_failure_twice_is_refused_before_the_third_attempt(project: Layout) -> None:
    write_lesson(project, "checks-script", RULE, commands=("scripts/check",))
    data = _recorded(project, tool_input={"command": SCRIPT_COMMAND})
    pre = {**data, "hook_event_name": "PreToolUse"}
    del pre["tool_response"]
    assert answer("codex", pre) is not None  # the rule, first shown
    assert answer("codex", data) is None  # exit 3: no failure a lesson could prevent
    assert answer("codex", pre) is None
    assert answer("codex", data) is None  # covered: the recurrence gate comes instead
    refused = answer("codex", pre)
    assert refused is not None
    decision = refused["hookSpecificOutput"]
    assert decision["permissionDecision"] == "deny"
    assert (
        "This call failed 2 times in this session (exit 3)" in decision["permissionDecisionReason"]
    )
    assert RULE in decision["permissionDecisionReason"]
    assert answer("codex", pre) is None  # the retry runs


def test_a_call_without_its_record_says_nothing(project: Layout) -> None:
    data = _recorded(project, tool_use_id="call_not_recorded")
    assert answer("codex", data) is None
    assert not (project.root / ".lessons" / "local" / "hook.log").exists()
