"""OpenCode: a plugin in ``.opencode/plugin/lessons.js`` (``opencode_plugin``) hands the
client's hooks and events to ``lessons hook opencode``; Kilo Code CLI, a fork of OpenCode,
runs the same plugin from ``.kilo/plugin/`` (``kilo``).

OpenCode has no hook files: a project's plugins are JavaScript it loads at start, without
asking for trust. The plugin sends one JSON object per call, shaped like Claude Code's
(``hook_event_name``, ``session_id``, ``cwd``, ``tool_name``, ``tool_input``: the tool's
``args`` as the client gives them), and acts on the answer:

- ``tool.execute.before`` (``bash``, ``edit``, ``write``) can only refuse: ``{"block":
  RULES}`` makes the plugin throw, the tool does not run, and the model reads RULES as the
  tool's result. Nothing else a plugin does reaches the model before the tool runs.
- ``tool.execute.after`` (those and ``read``) appends ``{"context": RULES}`` to the tool's
  output: a read's file rules come with the file's content, before the model's next call,
  so before it edits the file. It comes only after a call that succeeded (a tool that
  throws has no after-hook); a command's exit code is in ``exit``, its output's tail in
  ``output``, for the failure nudge.
- ``chat.message``: the user's prompt (``prompt``); ``{"context": TEXT}`` becomes a part
  of that message: prompt rules, and the session note and always-on lessons when due.
- The events ``session.created`` (a new session: the note and always-on lessons are due),
  ``session.compacted`` (shown rules become eligible again, the note is due again) and
  ``session.idle`` (the agent stopped: ``{"prompt": REQUEST}`` sends the capture request
  as the session's next message, once per session; ``opencode run`` exits at that idle,
  so only a client that stays up, the TUI or ``opencode serve``, goes on with it).

Tool names are the client's own; file paths (``filePath``) are absolute. Payloads recorded
from the real client are kept in tests/fixtures/opencode/.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from lessons_cli.harnesses import claude_protocol as protocol
from lessons_cli.harnesses.spec import HookEvent, Wiring, anchored
from lessons_core.delivery.deliver import CONTEXT, GATE, HookCall
from lessons_core.delivery.tool_action import ToolAction
from lessons_core.session import state as sessions

if TYPE_CHECKING:
    from lessons_cli.harnesses.events import Answer, Output
    from lessons_core.store.config import Config
    from lessons_core.store.layout import Layout

project_dir = protocol.project_dir

FILE_TOOLS = ("edit", "write")
SHELL_TOOL = "bash"
READ_TOOL = "read"
CHANGE_TOOLS = (SHELL_TOOL, *FILE_TOOLS)
TOOLS = (*CHANGE_TOOLS, READ_TOOL)
BEFORE, AFTER, PROMPT = "tool.execute.before", "tool.execute.after", "chat.message"
CREATED, COMPACTED, IDLE = "session.created", "session.compacted", "session.idle"
SESSION_EVENTS = (CREATED, COMPACTED, IDLE)
# What each tool hook can deliver (see the module docstring).
EVENT_MODES = {BEFORE: frozenset({GATE}), AFTER: frozenset({CONTEXT})}
PLUGIN_DIR = ".opencode/plugin"


def wiring(harness: str, plugin_dir: str) -> Wiring:
    """The events the plugin in ``plugin_dir`` hands to ``lessons hook HARNESS``; the
    matchers are the tools it calls the hook for (the plugin holds them as lists)."""
    return Wiring(
        harness,
        f"{plugin_dir}/lessons.js",
        (
            HookEvent(CREATED),
            HookEvent(PROMPT),
            HookEvent(BEFORE, anchored(CHANGE_TOOLS)),
            HookEvent(AFTER, anchored(TOOLS)),
            HookEvent(COMPACTED),
            HookEvent(IDLE),
        ),
        nested=False,
    )


WIRING = wiring("opencode", PLUGIN_DIR)


def action_of(layout: Layout, payload: PluginPayload) -> ToolAction:
    """The file of ``edit``/``write`` and of ``read`` (``filePath``), the command of
    ``bash``; what an edit adds is its ``newString``, a write's its ``content`` (for a
    ``forbid`` pattern)."""
    given = payload.get("tool_input")
    args = given if isinstance(given, dict) else {}
    tool = payload.get("tool_name")
    if tool in FILE_TOOLS:
        path = args.get("filePath")
        text = args.get("newString" if tool == "edit" else "content")
        added = [(path, text)] if isinstance(text, str) else None
        return protocol.file_action(layout, payload, path, tool_input=args, added=added)
    if tool == SHELL_TOOL:
        return protocol.shell_action(layout, payload, args.get("command"))
    if tool == READ_TOOL:
        return protocol.read_action(layout, payload, args.get("filePath"))
    return ToolAction()


class PluginPayload(protocol.HookPayload, total=False):
    """A payload of the plugin, as OpenCode 1.18.33 and Kilo 7.7.7 recorded it
    (tests/fixtures/opencode, kilo): Claude Code's keys with the clients' event names,
    and a shell call's ``exit`` code and ``output`` after it ran."""

    exit: int | None
    output: object


def on_prompt(layout: Layout, payload: PluginPayload, config: Config) -> Output | None:
    prompt = payload.get("prompt")
    with HookCall(layout, protocol.session_of(payload), config) as call:
        said = call.on_prompt(prompt, PROMPT) if isinstance(prompt, str) else None
    return _answer("context", call.with_due(said.text if said else None))


def on_session(layout: Layout, payload: PluginPayload, config: Config) -> Output | None:
    """A session created or compacted. No event of either can add context: what was
    shown is forgotten, and the note and always-on lessons wait for the next hook that
    can (``with_due``)."""
    sessions.reset(layout, protocol.session_of(payload), due=True)
    if payload.get("hook_event_name") == CREATED:
        sessions.prune_stale(layout)
    return None


def on_idle(layout: Layout, payload: PluginPayload, config: Config) -> Output | None:
    """The session went idle: once, send the request that captures what it taught."""
    stop = protocol.stop_output(layout, protocol.session_of(payload), config, active=False)
    return _answer("prompt", stop["reason"] if stop else None)


def on_tool(layout: Layout, payload: PluginPayload, config: Config) -> Output | None:
    """Before a tool call: a refusal; after it: context, with the capture nudge of a
    command that failed, or the change's success recorded."""
    event = str(payload.get("hook_event_name"))
    key = protocol.session_of(payload)
    action = action_of(layout, payload)
    modes = EVENT_MODES[event]
    with HookCall(layout, key, config) as call:  # read once for the whole call
        notice = call.before_action(action, modes, event)
    if event == BEFORE:
        return _answer("block", notice.text if notice and notice.refuses else None)
    texts = [notice.text] if notice is not None else []
    error = failure_of(payload)
    if error is not None:
        from lessons_core.delivery.nudges import after_failure  # noqa: PLC0415 (heavy: secret patterns)

        nudge = after_failure(layout, key, action, error, config, event)
        texts += [nudge] if nudge else []
    elif payload.get("tool_name") in CHANGE_TOOLS:
        call.after_success(action)
    return _answer("context", call.with_due("\n".join(texts) or None))


def failure_of(payload: PluginPayload) -> str | None:
    """The output of a command that exited non-zero (the only failure the after-hook
    sees: a tool that fails throws, and no after-hook follows); None otherwise."""
    code = payload.get("exit")
    if payload.get("tool_name") != SHELL_TOOL or not isinstance(code, int) or code == 0:
        return None
    output = payload.get("output")
    return f"{output if isinstance(output, str) else ''}\nexit code {code}"


def _answer(key: str, text: str | None) -> Output | None:
    return {key: text} if text else None


ANSWERS: dict[str, Answer] = {
    CREATED: on_session,
    PROMPT: on_prompt,
    BEFORE: on_tool,
    AFTER: on_tool,
    COMPACTED: on_session,
    IDLE: on_idle,
}
EVENTS = frozenset(ANSWERS)
