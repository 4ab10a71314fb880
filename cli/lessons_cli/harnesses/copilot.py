"""GitHub Copilot CLI: ``sessionStart``, ``userPromptSubmitted``, ``preToolUse``,
``postToolUseFailure``, ``preCompact`` and ``agentStop``, in Copilot's own hook format.

Copilot's stdin does not name the event: it is ``{sessionId, timestamp, cwd}`` plus the
event's own fields, so ``event_of`` tells them apart by those fields. A gate is
``permissionDecision: "deny"``: the model reads "Denied by preToolUse hook: RULES" as the
tool's result before anything ran. ``additionalContext`` from ``preToolUse`` reaches the
model as a user message after the tool result: for a ``view`` of a file, that is beside
its content, before the model's next call, so its file rules come there, before an
edit. Tool names are Copilot's own (``bash``, ``create``, ``edit``, ``view``; ``grep`` and
``glob`` only read and name no file). Payloads recorded from the real client are kept in
tests/fixtures/copilot/.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypedDict

from lessons_cli.harnesses import claude_protocol as protocol
from lessons_cli.harnesses.spec import HookEvent, Wiring, any_of
from lessons_core.delivery import deliver as delivery
from lessons_core.delivery.deliver import HookCall, Notice
from lessons_core.delivery.tool_action import ToolAction

if TYPE_CHECKING:
    from lessons_cli.harnesses.events import Answer, Output
    from lessons_core.store.config import Config
    from lessons_core.store.layout import Layout

project_dir = protocol.project_dir

FILE_TOOLS = ("create", "edit")
SHELL_TOOL = "bash"
READ_TOOL = "view"
CHANGE_TOOLS = (SHELL_TOOL, *FILE_TOOLS)
TOOLS = (*CHANGE_TOOLS, READ_TOOL)
# Copilot CLI matches the whole tool name. It reads every .github/hooks/*.json, so the
# file is ours alone.
# Copilot CLI (1.0.102, tests/e2e/test_copilot.py) skips a repo's hooks silently unless
# the folder is trusted.
INIT_NOTE = (
    "Copilot CLI runs a repo's hooks only in a folder it trusts: start `copilot` here "
    'and answer "Yes, and remember this folder for future sessions" (a single '
    "`copilot -p` run can pass --trust-folder instead)"
)
WIRING = Wiring(
    "copilot",
    ".github/hooks/lessons.json",
    (
        HookEvent("sessionStart"),
        HookEvent("userPromptSubmitted"),
        HookEvent("preToolUse", any_of(TOOLS)),
        # A command that exits non-zero is a successful call to Copilot (1.0.102): only
        # its result's last line tells, so shell calls are read after they ran.
        HookEvent("postToolUse", SHELL_TOOL),
        HookEvent("postToolUseFailure", any_of(CHANGE_TOOLS)),
        HookEvent("preCompact"),
        HookEvent("agentStop"),
    ),
    project_dir_var="COPILOT_PROJECT_DIR",
    nested=False,
    handler_extra={"type": "command", "timeoutSec": 10},
    top_level={"version": 1},
    command_key="bash",
    note=INIT_NOTE,
    # Read in a trusted folder, like the hooks; servers get no project folder variable.
    mcp_settings=".github/mcp.json",
)
# Copilot starts a fresh session with source "new". It rebuilds a resumed conversation
# without the context hooks added to it, so a resume forgets shown rules and brings the
# note back, as compaction does; other sources pass through as they are.
SOURCES = {"new": "startup", "resume": "compact"}


class CopilotPayload(TypedDict, total=False):
    """What lessons reads of a Copilot CLI payload, as the client recorded it
    (tests/fixtures/copilot/); no key names the event (``event_of``). Every key may be
    missing or of another type: each is checked where it is read."""

    sessionId: str
    cwd: str
    source: str  # sessionStart: new, resume
    prompt: str  # userPromptSubmitted
    toolName: str
    toolArgs: dict[str, Any] | str  # an object; documented as JSON text too
    toolResult: dict[str, Any]  # postToolUse: {"textResultForLlm", ...}
    error: str  # postToolUseFailure
    trigger: str  # preCompact
    stopReason: str  # agentStop
    stop_hook_active: bool
    stopHookActive: bool


def event_of(payload: Mapping[str, Any]) -> str:
    """The event a payload belongs to, read from the fields only that event sends (of
    the JSON as it came: its type follows from the event)."""
    if "toolName" in payload:
        if "error" in payload:
            return "postToolUseFailure"
        return "postToolUse" if "toolResult" in payload else "preToolUse"
    if "prompt" in payload:
        return "userPromptSubmitted"
    if "source" in payload:
        return "sessionStart"
    if "trigger" in payload:
        return "preCompact"
    if "stopReason" in payload:
        return "agentStop"
    return ""


def tool_args(payload: CopilotPayload) -> dict[str, Any]:
    """``toolArgs`` as an object; Copilot has also been documented to send it as JSON text."""
    args = payload.get("toolArgs")
    if isinstance(args, str):
        try:
            args = json.loads(args)
        except ValueError:
            return {}
    return args if isinstance(args, dict) else {}


def action_of(layout: Layout, payload: CopilotPayload) -> ToolAction:
    """The file of ``create``/``edit`` (``path``), the command of ``bash``, the file
    ``view`` reads (``path``)."""
    tool = payload.get("toolName")
    args = tool_args(payload)
    if tool in FILE_TOOLS:
        return protocol.file_action(layout, payload, args.get("path"), tool_input=args)
    if tool == SHELL_TOOL:
        return protocol.shell_action(layout, payload, args.get("command"))
    if tool == READ_TOOL:
        return protocol.read_action(layout, payload, args.get("path"))
    return ToolAction()


def context_output(text: str | None) -> Output | None:
    return {"additionalContext": text} if text else None


def pre_tool_output(notice: Notice | None) -> Output | None:
    if notice is None:
        return None
    if notice.refuses:
        return {"permissionDecision": "deny", "permissionDecisionReason": notice.text}
    return context_output(notice.text)


def on_tool(layout: Layout, payload: CopilotPayload, config: Config) -> Output | None:
    """Before a tool call: a refusal, or its rules as context."""
    action = action_of(layout, payload)
    with HookCall(layout, session_of(payload), config) as call:  # read once for the call
        notice = call.before_action(action, event="preToolUse")
    if notice is not None and notice.refuses:
        return pre_tool_output(notice)
    return context_output(call.with_due(notice.text if notice else None))


def on_session_start(layout: Layout, payload: CopilotPayload, config: Config) -> Output | None:
    source = str(payload.get("source"))
    source = SOURCES.get(source, source)
    return context_output(delivery.session_start(layout, session_of(payload), source, config))


def on_prompt(layout: Layout, payload: CopilotPayload, config: Config) -> Output | None:
    prompt = payload.get("prompt")
    if not isinstance(prompt, str):
        return None
    with HookCall(layout, session_of(payload), config) as call:
        said = call.on_prompt(prompt, "userPromptSubmitted")
    return context_output(call.with_due(said.text if said else None))


def on_failure(layout: Layout, payload: CopilotPayload, config: Config) -> Output | None:
    error = payload.get("error")
    text = error if isinstance(error, str) else ""
    return _failed(layout, session_of(payload), payload, text, config, "postToolUseFailure")


def on_result(layout: Layout, payload: CopilotPayload, config: Config) -> Output | None:
    """After a shell call: a command that exited non-zero failed (Copilot calls it a
    success), one that exited 0 is the action's last outcome."""
    result = payload.get("toolResult")
    text = result.get("textResultForLlm") if isinstance(result, dict) else None
    code = shell_exit_code(text) if isinstance(text, str) else None
    key = session_of(payload)
    if isinstance(text, str) and code not in (None, 0):
        return _failed(layout, key, payload, text, config, "postToolUse")
    if code == 0:
        delivery.after_success(layout, key, action_of(layout, payload))
    return None


def on_pre_compact(layout: Layout, payload: CopilotPayload, config: Config) -> Output | None:
    delivery.before_compaction(layout, session_of(payload))
    return None


def on_stop(layout: Layout, payload: CopilotPayload, config: Config) -> Output | None:
    # Copilot CLI 1.0.102 sends stop_hook_active (its SDK's types say stopHookActive).
    active = True in (payload.get("stop_hook_active"), payload.get("stopHookActive"))
    return protocol.stop_output(layout, session_of(payload), config, active=active)


def session_of(payload: CopilotPayload) -> str:
    return str(payload["sessionId"])


def _failed(
    layout: Layout, key: str, payload: CopilotPayload, error: str, config: Config, event: str
) -> Output | None:
    """The nudge after a failed call (``feedback.recurrence``, imported by failures only)."""
    from lessons_core.delivery.nudges import after_failure  # noqa: PLC0415 (heavy: secret patterns)

    action = action_of(layout, payload)
    return context_output(after_failure(layout, key, action, error, config, event))


# Copilot ends a shell result with "<shellId: 0 completed with exit code 1>".
EXIT_MARK = " completed with exit code "


def shell_exit_code(text: str) -> int | None:
    """The exit code at the end of a shell tool's result, or None if it names none."""
    tail = text[-200:]
    at = tail.rfind(EXIT_MARK)
    if at < 0:
        return None
    digits = tail[at + len(EXIT_MARK) :].split(">", 1)[0].strip()
    return int(digits) if digits.isdigit() else None


ANSWERS: dict[str, Answer] = {
    "sessionStart": on_session_start,
    "userPromptSubmitted": on_prompt,
    "preToolUse": on_tool,
    "postToolUse": on_result,
    "postToolUseFailure": on_failure,
    "preCompact": on_pre_compact,
    "agentStop": on_stop,
}
EVENTS = frozenset(ANSWERS)
