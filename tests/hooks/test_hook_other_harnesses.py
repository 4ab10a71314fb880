"""Codex CLI (payloads recorded from the real client) and Cursor adapters (Gemini CLI has
tests/hooks/test_hook_gemini.py)."""

from __future__ import annotations

import pytest

from lessons_core.delivery.deliver import GATE_PREFIX, session_note
from lessons_core.store.layout import Layout
from tests.hooks.conftest import answer, call_hook, file_rules_as_context, payload, write_lesson


def _lessons(layout: Layout) -> None:
    write_lesson(
        layout, "build-gen-before-push", "Run make gen before pushing.", commands=("git push",)
    )
    write_lesson(layout, "code-a-import-safe", "Keep src/a.py import-safe.", files=("src/a.py",))
    write_lesson(
        layout, "docs-notes-index", "List new notes in docs/index.md.", files=("docs/*.md",)
    )


def test_codex_apply_patch_paths_come_from_the_patch_text(project: Layout) -> None:
    """apply_patch carries the patch in tool_input.command; each header path is recalled."""
    _lessons(project)
    got = answer("codex", payload("codex", "pre_tool_use_apply_patch", project.root))
    assert got is not None
    context = got["hookSpecificOutput"]["permissionDecisionReason"]
    assert "Keep src/a.py import-safe." in context
    assert "List new notes in docs/index.md." in context


def test_codex_patch_through_the_shell_is_read_as_a_patch(project: Layout) -> None:
    """apply_patch piped through the shell tool still names its files."""
    _lessons(project)
    got = answer("codex", payload("codex", "pre_tool_use_shell_heredoc_patch", project.root))
    assert got is not None
    assert "src/a.py import-safe" in got["hookSpecificOutput"]["permissionDecisionReason"]


def test_codex_bash_gates_like_claude_code(project: Layout) -> None:
    """Codex reads permissionDecision deny; the retry is silent."""
    _lessons(project)
    data = payload("codex", "pre_tool_use_bash", project.root)
    got = answer("codex", data)
    assert got is not None
    assert got["hookSpecificOutput"]["permissionDecision"] == "deny"
    assert got["hookSpecificOutput"]["permissionDecisionReason"].startswith(GATE_PREFIX)
    assert call_hook("codex", data) == b""


@pytest.mark.parametrize(
    ("harness", "start", "prompt", "compact"),
    [
        ("codex", "session_start_startup", "user_prompt_submit", "pre_compact"),
    ],
)
def test_session_note_prompt_rules_and_compaction_reset(
    project: Layout, harness: str, start: str, prompt: str, compact: str
) -> None:
    """SessionStart gives the note, the prompt event keyword rules, compaction resets."""
    write_lesson(
        project, "release-changelog", "Update CHANGELOG.md in every release.", keywords=("release",)
    )
    started = answer(harness, payload(harness, start, project.root))
    assert started is not None
    assert started["hookSpecificOutput"]["additionalContext"] == session_note(project)
    got = answer(harness, payload(harness, prompt, project.root))
    assert got is not None
    assert "CHANGELOG.md" in got["hookSpecificOutput"]["additionalContext"]
    assert call_hook(harness, payload(harness, prompt, project.root)) == b""
    assert call_hook(harness, payload(harness, compact, project.root)) == b""
    assert answer(harness, payload(harness, prompt, project.root)) is not None


def test_cursor_shell_gate_goes_to_the_agent_message(project: Layout) -> None:
    """beforeShellExecution: permission deny, rules in agent_message, then silence."""
    _lessons(project)
    data = payload("cursor", "before_shell_execution", project.root)
    got = answer("cursor", data)
    assert got is not None
    assert got["permission"] == "deny"
    assert "Run make gen before pushing." in got["agent_message"]
    assert got["user_message"]
    assert call_hook("cursor", data) == b""


def test_cursor_file_rules_arrive_after_the_edit(project: Layout) -> None:
    """preToolUse leaves context rules alone; postToolUse adds them as additional_context."""
    _lessons(project)
    file_rules_as_context(project)
    assert call_hook("cursor", payload("cursor", "pre_tool_use_write", project.root)) == b""
    got = answer("cursor", payload("cursor", "post_tool_use_write", project.root))
    assert got is not None
    assert "Keep src/a.py import-safe." in got["additional_context"]


def test_cursor_gate_lesson_stops_the_edit_first(project: Layout) -> None:
    """A gate lesson on a file denies Cursor's preToolUse before the edit."""
    write_lesson(
        project, "code-a-gated", "Never edit src/a.py by hand.", files=("src/a.py",), gate=True
    )
    got = answer("cursor", payload("cursor", "pre_tool_use_write", project.root))
    assert got is not None
    assert got["permission"] == "deny"
    assert "Never edit src/a.py by hand." in got["agent_message"]


def test_cursor_session_start_and_compaction(project: Layout) -> None:
    """sessionStart gives the note; preCompact makes shown rules eligible again (the
    refused command, once made again, is refused again after a later compaction)."""
    _lessons(project)
    started = answer("cursor", payload("cursor", "session_start", project.root))
    assert started == {"additional_context": session_note(project)}
    shell = payload("cursor", "before_shell_execution", project.root)
    assert answer("cursor", shell) is not None
    assert call_hook("cursor", shell) == b""  # made again: it runs
    assert call_hook("cursor", payload("cursor", "pre_compact", project.root)) == b""
    assert answer("cursor", shell) is not None


def test_cursor_read_brings_the_file_rule_and_an_unread_write_is_refused(
    project: Layout,
) -> None:
    """Documented payloads: postToolUse of Read adds the file's rule as additional_context
    (beside the content, before the next call), and the Write after it passes; in another
    conversation a Write not read first is refused with the rule, then runs. A shell
    command writing a covered file is refused at beforeShellExecution."""
    _lessons(project)
    read = payload("cursor", "post_tool_use_write", project.root, tool_name="Read")
    read["tool_input"] = {"file_path": str(project.root / "src" / "a.py")}
    got = answer("cursor", read)
    assert got is not None
    assert "Keep src/a.py import-safe." in got["additional_context"]
    assert call_hook("cursor", payload("cursor", "pre_tool_use_write", project.root)) == b""
    other = payload("cursor", "pre_tool_use_write", project.root, conversation_id="c2")
    refused = answer("cursor", other)
    assert refused is not None
    assert refused["permission"] == "deny"
    assert "Keep src/a.py import-safe." in refused["agent_message"]
    assert call_hook("cursor", other) == b""
    shell = payload(
        "cursor", "before_shell_execution", project.root, conversation_id="c3",
        command="sed -i 's/1/2/' src/a.py",
    )  # fmt: skip
    denied = answer("cursor", shell)
    assert denied is not None
    assert "Keep src/a.py import-safe." in denied["agent_message"]
