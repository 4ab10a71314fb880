"""Gemini CLI: ``SessionStart``, ``BeforeAgent``, ``BeforeTool``, ``AfterTool``, ``PreCompress``.

``BeforeTool`` can refuse a call (``decision: "deny"`` with the rules as the ``reason``,
which the model receives as the tool's error) but cannot add context, so it delivers the
gate rules only; context rules follow in ``AfterTool`` as ``additionalContext``. Tool
names are Gemini's own (``write_file``, ``replace``, ``run_shell_command``). Payloads are
kept in tests/fixtures/gemini/.
"""

from __future__ import annotations

from lessons_cli.hooks import claude_code
from lessons_core import delivery
from lessons_core.delivery import CONTEXT, GATE, ToolAction

TYPE_CHECKING = False  # typing costs a hook ~8 ms: lessons_core.records
if TYPE_CHECKING:
    from typing import Any

    from lessons_core.config import Config
    from lessons_core.layout import Layout

project_dir = claude_code.project_dir

FILE_TOOLS = frozenset({"write_file", "replace", "edit"})
SHELL_TOOL = "run_shell_command"
# What each tool event can deliver (see the module docstring).
EVENT_MODES = {"BeforeTool": frozenset({GATE}), "AfterTool": frozenset({CONTEXT})}


def action_of(layout: Layout, payload: dict[str, Any]) -> ToolAction:
    given = payload.get("tool_input")
    tool_input = given if isinstance(given, dict) else {}
    tool = payload.get("tool_name")
    if tool in FILE_TOOLS:
        path = tool_input.get("file_path") or tool_input.get("absolute_path")
        return claude_code.file_action(layout, payload, path)
    if tool == SHELL_TOOL:
        return claude_code.command_action(tool_input.get("command"))
    return ToolAction()


def handle(layout: Layout, payload: dict[str, Any], config: Config) -> dict[str, Any] | None:
    event = payload.get("hook_event_name")
    key = claude_code.session_of(payload)
    if event == "SessionStart":
        source = str(payload.get("source") or "startup")
        return claude_code.context_output(
            event, delivery.session_start(layout, key, source, config)
        )
    if event == "BeforeAgent":
        prompt = payload.get("prompt")
        text = (
            delivery.on_prompt(layout, key, prompt, config, event)
            if isinstance(prompt, str)
            else None
        )
        return claude_code.context_output(event, text)
    if isinstance(event, str) and event in EVENT_MODES:
        modes = EVENT_MODES[event]
        action = action_of(layout, payload)
        notice = delivery.before_action(layout, key, action, config, modes, event)
        if notice is None:
            return None
        if notice.gate:
            return {"decision": "deny", "reason": notice.text}
        return claude_code.context_output(event, notice.text)
    if event == "PreCompress":
        delivery.before_compaction(layout, key)
    return None
