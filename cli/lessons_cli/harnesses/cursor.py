"""Cursor: ``sessionStart``, ``beforeShellExecution``, ``preToolUse``, ``postToolUse``,
``postToolUseFailure``, ``preCompact`` and ``stop``.

Cursor refuses a call with ``permission: "deny"`` and hands ``agent_message`` to the
model, so gate rules go there, before the command or edit runs. Its pre-tool events
cannot add context; context rules follow in ``postToolUse`` as ``additional_context``.
A failed call comes as ``postToolUseFailure`` (``error_message``, ``failure_type``,
``is_interrupt``), an event that cannot add context either: its nudge is held in the
session and follows with the next ``postToolUse``. A shell call ``postToolUse`` reports
carries ``tool_output`` as JSON text with its ``exitCode``; one that exited non-zero is a
failure too. ``stop`` keeps the run going with ``followup_message``.
The session is Cursor's ``conversation_id``; the project is the first workspace root.
Payloads are kept in tests/fixtures/cursor/: shapes from the Cursor hooks reference (a
shell result's ``exitCode`` from what other projects captured from ``cursor-agent``), not
recorded from the client (it cannot run offline).
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any, TypedDict

from lessons_cli.harnesses import claude_protocol as protocol
from lessons_cli.harnesses.spec import HookEvent, Wiring, any_of
from lessons_core.delivery import actions
from lessons_core.delivery import deliver as delivery
from lessons_core.delivery.deliver import CONTEXT, GATE, HookCall, Notice
from lessons_core.delivery.tool_action import ToolAction

if TYPE_CHECKING:
    from lessons_cli.harnesses.events import Answer, Output
    from lessons_core.store.config import Config
    from lessons_core.store.layout import Layout

FILE_TOOLS = ("Write", "Edit", "MultiEdit", "StrReplace", "Delete", "NotebookEdit")
SHELL_TOOL = "Shell"
# Read's postToolUse context comes beside the file's content, before the model's next
# call: a file's rules come there, before an edit.
READ_TOOL = "Read"
CHANGE_TOOLS = (SHELL_TOOL, *FILE_TOOLS)
TOOLS = (*CHANGE_TOOLS, READ_TOOL)
# What each tool event can deliver (see the module docstring).
EVENT_MODES = {
    "beforeShellExecution": frozenset({GATE}),
    "preToolUse": frozenset({GATE}),
    "postToolUse": frozenset({CONTEXT}),
}
# A command is gated at beforeShellExecution, so preToolUse is wired for edits only.
WIRING = Wiring(
    "cursor",
    ".cursor/hooks.json",
    (
        HookEvent("sessionStart"),
        HookEvent("beforeShellExecution"),
        HookEvent("preToolUse", any_of(FILE_TOOLS)),
        HookEvent("postToolUse", any_of(TOOLS)),
        HookEvent("postToolUseFailure", any_of(CHANGE_TOOLS)),
        HookEvent("preCompact"),
        HookEvent("stop"),
    ),
    nested=False,
    top_level={"version": 1},
)
USER_MESSAGE = "lessons: showed the agent project rules for this call; it will retry."
# A call the user stopped, or one refused (by a hook such as lessons' own gate, or by the
# user), did not fail: nothing about the action is learned from it.
NOT_FAILED = frozenset({"permission_denied"})


class CursorPayload(TypedDict, total=False):
    """What lessons reads of a Cursor payload, as Cursor recorded it
    (tests/fixtures/cursor/). Every key may be missing or of another type: each is
    checked where it is read."""

    hook_event_name: str
    conversation_id: str
    session_id: str
    workspace_roots: list[str]
    cwd: str
    command: str  # beforeShellExecution
    tool_name: str
    tool_input: dict[str, Any]
    tool_output: str  # postToolUse: JSON text, a shell call's {"output", "exitCode"}
    tool_use_id: str
    failure_type: str  # postToolUseFailure
    error_message: str
    is_interrupt: bool
    status: str  # stop: completed, aborted, error
    loop_count: int


def project_dir(payload: CursorPayload) -> str | None:
    roots = payload.get("workspace_roots")
    if isinstance(roots, list) and roots and isinstance(roots[0], str):
        return roots[0]
    return protocol.project_dir(payload)


def session_of(payload: CursorPayload) -> str:
    return str(payload.get("conversation_id") or payload["session_id"])


def action_of(layout: Layout, payload: CursorPayload) -> ToolAction:
    if payload.get("hook_event_name") == "beforeShellExecution":
        return actions.running(layout, project_dir(payload), payload.get("command"))
    given = payload.get("tool_input")
    tool_input = given if isinstance(given, dict) else {}
    tool = payload.get("tool_name")
    if tool == SHELL_TOOL:
        return actions.running(layout, project_dir(payload), tool_input.get("command"))
    paths = [tool_input.get(k) for k in ("file_path", "path", "target_file")]
    if tool == READ_TOOL:
        return actions.reading(layout, project_dir(payload), *paths)
    if tool not in FILE_TOOLS:
        return ToolAction()
    return protocol.file_action(layout, payload, *paths)


def gate_output(notice: Notice) -> Output:
    return {"permission": "deny", "user_message": USER_MESSAGE, "agent_message": notice.text}


def on_session_start(layout: Layout, payload: CursorPayload, config: Config) -> Output | None:
    note = delivery.session_start(layout, session_of(payload), "startup", config)
    return {"additional_context": note} if note else None


def on_tool(layout: Layout, payload: CursorPayload, config: Config) -> Output | None:
    """Before a shell command or an edit: a refusal; after a call: context, with the
    capture nudge of a shell call that failed, or the call's success recorded."""
    event = str(payload.get("hook_event_name"))
    modes = EVENT_MODES[event]
    action = action_of(layout, payload)
    ran = shell_exit(payload) if event == "postToolUse" else None
    with HookCall(layout, session_of(payload), config) as call:  # read once for the call
        notice = call.before_action(action, modes, event)
    if GATE in modes:
        return gate_output(notice) if notice else None
    nudge = _after_tool(call, payload, action, ran)
    said = "\n".join(part for part in (nudge, notice.text if notice else None) if part)
    text = call.with_due(said or None)
    return {"additional_context": text} if text else None


def on_failure(layout: Layout, payload: CursorPayload, config: Config) -> Output | None:
    _failed(layout, session_of(payload), payload, config)
    return None


def on_pre_compact(layout: Layout, payload: CursorPayload, config: Config) -> Output | None:
    delivery.before_compaction(layout, session_of(payload))
    return None


def on_stop(layout: Layout, payload: CursorPayload, config: Config) -> Output | None:
    return _stop(layout, session_of(payload), payload, config)


def shell_exit(payload: CursorPayload) -> tuple[int, str] | None:
    """The exit code and output of the shell call a ``postToolUse`` reports (its
    ``tool_output`` is JSON text, ``{"output": ..., "exitCode": N}``), or None."""
    if payload.get("tool_name") != SHELL_TOOL:
        return None
    output = payload.get("tool_output")
    try:
        result = json.loads(output) if isinstance(output, str) else output
    except (ValueError, RecursionError):  # not the JSON documented: no exit code known
        return None
    if not isinstance(result, dict):
        return None
    code = result.get("exitCode")
    if type(code) is not int:
        return None
    text = result.get("output")
    return code, text if isinstance(text, str) else ""


def call_of(payload: CursorPayload) -> str:
    """Cursor's id of the tool call, the same in each event about it."""
    call = payload.get("tool_use_id")
    return call if isinstance(call, str) else ""


def _after_tool(
    call: HookCall, payload: CursorPayload, action: ToolAction, ran: tuple[int, str] | None
) -> str | None:
    """A call ran: a shell call that exited non-zero failed (its nudge is returned); a
    shell call that exited 0, or a file tool's call, is the action's last outcome, a
    success. A shell call without a readable exit code tells nothing."""
    if ran is not None and ran[0] != 0:
        from lessons_core.delivery.nudges import after_failure  # noqa: PLC0415 (heavy: secret patterns)

        code, output = ran
        error = f"Exit code {code}\n{output}"
        return after_failure(
            call.layout, call.key, action, error, call.config, "postToolUse", call=call_of(payload)
        )
    if ran is not None or payload.get("tool_name") in FILE_TOOLS:
        call.after_success(action)
    return None


def _failed(layout: Layout, key: str, payload: CursorPayload, config: Config) -> None:
    """A failed call: counted, its nudge held for the next hook that can add context."""
    kind = payload.get("failure_type")
    if payload.get("is_interrupt") is True or (isinstance(kind, str) and kind in NOT_FAILED):
        return
    error = payload.get("error_message")
    if not isinstance(error, str) or not error:
        error = kind if isinstance(kind, str) and kind else "error"
    from lessons_core.delivery.nudges import after_failure  # noqa: PLC0415 (heavy: secret patterns)

    action = action_of(layout, payload)
    call = call_of(payload)
    after_failure(layout, key, action, error, config, "postToolUseFailure", hold=True, call=call)


def _stop(layout: Layout, key: str, payload: CursorPayload, config: Config) -> Output | None:
    """Keep a run that ended on its own going once, to capture what it taught. Cursor
    sends ``followup_message`` as the next user message; ``loop_count`` above 0 says the
    run already goes on because of one."""
    if payload.get("status") != "completed":  # aborted by the user, or an error
        return None
    from lessons_core.feedback.stop_capture import stop_request  # noqa: PLC0415 (heavy: secret patterns)

    count = payload.get("loop_count")
    active = type(count) is int and count > 0
    text = stop_request(layout, key, config, active=active)
    return {"followup_message": text} if text else None


ANSWERS: dict[str, Answer] = {
    "sessionStart": on_session_start,
    "beforeShellExecution": on_tool,
    "preToolUse": on_tool,
    "postToolUse": on_tool,
    "postToolUseFailure": on_failure,
    "preCompact": on_pre_compact,
    "stop": on_stop,
}
EVENTS = frozenset(ANSWERS)
