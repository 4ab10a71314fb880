"""`lessons hook pi` on the payloads the extension sent from the real Pi 0.73.1."""

from __future__ import annotations

from typing import Any

from lessons_core.delivery.binding import FORBID_HEAD
from lessons_core.delivery.deliver import GATE_PREFIX, session_note
from lessons_core.store.layout import Layout
from tests.hooks.conftest import APP_RULE, RELEASE_RULE, answer, payload, write_lesson

H = "pi"


def _said(layout: Layout, name: str, **changes: Any) -> dict[str, Any] | None:
    return answer(H, payload(H, name, layout.root, **changes))


def test_a_change_whose_rule_is_new_is_refused_once(two_lessons: Layout) -> None:
    """tool_call of an edit of src/app.py: refused with the rule; the same call again
    runs."""
    refused = _said(two_lessons, "tool_call_edit")
    assert refused is not None
    assert refused["block"] is True
    assert refused["reason"].startswith(GATE_PREFIX)
    assert APP_RULE in refused["reason"]
    assert _said(two_lessons, "tool_call_edit") is None


def test_a_read_brings_the_rule_as_context_and_the_edit_runs(two_lessons: Layout) -> None:
    """tool_result of a read: the rule as context; then the edit is not refused."""
    read = _said(two_lessons, "tool_result_read")
    assert read is not None
    assert read["context"].startswith("<lessons>\n")  # Pi hands the model the text as it is
    assert f"\n- {APP_RULE}\n</lessons>" in read["context"]
    assert _said(two_lessons, "tool_call_edit") is None


def test_a_path_written_with_an_at_sign_is_the_file(two_lessons: Layout) -> None:
    """Pi drops a leading @ from a path (a prompt's mention); so does the adapter."""
    read = _said(two_lessons, "tool_result_read", tool_input={"path": "@src/app.py"})
    assert read is not None
    assert APP_RULE in read["context"]


def test_a_command_rule_refuses_the_bash_call(two_lessons: Layout) -> None:
    refused = _said(two_lessons, "tool_call_bash")
    assert refused is not None
    assert RELEASE_RULE in refused["reason"]


def test_the_session_note_comes_only_with_a_fresh_session(two_lessons: Layout) -> None:
    """startup: the note; startup holding messages (`pi -c`), resume, fork: nothing."""
    note = session_note(two_lessons)
    assert _said(two_lessons, "session_start") == {"context": note}
    assert _said(two_lessons, "session_start", held=True) is None
    for reason in ("resume", "fork", "reload"):
        assert _said(two_lessons, "session_start", source=reason) is None
    assert _said(two_lessons, "session_start", source="new") == {"context": note}


def test_compaction_makes_the_rule_new_again_and_brings_the_note(two_lessons: Layout) -> None:
    """A read brings the rule; after session_compact the next read brings the note and the
    rule again."""
    assert _said(two_lessons, "tool_result_read") is not None
    assert _said(two_lessons, "tool_result_read") is None
    assert _said(two_lessons, "session_compact") is None
    again = _said(two_lessons, "tool_result_read")
    assert again is not None
    assert again["context"].startswith(session_note(two_lessons))
    assert APP_RULE in again["context"]


def test_a_failed_command_gets_the_capture_nudge(two_lessons: Layout) -> None:
    failed = _said(two_lessons, "tool_result_bash_failing")
    assert failed is not None
    assert "--trigger-cmd '^make no-such-target'" in failed["context"]


def test_an_edit_adding_a_forbidden_text_is_refused_every_time(project: Layout) -> None:
    """The edits' newText is what a forbid pattern is looked for in."""
    write_lesson(project, "split", "Use basename.", files=("src/app.py",), forbid=r"split\(")
    edit = {"path": "src/app.py", "edits": [{"oldText": "a", "newText": "p.split('/')"}]}
    for _ in range(2):
        refused = _said(project, "tool_call_edit", tool_input=edit)
        assert refused is not None
        assert refused["reason"].startswith(FORBID_HEAD)
    fine = {"path": "src/app.py", "edits": [{"oldText": "a", "newText": "basename(p)"}]}
    assert _said(project, "tool_call_edit", tool_input=fine) is None


def test_other_events_and_tools_say_nothing(two_lessons: Layout) -> None:
    assert _said(two_lessons, "agent_end") is None  # no evidence in the session
    assert _said(two_lessons, "tool_call_edit", tool_name="grep") is None
    assert _said(two_lessons, "tool_call_edit", hook_event_name="turn_end") is None
