"""`lessons hook qwen` on payloads recorded from the real Qwen Code 0.24.4."""

from __future__ import annotations

import re

import pytest

from lessons_cli.harnesses import qwen
from lessons_core.delivery.deliver import GATE_PREFIX, session_note
from lessons_core.store.layout import Layout
from tests.hooks.conftest import (
    APP_RULE,
    RELEASE_RULE,
    answer,
    call_hook,
    file_rules_as_context,
    payload,
    write_lesson,
)

H = "qwen"


def _context(got: dict[str, object] | None, event: str) -> str:
    assert got is not None
    out = got["hookSpecificOutput"]
    assert isinstance(out, dict)
    assert out["hookEventName"] == event
    return str(out["additionalContext"])


def test_the_matchers_are_anchored_as_qwen_searches_tool_names() -> None:
    """Qwen searches the tool name for the matcher, so it is anchored: no pure-read tool
    or look-alike name matches (the tools themselves: tests/hooks/test_wired_tools.py)."""
    for event in qwen.WIRING.events:
        if event.matcher is not None:
            assert re.fullmatch(r"\^\(.*\)\$", event.matcher)
            tools = qwen.TOOLS if event.name == "PostToolUse" else qwen.CHANGE_TOOLS
            assert all(re.search(event.matcher, tool) for tool in tools)
            for tool in ("read_file_x", "grep_search", "glob", "notebook_edit", "edit_file"):
                assert not re.search(event.matcher, tool)
            # read_file is heard after it ran, where its context is kept
            assert (re.search(event.matcher, "read_file") is not None) == (
                event.name == "PostToolUse"
            )


def test_a_covered_command_is_refused_with_the_rule_then_runs(two_lessons: Layout) -> None:
    """PreToolUse denies the first shell call with the fenced rule; the retry is silent."""
    data = payload(H, "pre_tool_use_shell", two_lessons.root)
    got = answer(H, data)
    assert got is not None
    out = got["hookSpecificOutput"]
    assert out["permissionDecision"] == "deny"
    assert out["permissionDecisionReason"].startswith(GATE_PREFIX)
    assert RELEASE_RULE in out["permissionDecisionReason"]
    assert "<lessons>" in out["permissionDecisionReason"]  # a reason is not escaped
    assert call_hook(H, data) == b""


def test_a_file_rule_waits_for_post_tool_use(two_lessons: Layout) -> None:
    """PreToolUse says nothing for a context rule (Qwen would drop it); PostToolUse of the
    same edit delivers it, once (``delivery_file: "context"``)."""
    file_rules_as_context(two_lessons)
    assert call_hook(H, payload(H, "pre_tool_use_edit", two_lessons.root)) == b""
    post = payload(H, "post_tool_use_edit", two_lessons.root)
    context = _context(answer(H, post), "PostToolUse")
    assert APP_RULE in context
    assert context.startswith("[lessons]\n")  # Qwen escapes < and > in context
    assert call_hook(H, post) == b""


def test_write_file_is_matched_on_its_path(project: Layout) -> None:
    """write_file's file_path is the file the rules are for."""
    write_lesson(project, "code-new", "Register new modules in src/__init__.py.", files=("src/*",))
    got = answer(H, payload(H, "post_tool_use_write_file", project.root))
    assert "Register new modules" in _context(got, "PostToolUse")


def test_a_pure_read_command_is_silent(two_lessons: Layout) -> None:
    """cat of a covered file recalls nothing."""
    assert call_hook(H, payload(H, "pre_tool_use_shell_read", two_lessons.root)) == b""


def test_session_start_and_prompts(project: Layout) -> None:
    """SessionStart gives the note; the first UserPromptSubmit keyword rules; the empty
    prompts Qwen sends before every later model request add nothing."""
    rule = "Write release notes for each tag."
    write_lesson(project, "release-notes", rule, keywords=("release",))
    got = answer(H, payload(H, "session_start_startup", project.root))
    assert _context(got, "SessionStart") == session_note(project)
    prompt = payload(H, "user_prompt_submit", project.root)
    assert "Write release notes" in _context(answer(H, prompt), "UserPromptSubmit")
    assert call_hook(H, payload(H, "user_prompt_submit_empty", project.root)) == b""
    assert call_hook(H, prompt) == b""


def test_compaction_makes_shown_rules_eligible_again(two_lessons: Layout) -> None:
    """PreCompact answers nothing; the next edit brings the rule again."""
    post = payload(H, "post_tool_use_edit", two_lessons.root)
    assert answer(H, post) is not None
    assert call_hook(H, payload(H, "pre_compact_auto", two_lessons.root)) == b""
    assert answer(H, post) is not None


@pytest.mark.parametrize("fixture", ["post_tool_use_failure_edit", "post_tool_use_failure_shell"])
def test_a_failure_that_is_the_work_gets_no_nudge(two_lessons: Layout, fixture: str) -> None:
    """An edit's own error (its text not found) is the agent's slip and `false` names no
    command worth a rule: no capture nudge for either."""
    assert call_hook(H, payload(H, fixture, two_lessons.root)) == b""


def test_an_interrupted_call_gets_no_nudge(two_lessons: Layout) -> None:
    """is_interrupt: the user stopped it, nothing was learned."""
    data = payload(H, "post_tool_use_failure_edit", two_lessons.root, is_interrupt=True)
    assert call_hook(H, data) == b""
