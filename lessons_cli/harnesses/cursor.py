"""Cursor: ``sessionStart``, ``beforeShellExecution``, ``preToolUse``, ``postToolUse``,
``preCompact``.

Cursor refuses a call with ``permission: "deny"`` and hands ``agent_message`` to the
model, so gate rules go there, before the command or edit runs. Its pre-tool events
cannot add context; context rules follow in ``postToolUse`` as ``additional_context``.
The session is Cursor's ``conversation_id``; the project is the first workspace root.
Payloads are kept in tests/fixtures/cursor/.
"""

from __future__ import annotations

from lessons_cli.harnesses import claude_code
from lessons_cli.harnesses.spec import HookEvent, Wiring, any_of
from lessons_core.delivery import deliver as delivery
from lessons_core.delivery import sessions
from lessons_core.delivery.deliver import CONTEXT, GATE, Notice, ToolAction

TYPE_CHECKING = False  # typing costs a hook ~8 ms: lessons_core.records
if TYPE_CHECKING:
    from typing import Any

    from lessons_core.store.config import Config
    from lessons_core.store.layout import Layout

FILE_TOOLS = ("Write", "Edit", "MultiEdit", "StrReplace", "Delete", "NotebookEdit")
SHELL_TOOL = "Shell"
TOOLS = (SHELL_TOOL, *FILE_TOOLS)
# What each tool event can deliver (see the module docstring).
EVENT_MODES = {
    "beforeShellExecution": frozenset({GATE}),
    "preToolUse": frozenset({GATE}),
    "postToolUse": frozenset({CONTEXT}),
}
EVENTS = frozenset({"sessionStart", "preCompact", *EVENT_MODES})
# A command is gated at beforeShellExecution, so preToolUse is wired for edits only.
WIRING = Wiring(
    "cursor",
    ".cursor/hooks.json",
    (
        HookEvent("sessionStart"),
        HookEvent("beforeShellExecution"),
        HookEvent("preToolUse", any_of(FILE_TOOLS)),
        HookEvent("postToolUse", any_of(TOOLS)),
        HookEvent("preCompact"),
    ),
    nested=False,
    top_level={"version": 1},
)
USER_MESSAGE = "lessons: showed the agent project rules for this call; it will retry."


def project_dir(payload: dict[str, Any]) -> str | None:
    roots = payload.get("workspace_roots")
    if isinstance(roots, list) and roots and isinstance(roots[0], str):
        return roots[0]
    return claude_code.project_dir(payload)


def session_of(payload: dict[str, Any]) -> str:
    return str(payload.get("conversation_id") or payload["session_id"])


def action_of(layout: Layout, payload: dict[str, Any]) -> ToolAction:
    if payload.get("hook_event_name") == "beforeShellExecution":
        return claude_code.command_action(payload.get("command"))
    given = payload.get("tool_input")
    tool_input = given if isinstance(given, dict) else {}
    tool = payload.get("tool_name")
    if tool == SHELL_TOOL:
        return claude_code.command_action(tool_input.get("command"))
    if tool not in FILE_TOOLS:
        return ToolAction()
    paths = (tool_input.get(k) for k in ("file_path", "path", "target_file"))
    return claude_code.file_action(layout, payload, *paths)


def gate_output(notice: Notice) -> dict[str, Any]:
    return {"permission": "deny", "user_message": USER_MESSAGE, "agent_message": notice.text}


def handle(layout: Layout, payload: dict[str, Any], config: Config) -> dict[str, Any] | None:
    event = payload.get("hook_event_name")
    key = session_of(payload)
    if event == "sessionStart":
        note = delivery.session_start(layout, key, "startup", config)
        return {"additional_context": note} if note else None
    if isinstance(event, str) and event in EVENT_MODES:
        modes = EVENT_MODES[event]
        action = action_of(layout, payload)
        with sessions.open_session(layout, key) as session:  # read once for the call
            notice = delivery.before_action(layout, key, action, config, modes, event, session)
        if GATE in modes:
            return gate_output(notice) if notice else None
        text = delivery.with_due(layout, key, config, notice.text if notice else None, session)
        return {"additional_context": text} if text else None
    if event == "preCompact":
        delivery.before_compaction(layout, key)
    return None
