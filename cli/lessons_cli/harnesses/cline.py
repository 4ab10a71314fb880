"""Cline CLI: a plugin, ``.cline/plugins/lessons.js``, hands Cline's runtime hooks to
``lessons hook cline`` through the committed launcher, in Claude Code's payload shape
(``hook_event_name``, ``session_id``, ``tool_name``, ``tool_input``), and turns the
answer back into what Cline reads (``cline_plugin.js`` beside this module, written by
``lessons init --cline``).

What Cline 3.0.65 showed (tests/e2e/test_cline.py): a plugin's ``beforeTool`` can refuse
one call (``{skip: true, reason}``: the model reads the reason as the tool's error and
the run goes on), but any text a hook adds (``appendContext``) arrives as a
``<hook_context>`` user message *after* the tool's result. So ``PreToolUse`` delivers
the gate rules only, for the tools that change files (``editor``, ``apply_patch``,
``run_commands``); context rules come with ``PostToolUse``, where a read
(``read_files``) brings its file's rules before the model's next call, so before it
edits the file. ``SessionStart`` is the plugin's ``beforeRun``, whose context reaches
the run's first request; ``PreCompact`` is the ``auto-compacted`` notice Cline's runtime
sends plugins after it replaced the history with a summary. A hook file's ``cancel``
(``.clinerules/hooks/``) would end the whole run, so none is written, and Cline has no
stop event a hook can answer: its ``TaskComplete`` and ``afterRun`` come after the run.

Payloads recorded from the real client are kept in tests/fixtures/cline/.
"""

from __future__ import annotations

import json
import shlex
from typing import TYPE_CHECKING, Any

from lessons_cli.harnesses import claude_protocol as protocol
from lessons_cli.harnesses.spec import HookEvent, Wiring, any_of
from lessons_core.delivery.deliver import CONTEXT, GATE, HookCall
from lessons_core.delivery.tool_action import ToolAction

if TYPE_CHECKING:
    from typing import Any

    from lessons_cli.harnesses.claude_protocol import HookPayload
    from lessons_cli.harnesses.events import Answer, Output
    from lessons_core.store.config import Config
    from lessons_core.store.layout import Layout

project_dir = protocol.project_dir

EDIT_TOOL = "editor"
PATCH_TOOL = "apply_patch"
SHELL_TOOL = "run_commands"
READ_TOOL = "read_files"
CHANGE_TOOLS = (EDIT_TOOL, PATCH_TOOL, SHELL_TOOL)
TOOLS = (*CHANGE_TOOLS, READ_TOOL)
# What each tool event can deliver (see the module docstring).
EVENT_MODES = {"PreToolUse": frozenset({GATE}), "PostToolUse": frozenset({CONTEXT})}
PLUGIN = ".cline/plugins/lessons.js"
WIRING = Wiring(
    "cline",
    PLUGIN,
    (
        HookEvent("SessionStart"),
        HookEvent("PreToolUse", any_of(CHANGE_TOOLS)),
        HookEvent("PostToolUse", any_of(TOOLS)),
        HookEvent("PreCompact"),
    ),
    note=(
        "Cline loads {root}/.cline/plugins/lessons.js in every session started in this "
        "folder. Run it with CLINE_SESSION_BACKEND_MODE=local in scripts and CI: without "
        "it, each `cline` run leaves a background hub process listening on 127.0.0.1 "
        "(docs/hooks.md)"
    ),
)


def action_of(layout: Layout, payload: HookPayload) -> ToolAction:
    """The file of ``editor`` (``path``; what it adds is ``new_text``), the files a patch
    names, the commands of ``run_commands``, the files ``read_files`` reads."""
    given = payload.get("tool_input")
    tool_input = given if isinstance(given, dict) else {}
    tool = payload.get("tool_name")
    if tool == EDIT_TOOL:
        path, added = tool_input.get("path"), tool_input.get("new_text")
        text = added if isinstance(added, str) else ""
        return protocol.file_action(layout, payload, path, added=[(path, text)])
    if tool == PATCH_TOOL:
        return _patch_action(layout, payload, given)
    if tool == SHELL_TOOL:
        return protocol.shell_action(layout, payload, commands_of(given))
    if tool == READ_TOOL:
        return protocol.read_action(layout, payload, *read_paths(tool_input))
    return ToolAction()


def _patch_action(layout: Layout, payload: HookPayload, given: Any) -> ToolAction:
    """``apply_patch`` takes the patch as ``{input}`` or as a bare string."""
    from lessons_cli.harnesses import codex_patches  # noqa: PLC0415 (a patch's only)

    patch = given.get("input") if isinstance(given, dict) else given
    if not isinstance(patch, str):
        return ToolAction()
    paths, added = codex_patches.patch_paths(patch), codex_patches.patch_added(patch)
    return protocol.file_action(layout, payload, *paths, added=added)


def commands_of(tool_input: Any) -> str | None:
    """The commands of a ``run_commands`` call, one a line, in the shapes Cline accepts:
    ``{commands: [...]}``, ``{commands: "..."}``, ``{command}``, ``{cmd}``, a list or a
    string; an item given as ``{command, args}`` is its words joined."""
    if isinstance(tool_input, dict):
        tool_input = next(
            (tool_input[k] for k in ("commands", "command", "cmd") if k in tool_input), None
        )
    items = tool_input if isinstance(tool_input, list) else [tool_input]
    lines = [_command_line(item) for item in items]
    found = [line for line in lines if line]
    return "\n".join(found) if found else None


def _command_line(item: Any) -> str | None:
    if isinstance(item, str):
        return item
    if not isinstance(item, dict) or not isinstance(item.get("command"), str):
        return None

    args = item.get("args")
    words = (
        [item["command"], *(str(a) for a in args)] if isinstance(args, list) else [item["command"]]
    )
    return shlex.join(words)


def read_paths(tool_input: dict[str, Any]) -> list[Any]:
    """The files ``read_files`` reads: ``files: [{path}]``, ``paths: [...]`` or ``path``."""
    found: list[Any] = []
    for key in ("files", "paths"):
        value = tool_input.get(key)
        for item in value if isinstance(value, list) else [value]:
            found.append(item.get("path") if isinstance(item, dict) else item)
    return [*found, tool_input.get("path")]


def failure_of(payload: HookPayload) -> str | None:
    """The error of a change that failed, from its result (``tool_response``: the
    tool's ``{output, isError}``): an error result, or a command whose entry says
    ``success: false``; None for a call that worked."""
    response = payload.get("tool_response")
    if not isinstance(response, dict):
        return None
    output = response.get("output")
    entries = output if isinstance(output, list) else [output]
    failed = [e for e in entries if isinstance(e, dict) and e.get("success") is False]
    if response.get("isError") is not True and not failed:
        return None

    return "\n".join(_error_text(e) for e in failed) if failed else json.dumps(output)


def _error_text(entry: dict[str, Any]) -> str:
    parts = [entry.get(k) for k in ("query", "error", "result")]
    return "\n".join(part for part in parts if isinstance(part, str) and part)


def on_tool(layout: Layout, payload: HookPayload, config: Config) -> Output | None:
    """Before a change: a refusal; after a call: context, with the capture nudge of a
    change that failed, or its success recorded."""
    event = str(payload.get("hook_event_name"))
    key = protocol.session_of(payload)
    action = action_of(layout, payload)
    modes = EVENT_MODES[event]
    with HookCall(layout, key, config) as call:  # read once for the whole call
        notice = call.before_action(action, modes, event)
    if notice is not None and notice.refuses:
        return protocol.pre_tool_output(notice, event)
    if CONTEXT not in modes:
        return None
    texts = [notice.text] if notice is not None else []
    changing = payload.get("tool_name") in CHANGE_TOOLS  # a failed read teaches nothing
    error = failure_of(payload) if changing else None
    if error is not None:
        from lessons_core.delivery.nudges import after_failure  # noqa: PLC0415 (heavy: secret patterns)

        nudge = after_failure(layout, key, action, error, config, event)
        texts += [nudge] if nudge else []
    elif changing:
        call.after_success(action)
    due = call.with_due(None)  # always-on lessons a compaction left due come first
    texts = [due, *texts] if due else texts
    return protocol.context_output(event, "\n".join(texts) if texts else None)


ANSWERS: dict[str, Answer] = {
    "SessionStart": protocol.on_session_start,
    "PreToolUse": on_tool,
    "PostToolUse": on_tool,
    "PreCompact": protocol.on_pre_compact,
}
EVENTS = frozenset(ANSWERS)
