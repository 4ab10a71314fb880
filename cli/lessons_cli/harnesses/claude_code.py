"""Claude Code: ``SessionStart``, ``UserPromptSubmit``, ``PreToolUse``, ``PreCompact``,
``PostToolUseFailure`` and ``Stop`` hooks, answered with Claude Code's ``hookSpecificOutput``
(``Stop``: ``decision: "block"`` with a ``reason``, which keeps the session going with the
reason as the next user message).

A gate is ``permissionDecision: "deny"``: the model gets the rules as the tool's error
result before anything ran. Context is ``additionalContext``, which Claude Code hands the
model next to the tool result. ``Read`` is wired too: Claude Code refuses an ``Edit`` of
a file the model has not read, and context given at the ``Read`` arrives beside the
file's content, in the request the model answers with its edit. Payloads are kept in
tests/fixtures/claude_code/. The protocol's own parts, which other adapters share, are in
``claude_protocol``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from lessons_cli.harnesses import claude_protocol as protocol
from lessons_cli.harnesses.spec import HookEvent, Wiring, any_of
from lessons_core.delivery import deliver as delivery
from lessons_core.delivery.tool_action import ToolAction

if TYPE_CHECKING:
    from lessons_cli.harnesses.claude_protocol import HookPayload
    from lessons_cli.harnesses.events import Answer, Output
    from lessons_core.delivery.deliver import Notice
    from lessons_core.store.config import Config
    from lessons_core.store.layout import Layout

FILE_TOOLS = ("Edit", "Write", "MultiEdit", "NotebookEdit")
SHELL_TOOL = "Bash"
READ_TOOL = "Read"
# The tools whose calls change something (and whose failures are heard).
CHANGE_TOOLS = (*FILE_TOOLS, SHELL_TOOL)
TOOLS = (*CHANGE_TOOLS, READ_TOOL)
WIRING = Wiring(
    "claude-code",
    ".claude/settings.json",
    (
        HookEvent("SessionStart"),
        HookEvent("UserPromptSubmit"),
        HookEvent("PreToolUse", any_of(TOOLS)),
        HookEvent("PreCompact"),
        HookEvent("PostToolUseFailure", any_of(CHANGE_TOOLS)),
        HookEvent("Stop"),
    ),
    project_dir_var="CLAUDE_PROJECT_DIR",
    handler_extra={"timeout": 10},
    mcp_settings=".mcp.json",
    mcp_project_dir_var="CLAUDE_PROJECT_DIR",
)


project_dir = protocol.project_dir


def action_of(layout: Layout, payload: HookPayload) -> ToolAction:
    """Files from ``file_path``/``notebook_path``, the command from ``command``; a
    ``Read`` reads its ``file_path``."""
    tool = payload.get("tool_name")
    given = payload.get("tool_input")
    tool_input = given if isinstance(given, dict) else {}
    if tool in FILE_TOOLS:
        path = tool_input.get("file_path") or tool_input.get("notebook_path")
        return protocol.file_action(layout, payload, path)
    if tool == SHELL_TOOL:
        return protocol.shell_action(layout, payload, tool_input.get("command"))
    if tool == READ_TOOL:
        return protocol.read_action(layout, payload, tool_input.get("file_path"))
    return ToolAction()


# The events that deliver rules, each answered with a ``Notice`` (see ``notice_of``).
NOTICE_EVENTS = ("UserPromptSubmit", "PreToolUse")


def notice_of(layout: Layout, payload: HookPayload, config: Config) -> Notice | None:
    """The rules a prompt or a tool call brings (one of ``NOTICE_EVENTS``); the replay
    reads which rules were shown from it."""
    key = protocol.session_of(payload)
    if payload.get("hook_event_name") == "UserPromptSubmit":
        prompt = payload.get("prompt")
        return delivery.on_prompt(layout, key, prompt, config) if isinstance(prompt, str) else None
    return delivery.before_action(layout, key, action_of(layout, payload), config)


def notice_output(event: str, notice: Notice | None) -> Output | None:
    """A notice as the answer to ``event``: a refusal or context before a tool call,
    context after a prompt."""
    if event == "PreToolUse":
        return protocol.pre_tool_output(notice)
    return protocol.context_output(event, notice.text if notice else None)


def on_notice(layout: Layout, payload: HookPayload, config: Config) -> Output | None:
    """A prompt's or a tool call's rules, as that event's answer."""
    return notice_output(str(payload.get("hook_event_name")), notice_of(layout, payload, config))


ANSWERS: dict[str, Answer] = {
    "SessionStart": protocol.on_session_start,
    "UserPromptSubmit": on_notice,
    "PreToolUse": on_notice,
    "PreCompact": protocol.on_pre_compact,
    "PostToolUseFailure": protocol.on_failure(action_of),
    "Stop": protocol.on_stop,
}
EVENTS = frozenset(ANSWERS)
