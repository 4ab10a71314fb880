"""Codex CLI: ``SessionStart``, ``UserPromptSubmit``, ``PreToolUse`` and ``PreCompact``.

Codex speaks Claude Code's hook protocol (``hookSpecificOutput`` with
``permissionDecision``/``additionalContext``). Its file edits arrive as ``apply_patch``
calls whose ``tool_input.command`` is the patch text, so the file paths come from the
patch headers; a patch piped through the shell tool is read the same way. Payloads are
kept in tests/fixtures/codex/.
"""

from __future__ import annotations

from lessons_cli.hooks import claude_code
from lessons_core import delivery, patches
from lessons_core.delivery import ToolAction

TYPE_CHECKING = False  # typing costs a hook ~8 ms: lessons_core.records
if TYPE_CHECKING:
    from typing import Any

    from lessons_core.config import Config
    from lessons_core.layout import Layout

project_dir = claude_code.project_dir

PATCH_TOOL = "apply_patch"
SHELL_TOOLS = frozenset({"Bash", "shell", "local_shell", "exec_command"})


def shell_text(command: Any) -> str | None:
    """The script of a shell call; older Codex sends argv such as ``["bash", "-lc", "..."]``."""
    if isinstance(command, list) and all(isinstance(word, str) for word in command):
        return command[-1] if len(command) >= 3 and command[-2] == "-lc" else " ".join(command)
    return command if isinstance(command, str) else None


def action_of(layout: Layout, payload: dict[str, Any]) -> ToolAction:
    given = payload.get("tool_input")
    tool_input = given if isinstance(given, dict) else {}
    tool = payload.get("tool_name")
    text = shell_text(tool_input.get("command") or tool_input.get("input"))
    if text and (tool == PATCH_TOOL or patches.is_patch(text)):
        return claude_code.file_action(layout, payload, *patches.patch_paths(text))
    if tool in SHELL_TOOLS:
        return claude_code.command_action(text)
    return ToolAction()


def handle(layout: Layout, payload: dict[str, Any], config: Config) -> dict[str, Any] | None:
    event = payload.get("hook_event_name")
    if event == "PreToolUse":
        key = claude_code.session_of(payload)
        return claude_code.pre_tool_output(
            delivery.before_action(layout, key, action_of(layout, payload), config)
        )
    if event in {"SessionStart", "UserPromptSubmit", "PreCompact"}:
        return claude_code.handle(layout, payload, config)
    return None
