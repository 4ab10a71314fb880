"""Pi (``@mariozechner/pi-coding-agent``): a TypeScript extension, not hook entries.

Pi runs no hook commands; it loads the project's extensions from ``.pi/extensions/``.
``lessons init --pi`` writes ``lessons.ts`` there (the text is ``pi_extension.ts`` beside
this module, written by ``lessons_cli.harnesses.plugin_files``); on each event it runs the
launcher, ``sh .lessons/run hook pi``, with JSON like Claude Code's: ``hook_event_name``
(Pi's own event name), ``session_id``, ``cwd``, and per event ``source`` and ``held`` (the
reason of ``session_start``, and whether the session holds messages), ``prompt``
(``before_agent_start``), ``tool_name`` and ``tool_input`` (``tool_call``,
``tool_result``, the latter with ``is_error`` and the failed call's ``error`` text). It
reads back ``{"block": true, "reason": R}`` (refuse a tool call: the model gets R as its
result before anything ran) or ``{"context": T}``.

What Pi 0.73.1 does with them (tests/e2e/test_pi.py):

- ``tool_call`` can refuse but add nothing, so it delivers the gate rules only, for the
  changing tools (``edit``, ``write``, ``bash``); ``tool_result`` appends context to the
  tool's result, so a ``read`` brings its file's rules before the model's next call, and
  so before it can change the file.
- ``session_start`` has no way to the model: its note waits in the extension and goes
  with the first prompt, beside ``before_agent_start``'s prompt rules, as a message of its
  own after the user's.
- Pi compacts only when a run ends (and before the next prompt), never between two tool
  calls of a run (``session_before_compact``, then ``session_compact``): both make shown
  rules eligible again, the note and always-on lessons due for the next tool result or
  prompt.
- ``agent_end`` answers the stop-time capture request, which the extension sends as the
  next prompt once the agent is idle (a ``pi -p`` run waits for it before it exits).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from lessons_cli.harnesses import claude_protocol as protocol
from lessons_cli.harnesses.spec import HookEvent, Wiring, anchored
from lessons_core.delivery import deliver as delivery
from lessons_core.delivery.deliver import CONTEXT, GATE, HookCall
from lessons_core.delivery.tool_action import ToolAction

if TYPE_CHECKING:
    from typing import Any

    from lessons_cli.harnesses.events import Answer, Output
    from lessons_core.store.config import Config
    from lessons_core.store.layout import Layout

project_dir = protocol.project_dir

FILE_TOOLS = ("edit", "write")
SHELL_TOOL = "bash"
READ_TOOL = "read"
CHANGE_TOOLS = (*FILE_TOOLS, SHELL_TOOL)
TOOLS = (*CHANGE_TOOLS, READ_TOOL)
# What each tool event can deliver (see the module docstring).
EVENT_MODES = {"tool_call": frozenset({GATE}), "tool_result": frozenset({CONTEXT})}
# ``session_start``'s reason -> the source lessons knows: a new session starts fresh; a
# resumed, forked or reloaded one holds what it was shown, and so does one started with
# messages in it (``held``: ``pi -c``, whose reason is "startup").
SOURCES = {"startup": "startup", "new": "startup"}
# The extension itself calls the hook for these tools only (its CHANGES and TOOLS;
# tests/hooks/test_init_pi.py holds the two together).
WIRING = Wiring(
    "pi",
    ".pi/extensions/lessons.ts",
    (
        HookEvent("session_start"),
        HookEvent("before_agent_start"),
        HookEvent("tool_call", anchored(CHANGE_TOOLS)),
        HookEvent("tool_result", anchored(TOOLS)),
        HookEvent("session_before_compact"),
        HookEvent("session_compact"),
        HookEvent("agent_end"),
    ),
    # Pi 0.73.1 looks for .pi/extensions/ in the folder it starts in, not above it.
    note="Pi loads .pi/extensions/lessons.ts only in a session started in {root}",
)


def action_of(layout: Layout, payload: PiPayload) -> ToolAction:
    """``edit`` and ``write`` change ``path``, ``bash`` runs ``command``, ``read`` reads
    ``path`` (Pi drops a leading ``@`` from a path, as a prompt's mention writes it)."""
    given = payload.get("tool_input")
    tool_input = given if isinstance(given, dict) else {}
    tool = payload.get("tool_name")
    path = tool_input.get("path")
    path = path[1:] if isinstance(path, str) and path.startswith("@") else path
    if tool == "edit":
        return protocol.file_action(layout, payload, path, added=[(path, _new_text(tool_input))])
    if tool == "write":
        return protocol.file_action(layout, payload, path)
    if tool == SHELL_TOOL:
        return protocol.shell_action(layout, payload, tool_input.get("command"))
    if tool == READ_TOOL:
        return protocol.read_action(layout, payload, path)
    return ToolAction()


def _new_text(tool_input: dict[str, Any]) -> str:
    """What an ``edit`` adds: the ``newText`` of each of its ``edits``, a line apart (where
    a ``forbid`` pattern is looked for)."""
    edits = tool_input.get("edits")
    found = (
        [e.get("newText") for e in edits if isinstance(e, dict)] if isinstance(edits, list) else []
    )
    return "\n".join(text for text in found if isinstance(text, str))


class PiPayload(protocol.HookPayload, total=False):
    """A payload of the extension, as Pi 0.73.1 recorded it (tests/fixtures/pi/): Claude
    Code's keys with Pi's event names, and ``held`` (``session_start``: the session
    holds messages) and ``is_error`` (``tool_result``: the call failed, ``error`` says
    how)."""

    held: bool
    is_error: bool


def on_session_start(layout: Layout, payload: PiPayload, config: Config) -> Output | None:
    fresh = payload.get("held") is not True  # ``pi -c`` holds the conversation
    source = SOURCES.get(str(payload.get("source")), "resume") if fresh else "resume"
    return _context(delivery.session_start(layout, protocol.session_of(payload), source, config))


def on_compaction(layout: Layout, payload: PiPayload, config: Config) -> Output | None:
    delivery.before_compaction(layout, protocol.session_of(payload))
    return None


def on_agent_end(layout: Layout, payload: PiPayload, config: Config) -> Output | None:
    from lessons_core.feedback.stop_capture import stop_request  # noqa: PLC0415 (heavy: secret patterns)

    return _context(stop_request(layout, protocol.session_of(payload), config, active=False))


def on_prompt(layout: Layout, payload: PiPayload, config: Config) -> Output | None:
    with HookCall(layout, protocol.session_of(payload), config) as call:
        prompt = payload.get("prompt")
        said = call.on_prompt(prompt, "before_agent_start") if isinstance(prompt, str) else None
        return _context(call.with_due(said.text if said else None))


def on_tool(layout: Layout, payload: PiPayload, config: Config) -> Output | None:
    """Before a tool call: a refusal; after it: context, with the capture nudge of a
    change that failed, or its success recorded."""
    event = str(payload.get("hook_event_name"))
    key = protocol.session_of(payload)
    with HookCall(layout, key, config) as call:  # read once for the whole call
        action = action_of(layout, payload)
        notice = call.before_action(action, EVENT_MODES[event], event)
    if notice is not None and notice.refuses:
        return {"block": True, "reason": notice.text}
    if event == "tool_call":
        return None
    texts = [notice.text] if notice is not None else []
    if payload.get("tool_name") in CHANGE_TOOLS:  # a failed read teaches nothing
        texts += _after(layout, key, call, action, payload, config)
    due = call.with_due(None)  # always-on lessons a compaction left due come first
    return _context("\n".join([due, *texts] if due else texts))


def _after(
    layout: Layout,
    key: str,
    call: HookCall,
    action: ToolAction,
    payload: PiPayload,
    config: Config,
) -> list[str]:
    """The capture nudge after a change that failed; a success recorded (a failure then
    a fix)."""
    if payload.get("is_error") is not True:
        call.after_success(action)
        return []
    from lessons_core.delivery.nudges import after_failure  # noqa: PLC0415 (heavy: secret patterns)

    error = payload.get("error")
    text = error if isinstance(error, str) else ""
    nudge = after_failure(layout, key, action, text, config, "tool_result")
    return [nudge] if nudge else []


def _context(text: str | None) -> Output | None:
    return {"context": text} if text else None


ANSWERS: dict[str, Answer] = {
    "session_start": on_session_start,
    "before_agent_start": on_prompt,
    "tool_call": on_tool,
    "tool_result": on_tool,
    "session_before_compact": on_compaction,
    "session_compact": on_compaction,
    "agent_end": on_agent_end,
}
EVENTS = frozenset(ANSWERS)
