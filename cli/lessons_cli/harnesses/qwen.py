"""Qwen Code: ``SessionStart``, ``UserPromptSubmit``, ``PreToolUse``, ``PostToolUse``,
``PostToolUseFailure``, ``PreCompact`` and ``Stop``, in Claude Code's hook format (``Stop``
answered as Claude Code's: ``decision: "block"`` with the capture request as its
``reason``, once, never while ``stop_hook_active``).

Qwen Code drops the ``additionalContext`` of ``PreToolUse``, so that event delivers the
gate rules only (``permissionDecision: "deny"``: the model reads the rules as the tool's
result before anything ran); context rules follow in ``PostToolUse``, whose
``additionalContext`` Qwen appends to the tool's result. Tool names are Qwen's own
(``run_shell_command``, ``write_file``, ``edit``; ``read_file`` reads, and its
``PostToolUse`` brings the file's rules with its content, before the model's next call,
so before it edits the file). Qwen fires ``UserPromptSubmit`` before
every model request, with an empty ``prompt`` after the first, and HTML-escapes ``<`` and
``>`` in context, so context blocks are fenced ``[lessons]``. Payloads recorded
from the real client are kept in tests/fixtures/qwen/.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from lessons_cli.harnesses import claude_protocol as protocol
from lessons_cli.harnesses.spec import HookEvent, Wiring, anchored
from lessons_core.delivery.deliver import CONTEXT, GATE, HookCall
from lessons_core.recall.render import bracket_fence

if TYPE_CHECKING:
    from lessons_cli.harnesses.claude_protocol import HookPayload
    from lessons_cli.harnesses.events import Answer, Output
    from lessons_core.delivery.tool_action import ToolAction
    from lessons_core.store.config import Config
    from lessons_core.store.layout import Layout

project_dir = protocol.project_dir

FILE_TOOLS = ("write_file", "edit")
SHELL_TOOL = "run_shell_command"
READ_TOOLS = {"read_file": ("file_path",)}
CHANGE_TOOLS = (SHELL_TOOL, *FILE_TOOLS)
TOOLS = (*CHANGE_TOOLS, *READ_TOOLS)
# What each tool event can deliver (see the module docstring).
EVENT_MODES = {"PreToolUse": frozenset({GATE}), "PostToolUse": frozenset({CONTEXT})}
# Qwen Code searches the tool name for its matcher, so the names are anchored; grep_search
# and glob only read, and name no file; read_file is heard after it ran (its PreToolUse
# context would be dropped, and a read has nothing to refuse).
WIRING = Wiring(
    "qwen",
    ".qwen/settings.json",
    (
        HookEvent("SessionStart"),
        HookEvent("UserPromptSubmit"),
        HookEvent("PreToolUse", anchored(CHANGE_TOOLS)),
        HookEvent("PostToolUse", anchored(TOOLS)),
        HookEvent("PostToolUseFailure", anchored(CHANGE_TOOLS)),
        HookEvent("PreCompact"),
        HookEvent("Stop"),
    ),
    project_dir_var="QWEN_PROJECT_DIR",
    handler_extra={"timeout": 10000},
    # Servers get no project folder variable (QWEN_PROJECT_DIR is the hooks' only): the
    # client starts them with its own environment and the entry's env, in the folder it
    # runs in (Qwen Code 0.24.4, createTransport in its bundle).
    mcp_settings=".qwen/settings.json",
)


def action_of(layout: Layout, payload: HookPayload) -> ToolAction:
    """The file of ``write_file``/``edit`` (``file_path``), the command of the shell tool."""
    return protocol.input_action(layout, payload, FILE_TOOLS, SHELL_TOOL, READ_TOOLS)


def on_tool(layout: Layout, payload: HookPayload, config: Config) -> Output | None:
    """Before a tool call: a refusal; after it: context, the success recorded (a failure
    comes as ``PostToolUseFailure``)."""
    event = str(payload.get("hook_event_name"))
    action = action_of(layout, payload)
    modes = EVENT_MODES[event]
    with HookCall(layout, protocol.session_of(payload), config) as call:  # read once
        notice = call.before_action(action, modes, event)
    changing = payload.get("tool_name") in CHANGE_TOOLS
    if event == "PostToolUse" and changing:  # PostToolUseFailure follows a failure
        call.after_success(action)
    if notice is not None and notice.refuses:
        return protocol.pre_tool_output(notice, event)
    if CONTEXT not in modes:
        return None
    text = call.with_due(notice.text if notice else None)
    return protocol.context_output(event, _fenced(text) if text else None)


def on_prompt(layout: Layout, payload: HookPayload, config: Config) -> Output | None:
    """Before every model request: the prompt's rules, empty after the first."""
    prompt = payload.get("prompt")
    with HookCall(layout, protocol.session_of(payload), config) as call:
        said = call.on_prompt(prompt) if isinstance(prompt, str) else None
    text = call.with_due(said.text if said else None)
    return protocol.context_output("UserPromptSubmit", _fenced(text) if text else None)


def _fenced(text: str) -> str:
    """Qwen HTML-escapes ``<`` and ``>`` in hook context (not in a deny reason), so context
    blocks are fenced with square brackets. Rendering is imported only when something is
    shown (docs/performance.md)."""

    return bracket_fence(text)


ANSWERS: dict[str, Answer] = {
    "SessionStart": protocol.on_session_start,
    "UserPromptSubmit": on_prompt,
    "PreToolUse": on_tool,
    "PostToolUse": on_tool,
    "PostToolUseFailure": protocol.on_failure(action_of),
    "PreCompact": protocol.on_pre_compact,
    "Stop": protocol.on_stop,
}
EVENTS = frozenset(ANSWERS)
