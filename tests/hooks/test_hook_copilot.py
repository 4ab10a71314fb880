"""`lessons hook copilot` on payloads recorded from the real Copilot CLI 1.0.102."""

from __future__ import annotations

import json

import pytest

from lessons_cli.harnesses import copilot
from lessons_core.delivery.deliver import GATE_PREFIX, session_note
from lessons_core.delivery.hooklog import log_path
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

H = "copilot"


@pytest.mark.parametrize(
    ("name", "event"),
    [
        ("session_start_new", "sessionStart"),
        ("session_start_resume", "sessionStart"),
        ("user_prompt_submitted", "userPromptSubmitted"),
        ("pre_tool_use_bash", "preToolUse"),
        ("pre_tool_use_edit", "preToolUse"),
        ("pre_tool_use_create", "preToolUse"),
        ("post_tool_use_failure_edit", "postToolUseFailure"),
        ("pre_compact_auto", "preCompact"),
        ("pre_compact_manual", "preCompact"),
    ],
)
def test_the_event_is_read_from_the_payload_fields(project: Layout, name: str, event: str) -> None:
    """Copilot names no event on stdin; each recorded payload is told apart by its fields."""
    assert copilot.event_of(payload(H, name, project.root)) == event


def test_a_covered_command_is_refused_with_the_rule_then_runs(two_lessons: Layout) -> None:
    """The first bash call is denied with the fenced rule as the reason; the retry is silent."""
    data = payload(H, "pre_tool_use_bash", two_lessons.root)
    got = answer(H, data)
    assert got is not None
    assert set(got) == {"permissionDecision", "permissionDecisionReason"}
    assert got["permissionDecision"] == "deny"
    assert got["permissionDecisionReason"].startswith(GATE_PREFIX)
    assert RELEASE_RULE in got["permissionDecisionReason"]
    assert call_hook(H, data) == b""


def test_an_edit_gets_the_file_rule_as_context_once(two_lessons: Layout) -> None:
    """edit's absolute path is matched repo-relative; with ``delivery_file: "context"``
    the rule is additionalContext."""
    file_rules_as_context(two_lessons)
    got = answer(H, payload(H, "pre_tool_use_edit", two_lessons.root))
    assert got is not None
    assert set(got) == {"additionalContext"}
    assert APP_RULE in got["additionalContext"]
    assert call_hook(H, payload(H, "pre_tool_use_edit", two_lessons.root)) == b""


def test_create_is_matched_on_its_path(project: Layout) -> None:
    """create's path is the file the rules are for."""
    write_lesson(project, "code-new", "Register new modules in src/__init__.py.", files=("src/*",))
    got = answer(H, payload(H, "pre_tool_use_create", project.root))
    assert got is not None
    assert "Register new modules" in got["permissionDecisionReason"]


def test_tool_args_sent_as_json_text_are_read_too(two_lessons: Layout) -> None:
    """toolArgs given as a JSON string (as Copilot documents it) works like an object."""
    data = payload(H, "pre_tool_use_edit", two_lessons.root)
    data["toolArgs"] = json.dumps(data["toolArgs"])
    got = answer(H, data)
    assert got is not None
    assert APP_RULE in got["permissionDecisionReason"]


def test_a_pure_read_command_speaks_only_about_its_file(two_lessons: Layout) -> None:
    """cat of a covered file brings its rule as context (after the output, before an
    edit), never a refusal; cat of an uncovered file recalls nothing."""
    got = answer(H, payload(H, "pre_tool_use_bash_read", two_lessons.root))
    assert got is not None
    assert set(got) == {"additionalContext"}
    assert APP_RULE in got["additionalContext"]
    other = payload(H, "pre_tool_use_bash_read", two_lessons.root)
    other["toolArgs"] = {"command": "cat README.md", "description": "run it"}
    assert call_hook(H, other) == b""


def test_view_brings_the_file_rule_and_the_edit_after_it_is_silent(two_lessons: Layout) -> None:
    """view of a covered file: its rule as context; the edit of it afterwards runs silent."""
    view = payload(H, "pre_tool_use_edit", two_lessons.root, toolName="view")
    view["toolArgs"] = {"path": str(two_lessons.root / "src" / "app.py")}
    got = answer(H, view)
    assert got is not None
    assert APP_RULE in got["additionalContext"]
    assert call_hook(H, payload(H, "pre_tool_use_edit", two_lessons.root)) == b""


def test_session_start_gives_the_note_and_resets(two_lessons: Layout) -> None:
    """A new session and a resumed one both start from nothing shown (Copilot resumes a
    conversation without the context hooks added), with the note."""
    edit = payload(H, "pre_tool_use_edit", two_lessons.root)
    for start in ("session_start_new", "session_start_resume"):
        note = {"additionalContext": session_note(two_lessons)}
        assert answer(H, payload(H, start, two_lessons.root)) == note
        assert answer(H, edit) is not None
        assert call_hook(H, edit) == b""


def test_prompt_keywords_come_as_context(project: Layout) -> None:
    """userPromptSubmitted answers keyword rules as additionalContext, once."""
    write_lesson(
        project, "release-notes", "Write release notes for each tag.", keywords=("release",)
    )
    data = payload(H, "user_prompt_submitted", project.root)
    got = answer(H, data)
    assert got is not None
    assert "Write release notes for each tag." in got["additionalContext"]
    assert call_hook(H, data) == b""


@pytest.mark.parametrize("name", ["pre_compact_auto", "pre_compact_manual"])
def test_compaction_makes_shown_rules_eligible_again(two_lessons: Layout, name: str) -> None:
    """preCompact (auto or manual) answers nothing and the next edit brings the rule again."""
    edit = payload(H, "pre_tool_use_edit", two_lessons.root)
    assert answer(H, edit) is not None
    assert call_hook(H, payload(H, name, two_lessons.root)) == b""
    assert answer(H, edit) is not None


def test_a_failed_edit_gets_no_capture_nudge(two_lessons: Layout) -> None:
    """postToolUseFailure of an edit whose own error is the agent's slip (its text not
    found) brings no capture nudge; a lesson covers the file, so its recurrence waits
    for the gate before the next attempt."""
    data = payload(H, "post_tool_use_failure_edit", two_lessons.root)
    assert call_hook(H, data) == b""
    assert call_hook(H, data) == b""


def test_a_payload_of_no_known_event_is_ignored(two_lessons: Layout) -> None:
    """postToolUse (not wired) and an unknown shape get no answer and log nothing."""
    data = payload(H, "pre_tool_use_edit", two_lessons.root)
    data["toolResult"] = {"resultType": "success", "textResultForLlm": "ok"}
    assert call_hook(H, data) == b""
    assert call_hook(H, {"sessionId": "s", "cwd": str(two_lessons.root)}) == b""
    assert not log_path(two_lessons.root).exists()


def test_a_payload_without_a_session_fails_open(two_lessons: Layout) -> None:
    """A missing sessionId exits 0 silently and logs the event it was read as."""
    data = payload(H, "pre_tool_use_bash", two_lessons.root)
    del data["sessionId"]
    assert call_hook(H, data) == b""
    assert " copilot preToolUse KeyError" in log_path(two_lessons.root).read_text()
