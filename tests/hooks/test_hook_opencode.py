"""`lessons hook opencode` and `lessons hook kilo` on what their plugin sent from the real
OpenCode 1.18.33 and Kilo Code CLI 7.7.7 (tests/fixtures/opencode, tests/fixtures/kilo)."""

from __future__ import annotations

import pytest

from lessons_core.delivery.deliver import GATE_PREFIX, session_note
from lessons_core.store.layout import Layout
from tests.hooks.conftest import APP_RULE, RELEASE_RULE, answer, call_hook, payload

HARNESSES = ("opencode", "kilo")


def _release(harness: str, layout: Layout, event: str) -> dict[str, object]:
    data = payload(harness, f"{event}_bash", layout.root)
    return {**data, "tool_input": {"command": "bash scripts/release.sh", "description": "x"}}


@pytest.mark.parametrize("harness", HARNESSES)
def test_a_covered_command_is_blocked_once_with_its_rule(harness: str, two_lessons: Layout) -> None:
    """tool.execute.before answers ``block`` with the rule; the retry gets nothing."""
    data = _release(harness, two_lessons, "tool_execute_before")
    got = answer(harness, data)
    assert got is not None
    assert list(got) == ["block"]
    assert got["block"].startswith(GATE_PREFIX)
    assert RELEASE_RULE in got["block"]
    assert call_hook(harness, data) == b""


@pytest.mark.parametrize("harness", HARNESSES)
def test_a_read_brings_its_file_rule_as_context_once(harness: str, two_lessons: Layout) -> None:
    """tool.execute.after of ``read`` answers ``context`` with the file's rule; the edit
    after it is not blocked, and the rule is not repeated."""
    read = payload(harness, "tool_execute_after_read", two_lessons.root)
    got = answer(harness, read)
    assert got is not None
    assert list(got) == ["context"]
    assert got["context"].endswith(f"\n- {APP_RULE}\n</lessons>")
    assert call_hook(harness, payload(harness, "tool_execute_before_edit", two_lessons.root)) == b""
    assert call_hook(harness, read) == b""


@pytest.mark.parametrize("harness", HARNESSES)
def test_an_edit_no_read_prepared_is_blocked_once(harness: str, two_lessons: Layout) -> None:
    data = payload(harness, "tool_execute_before_edit", two_lessons.root)
    got = answer(harness, data)
    assert got is not None
    assert APP_RULE in got["block"]
    assert call_hook(harness, data) == b""


@pytest.mark.parametrize("harness", HARNESSES)
def test_the_note_waits_from_session_created_for_the_first_prompt(
    harness: str, two_lessons: Layout
) -> None:
    """session.created answers nothing (no event can add context); chat.message then
    brings the note, once."""
    assert call_hook(harness, payload(harness, "session_created", two_lessons.root)) == b""
    prompt = payload(harness, "chat_message", two_lessons.root)
    got = answer(harness, prompt)
    assert got is not None
    assert session_note(two_lessons) in got["context"]
    assert call_hook(harness, prompt) == b""


@pytest.mark.parametrize("harness", HARNESSES)
def test_compaction_makes_a_shown_rule_eligible_again(harness: str, two_lessons: Layout) -> None:
    read = payload(harness, "tool_execute_after_read", two_lessons.root)
    assert APP_RULE in call_hook(harness, read).decode()
    assert call_hook(harness, payload(harness, "session_compacted", two_lessons.root)) == b""
    again = answer(harness, read)
    assert again is not None
    assert APP_RULE in again["context"]
    assert session_note(two_lessons) in again["context"]  # the note is due again too


@pytest.mark.parametrize("harness", HARNESSES)
def test_a_failing_command_gets_a_nudge_and_its_fix_a_capture_request_at_idle(
    harness: str, two_lessons: Layout
) -> None:
    """``exit`` 2 brings the nudge; `make check` passing right after makes session.idle
    answer ``prompt`` with the capture request, once."""
    root = two_lessons.root
    failed = answer(harness, payload(harness, "tool_execute_after_bash_failing", root))
    assert failed is not None
    assert "--trigger-cmd '^make check-all'" in failed["context"]
    assert call_hook(harness, payload(harness, "tool_execute_after_bash", root)) == b""
    idle = payload(harness, "session_idle", root)
    asked = answer(harness, idle)
    assert asked is not None
    assert "'make check' worked" in asked["prompt"]
    assert call_hook(harness, idle) == b""


@pytest.mark.parametrize("harness", HARNESSES)
def test_a_quiet_session_stops_untouched(harness: str, two_lessons: Layout) -> None:
    assert call_hook(harness, payload(harness, "session_idle", two_lessons.root)) == b""
