"""`lessons hook cline` on the payloads the plugin built from the real Cline CLI 3.0.65."""

from __future__ import annotations

from pathlib import Path
from typing import Any, cast

import pytest

from lessons_cli.harnesses import cline
from lessons_cli.harnesses.claude_protocol import HookPayload
from lessons_core.delivery.deliver import GATE_PREFIX, session_note
from lessons_core.delivery.tool_action import ToolAction
from lessons_core.store.layout import Layout
from tests.hooks.conftest import APP_RULE, RELEASE_RULE, answer, call_hook, payload

H = "cline"


def _said(got: dict[str, Any] | None) -> tuple[str, bool]:
    """The text an answer hands the model, and whether it refuses the call."""
    assert got is not None
    out = got["hookSpecificOutput"]
    if out.get("permissionDecision") == "deny":
        return str(out["permissionDecisionReason"]), True
    return str(out["additionalContext"]), False


def test_the_session_starts_with_the_note(two_lessons: Layout) -> None:
    text, refused = _said(answer(H, payload(H, "session_start_startup", two_lessons.root)))
    assert not refused
    assert session_note(two_lessons) in text


def test_a_read_brings_its_rule_once_and_the_edit_after_it_runs(two_lessons: Layout) -> None:
    """read_files' PostToolUse brings the file's rule; the edit is then not refused, and
    nothing is said twice."""
    root = two_lessons.root
    text, refused = _said(answer(H, payload(H, "post_tool_use_read_files", root)))
    assert (APP_RULE in text, refused) == (True, False)
    assert call_hook(H, payload(H, "post_tool_use_read_files", root)) == b""
    assert call_hook(H, payload(H, "pre_tool_use_editor", root)) == b""
    assert call_hook(H, payload(H, "post_tool_use_editor", root)) == b""


def test_an_edit_no_read_prepared_is_refused_once(two_lessons: Layout) -> None:
    root = two_lessons.root
    text, refused = _said(answer(H, payload(H, "pre_tool_use_editor", root)))
    assert refused
    assert text.startswith(GATE_PREFIX)
    assert APP_RULE in text
    assert call_hook(H, payload(H, "pre_tool_use_editor", root)) == b""


def test_a_command_rule_is_refused_once(two_lessons: Layout) -> None:
    data = payload(H, "pre_tool_use_run_commands", two_lessons.root)
    data["tool_input"] = {"commands": ["bash scripts/release.sh"]}
    text, refused = _said(answer(H, data))
    assert refused
    assert RELEASE_RULE in text
    assert call_hook(H, data) == b""


def test_a_failed_command_brings_a_capture_nudge(two_lessons: Layout) -> None:
    """run_commands reports a failing command as ``success: false``: one a lesson could
    prevent (a program that is not there) brings the capture line."""
    data = payload(H, "post_tool_use_run_commands", two_lessons.root)
    data["tool_input"] = {"commands": ["make deploy"]}
    missing = "bash: make: command not found"
    failed = {"query": "make deploy", "result": "", "error": missing, "success": False}
    data["tool_response"] = {"output": [failed]}
    text, refused = _said(answer(H, data))
    assert not refused
    assert "/.lessons/run add " in text
    assert "--trigger-cmd" in text


def test_compaction_makes_a_shown_rule_new_again(two_lessons: Layout) -> None:
    root = two_lessons.root
    read = payload(H, "post_tool_use_read_files", root)
    assert APP_RULE in _said(answer(H, read))[0]
    compacted = {key: read[key] for key in ("cwd", "session_id")}
    assert call_hook(H, {**compacted, "hook_event_name": "PreCompact"}) == b""
    assert APP_RULE in _said(answer(H, read))[0]


@pytest.mark.parametrize(
    ("given", "expected"),
    [
        ({"commands": ["a", "b"]}, "a\nb"),
        ({"commands": "a"}, "a"),
        ({"command": "a"}, "a"),
        ({"cmd": "a"}, "a"),
        (["a", "b"], "a\nb"),
        ("a", "a"),
        (
            {"commands": [{"command": "git", "args": ["commit", "-m", "x y"]}]},
            "git commit -m 'x y'",
        ),
        ({"commands": [1, {"args": []}]}, None),
        ({}, None),
    ],
)
def test_commands_come_from_every_shape_cline_accepts(given: Any, expected: str | None) -> None:
    assert cline.commands_of(given) == expected


def test_read_paths_and_a_patch_name_their_files(project: Layout) -> None:
    """read_files by ``files``, ``paths`` or ``path``; apply_patch as ``{input}`` or text."""
    root = project.root
    shapes = ({"files": [{"path": "src/a.py"}]}, {"paths": ["src/a.py"]}, {"path": "src/a.py"})
    for tool_input in shapes:
        data = {"cwd": str(root), "tool_name": "read_files", "tool_input": tool_input}
        assert cline.action_of(project, cast(HookPayload, data)).reads == ("src/a.py",)
    patch = "*** Begin Patch\n*** Update File: src/a.py\n@@\n-x = 1\n+x = 2\n*** End Patch\n"
    for given in ({"input": patch}, patch):
        data = {"cwd": str(root), "tool_name": "apply_patch", "tool_input": given}
        assert cline.action_of(project, cast(HookPayload, data)).files == ("src/a.py",)
    other = {"cwd": str(root), "tool_name": "search_codebase", "tool_input": {"queries": ["x"]}}
    assert cline.action_of(project, cast(HookPayload, other)) == ToolAction()


def test_the_payloads_name_files_under_their_project(tmp_path: Path) -> None:
    """Every recorded payload carries the workspace as ``cwd`` and a conversation id."""
    for path in sorted((Path(__file__).parents[1] / "fixtures" / "cline").glob("*.json")):
        data = payload(H, path.stem, tmp_path)
        assert data["cwd"] == str(tmp_path)
        assert str(data["session_id"]).startswith("conv_")


def test_a_call_lessons_refused_is_no_failure(two_lessons: Layout) -> None:
    """Cline runs afterTool after a skipped call too, with the refusal as an error result:
    that brings no capture nudge."""
    root = two_lessons.root
    refused = answer(H, payload(H, "pre_tool_use_editor", root))
    assert refused is not None
    reason = refused["hookSpecificOutput"]["permissionDecisionReason"]
    after = payload(H, "post_tool_use_editor", root)
    after["tool_response"] = {"output": {"error": reason}, "isError": True}
    assert call_hook(H, after) == b""
