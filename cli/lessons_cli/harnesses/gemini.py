"""Gemini CLI: ``SessionStart``, ``BeforeAgent``, ``BeforeTool``, ``AfterTool``, ``PreCompress``,
``AfterAgent``.

``BeforeTool`` can refuse a call (``decision: "deny"`` with the rules as the ``reason``,
which the model receives as the tool's error) but cannot add context, so it delivers the
gate rules only; context rules follow in ``AfterTool`` as ``additionalContext``, which the
client appends to the tool's result. Tool names are Gemini's own: ``write_file`` and
``replace`` edit files, ``run_shell_command`` runs a command, ``read_file`` and
``read_many_files`` read; ``WIRING`` matches exactly these (tests/hooks/test_wired_tools.py
holds the two together). A read's file rules come with its ``AfterTool``, appended to the
file's content: the model has them before its next call, so before it edits the file.
``BeforeTool`` is wired for the changing tools only (a read has nothing to refuse).

Two traps of the client (Gemini CLI 0.61.0, read in its source and seen in
tests/e2e/test_gemini_cli.py):

- It HTML-escapes ``<`` and ``>`` in ``additionalContext``, so every block is fenced with
  square brackets here (``render.bracket_fence``).
- It fires ``PreCompress`` (trigger ``auto``) before *every* model request, compressing
  or not, and no event follows a compression. What does follow one is a record in the
  session's transcript (JSON lines at ``transcript_path``) replacing the conversation
  with the shortened history. So ``PreCompress`` keeps how far the transcript went (its offset),
  and the next hook that finds such a record past that offset forgets what was shown. The
  client writes that record whenever it rewrites the history the model sees (also when
  it masks or truncates bulky tool output, or rolls back a failed request): each of those
  can drop a delivered rule too. ``SessionStart`` clears the offset, since starting or
  resuming a session writes the record as well.

``AfterAgent`` is Gemini's stop hook: ``decision: "block"`` makes the client send the
``reason`` as the next request, with ``stop_hook_active`` true on the stop after it.

``BeforeAgent``'s prompt starts with the context ``SessionStart`` hooks answered, in
``<hook_context>`` blocks; only the user's words after them are matched.

Payloads recorded from the real client are kept in tests/fixtures/gemini/.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

from lessons_cli.harnesses import claude_protocol as protocol
from lessons_cli.harnesses.spec import HookEvent, Wiring, anchored
from lessons_core.delivery import deliver as delivery
from lessons_core.delivery.deliver import CONTEXT, GATE, HookCall
from lessons_core.delivery.tool_action import ToolAction
from lessons_core.fsutil import open_payload_file
from lessons_core.recall.render import bracket_fence

if TYPE_CHECKING:
    from lessons_cli.harnesses.claude_protocol import HookPayload
    from lessons_cli.harnesses.events import Answer, Output
    from lessons_core.store.config import Config
    from lessons_core.store.layout import Layout

project_dir = protocol.project_dir

FILE_TOOLS = ("write_file", "replace")
SHELL_TOOL = "run_shell_command"
# A read tool and the keys of its input that name what it reads (one path, or a list).
READ_TOOLS = {"read_file": ("file_path",), "read_many_files": ("include",)}
CHANGE_TOOLS = (*FILE_TOOLS, SHELL_TOOL)
TOOLS = (*CHANGE_TOOLS, *READ_TOOLS)
# What each tool event can deliver (see the module docstring).
EVENT_MODES = {"BeforeTool": frozenset({GATE}), "AfterTool": frozenset({CONTEXT})}
# Gemini CLI tests a matcher as an unanchored regular expression (``RegExp.test``).
# Gemini CLI (0.61.0, tests/e2e/test_gemini_cli.py) reads .gemini/settings.json only
# in a trusted folder; headless, an untrusted folder is an exit, not a silent skip.
INIT_NOTE = (
    "Gemini CLI runs a project's hooks only in a trusted folder. Trust {root} once: "
    'add "{root}": "TRUST_FOLDER" to ~/.gemini/trustedFolders.json, or answer its '
    "trust prompt in an interactive session (/permissions trust). A headless run "
    "(gemini -p) in an untrusted folder exits with code 55 unless "
    "GEMINI_CLI_TRUST_WORKSPACE=true is set"
)
WIRING = Wiring(
    "gemini",
    ".gemini/settings.json",
    (
        HookEvent("SessionStart"),
        HookEvent("BeforeAgent"),
        HookEvent("BeforeTool", anchored(CHANGE_TOOLS)),
        HookEvent("AfterTool", anchored(TOOLS)),
        HookEvent("PreCompress"),
        HookEvent("AfterAgent"),
    ),
    project_dir_var="GEMINI_PROJECT_DIR",
    handler_extra={"name": "lessons", "timeout": 10000},
    note=INIT_NOTE,
    # Servers get no project folder variable: they start in the session's folder.
    mcp_settings=".gemini/settings.json",
)

# The transcript record that replaces the conversation (``updateMessagesFromHistory`` in
# the client's chat recording): ``{"$set":{"messages":[...],"lastUpdated":...}}``.
HISTORY_REWRITE = b'{"$set":{"messages":'
_CHUNK = 1 << 20
# More new transcript than a hook should read (one model turn writes kilobytes; a
# compression, the history once): counted as a rewrite, which costs a rule shown again.
MAX_SCAN = 64 << 20


def action_of(layout: Layout, payload: HookPayload) -> ToolAction:
    return protocol.input_action(layout, payload, FILE_TOOLS, SHELL_TOOL, READ_TOOLS)


def on_session_start(layout: Layout, payload: HookPayload, config: Config) -> Output | None:
    """The note and always-on lessons; the transcript is followed afresh, since starting
    or resuming writes it anew."""
    key = protocol.session_of(payload)
    source = str(payload.get("source") or "startup")
    note = delivery.session_start(layout, key, source, config)
    with HookCall(layout, key, config) as call:
        seen = call.transcript_offset
        if seen is not None:
            call.move_transcript_offset(seen, None)
    return _context("SessionStart", note)


def on_prompt(layout: Layout, payload: HookPayload, config: Config) -> Output | None:
    """The rules the user's words bring (``BeforeAgent``)."""
    with HookCall(layout, protocol.session_of(payload), config) as call:
        follow_transcript(call, payload, advance=False)
        prompt = payload.get("prompt")
        event = "BeforeAgent"
        said = call.on_prompt(users_words(prompt), event) if isinstance(prompt, str) else None
        return _context(event, call.with_due(said.text if said else None))


def on_stop(layout: Layout, payload: HookPayload, config: Config) -> Output | None:
    """The agent stops (``AfterAgent``): once, keep it going to capture what it taught."""
    key = protocol.session_of(payload)
    with HookCall(layout, key, config) as call:
        follow_transcript(call, payload, advance=False)
        active = payload.get("stop_hook_active") is True
        return protocol.stop_output(layout, key, config, active=active)


def on_compress(layout: Layout, payload: HookPayload, config: Config) -> Output | None:
    """Before a compression: the transcript is followed to its end, so the rewrite the
    compression writes is found (``follow_transcript``)."""
    with HookCall(layout, protocol.session_of(payload), config) as call:
        follow_transcript(call, payload, advance=True)
    return None


def on_tool(layout: Layout, payload: HookPayload, config: Config) -> Output | None:
    """Before a tool call: a refusal; after it: context, with the capture nudge of a
    change that failed, or its success recorded."""
    event = str(payload.get("hook_event_name"))
    key = protocol.session_of(payload)
    with HookCall(layout, key, config) as call:  # read once for the whole call
        follow_transcript(call, payload, advance=False)
        action = action_of(layout, payload)
        modes = EVENT_MODES[event]
        notice = call.before_action(action, modes, event)
    if notice is not None and notice.refuses:
        return {"decision": "deny", "reason": _fenced(notice.text)}
    texts = [notice.text] if notice is not None else []
    changing = payload.get("tool_name") in CHANGE_TOOLS  # a failed read teaches nothing
    error = failure_of(payload) if event == "AfterTool" and changing else None
    if error is not None:
        from lessons_core.delivery.nudges import after_failure  # noqa: PLC0415 (heavy: secret patterns)

        nudge = after_failure(layout, key, action, error, config, event)
        texts += [nudge] if nudge else []
    elif event == "AfterTool" and changing:
        call.after_success(action)
    if CONTEXT in modes:  # always-on lessons a compression left due come first
        due = call.with_due(None)
        texts = [due, *texts] if due else texts
    return _context(event, "\n".join(texts)) if texts else None


EXIT_LINE = "\nExit Code: "


def failure_of(payload: HookPayload) -> str | None:
    """The error text of a call that failed, as ``AfterTool`` reports it (Gemini CLI
    0.61.0): an ``error`` object for a refused edit, ``Exit Code: N`` in a shell
    command's result when it exits non-zero; None for a call that succeeded."""
    response = payload.get("tool_response")
    if not isinstance(response, dict):
        return None
    error = response.get("error")
    if isinstance(error, dict):
        message = error.get("message")
        return message if isinstance(message, str) else ""
    content = response.get("llmContent")
    if not isinstance(content, str) or EXIT_LINE not in content:
        return None
    code = content.rsplit(EXIT_LINE, 1)[1].split("\n", 1)[0].strip()
    return content if code.isdigit() and code != "0" else None


def users_words(prompt: str) -> str:
    """The prompt without the ``<hook_context>…</hook_context>`` blocks the client put
    before it: the context ``SessionStart`` hooks answered (our session note among them)
    is not the user's, and matched as a prompt it would bring rules of its own. Inside a
    block ``<`` and ``>`` arrive escaped, so the first closing tag ends it."""
    open_tag, close_tag = "<hook_context>", "</hook_context>"
    while prompt.startswith(open_tag) and close_tag in prompt:
        prompt = prompt[prompt.index(close_tag) + len(close_tag) :].lstrip()
    return prompt


def _context(event: str, text: str | None) -> Output | None:
    return protocol.context_output(event, _fenced(text) if text else None)


def _fenced(text: str) -> str:
    # Rendering is imported only when something is shown (docs/performance.md).

    return bracket_fence(text)


def follow_transcript(call: HookCall, payload: HookPayload, advance: bool) -> None:
    """Forget what was shown if the transcript rewrote the history since the offset
    looked at last; ``advance`` (at ``PreCompress``) moves the offset to the transcript's
    end either way."""
    seen = call.transcript_offset
    if seen is None and not advance:
        return
    path = payload.get("transcript_path")
    try:
        size = os.stat(path).st_size if isinstance(path, str) and path else None
    except OSError:
        size = None
    if size is None or size == seen:
        return
    rewritten = seen is not None and _rewritten(str(path), seen, size)
    if rewritten or advance:
        call.move_transcript_offset(seen, size, forget=rewritten)


def _rewritten(path: str, start: int, end: int) -> bool:
    """Whether bytes ``start`` to ``end`` of the transcript hold a history rewrite; a
    transcript shorter than the offset was written anew, which counts as one, and so does
    one grown by more than ``MAX_SCAN``."""
    if end < start or end - start > MAX_SCAN:
        return True
    overlap = len(HISTORY_REWRITE) - 1
    handle = open_payload_file(path)  # never a FIFO: it would hang the hook
    if handle is None:
        return False
    with handle:
        handle.seek(start)
        tail = b""
        left = end - start
        while left > 0:
            chunk = handle.read(min(_CHUNK, left))
            if not chunk:
                return False
            if HISTORY_REWRITE in tail + chunk:
                return True
            left -= len(chunk)
            tail = chunk[-overlap:]
    return False


ANSWERS: dict[str, Answer] = {
    "SessionStart": on_session_start,
    "BeforeAgent": on_prompt,
    "BeforeTool": on_tool,
    "AfterTool": on_tool,
    "PreCompress": on_compress,
    "AfterAgent": on_stop,
}
EVENTS = frozenset(ANSWERS)
