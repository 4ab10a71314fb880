"""Claude Code's hook protocol, which Codex CLI and Qwen Code speak too, and Gemini CLI,
Copilot CLI and Cursor in part: what a payload says (its project folder ``cwd``, its
session ``session_id`` and subagent ``agent_id``, the tool call under ``tool_input``)
and how an answer is shaped (``hookSpecificOutput``, a stop's ``decision: "block"``),
with the events every such harness answers alike (``session_event``).

A hook imports this module on every call, so, like the adapters, it imports nothing at
module level that a hook does not need (docs/performance.md): what a tool call touches
(``delivery.actions``) is imported by tool calls only.
"""

from __future__ import annotations

from lessons_core.delivery import deliver as delivery
from lessons_core.delivery.tool_action import ToolAction

TYPE_CHECKING = False  # typing costs a hook ~8 ms: lessons_core.records
if TYPE_CHECKING:
    from collections.abc import Mapping
    from typing import Any

    from lessons_core.delivery.deliver import Notice
    from lessons_core.store.config import Config
    from lessons_core.store.layout import Layout


def project_dir(payload: dict[str, Any]) -> str | None:
    cwd = payload.get("cwd")
    return cwd if isinstance(cwd, str) else None


def session_of(payload: dict[str, Any]) -> str:
    """The session's key; a subagent (``agent_id``) keeps its own set of shown rules."""
    agent = payload.get("agent_id")
    return delivery.session_key(
        str(payload["session_id"]), agent if isinstance(agent, str) else None
    )


def input_action(
    layout: Layout,
    payload: dict[str, Any],
    file_tools: tuple[str, ...],
    shell_tool: str,
    read_tools: Mapping[str, tuple[str, ...]] | None = None,
) -> ToolAction:
    """A call of one of ``file_tools`` is about ``tool_input.file_path``, one of
    ``shell_tool`` runs ``tool_input.command``, one of ``read_tools`` reads the paths
    under its keys there (a key may hold one path or a list) (Gemini CLI's tools, and
    Qwen Code's)."""
    given = payload.get("tool_input")
    tool_input = given if isinstance(given, dict) else {}
    tool = payload.get("tool_name")
    if tool in file_tools:
        return file_action(layout, payload, tool_input.get("file_path"))
    if tool == shell_tool:
        return shell_action(layout, payload, tool_input.get("command"))
    keys = read_tools.get(tool) if read_tools and isinstance(tool, str) else None
    if keys:
        return read_action(layout, payload, *paths_under(tool_input, keys))
    return ToolAction()


def paths_under(tool_input: dict[str, Any], keys: tuple[str, ...]) -> list[Any]:
    """The values under ``keys``, a list's items one by one (a read of many files)."""
    found: list[Any] = []
    for key in keys:
        value = tool_input.get(key)
        found.extend(value if isinstance(value, list) else [value])
    return found


def file_action(
    layout: Layout,
    payload: dict[str, Any],
    *paths: Any,
    tool_input: Any = None,
    added: Any = None,
) -> ToolAction:
    """A call that changes the repo-relative files among ``paths``; anything outside the
    repo is dropped. What it adds to them comes from its input (``tool_input`` when the
    caller read it apart, ``actions.edit_added``) unless ``added`` gives it per path."""
    from lessons_core.delivery import actions

    content = tool_input or payload.get("tool_input", payload.get("toolArgs"))
    cwd = project_dir(payload)
    return actions.changing(layout, cwd, *paths, content=content, added=added)


def read_action(layout: Layout, payload: dict[str, Any], *paths: Any) -> ToolAction:
    """A call that reads the repo-relative files among ``paths``."""
    from lessons_core.delivery import actions

    return actions.reading(layout, project_dir(payload), *paths)


def shell_action(layout: Layout, payload: dict[str, Any], command: Any) -> ToolAction:
    """A shell command, with the files it reads and writes, relative to the session's
    folder."""
    from lessons_core.delivery import actions

    return actions.running(layout, project_dir(payload), command)


def context_output(event: str, text: str | None) -> dict[str, Any] | None:
    if not text:
        return None
    return {"hookSpecificOutput": {"hookEventName": event, "additionalContext": text}}


def pre_tool_output(notice: Notice | None, event: str = "PreToolUse") -> dict[str, Any] | None:
    """A gate refuses the call; other rules are context of ``event`` (Qwen Code delivers
    them from ``PostToolUse``)."""
    if notice is None:
        return None
    if notice.refuses:
        decision = {"permissionDecision": "deny", "permissionDecisionReason": notice.text}
        return {"hookSpecificOutput": {"hookEventName": "PreToolUse", **decision}}
    return context_output(event, notice.text)


def answer_text(answer: dict[str, Any] | None) -> tuple[str, bool]:
    """What an answer built above hands the model, and whether it refuses the call."""
    output = answer.get("hookSpecificOutput") if answer else None
    if not isinstance(output, dict):
        return "", False
    if output.get("permissionDecision") == "deny":
        return str(output.get("permissionDecisionReason") or ""), True
    return str(output.get("additionalContext") or ""), False


def session_event(layout: Layout, payload: dict[str, Any], config: Config) -> dict[str, Any] | None:
    """The answer to an event no tool call is part of: ``SessionStart``,
    ``UserPromptSubmit``, ``PreCompact`` and ``Stop``; None for any other."""
    event = payload.get("hook_event_name")
    key = session_of(payload)
    if event == "SessionStart":
        source = str(payload.get("source") or "startup")
        return context_output(event, delivery.session_start(layout, key, source, config))
    if event == "UserPromptSubmit":
        prompt = payload.get("prompt")
        said = delivery.on_prompt(layout, key, prompt, config) if isinstance(prompt, str) else None
        return context_output(event, said.text if said else None)
    if event == "PreCompact":
        delivery.before_compaction(layout, key)
        return None
    if event == "Stop":
        return stop_output(layout, key, config, active=payload.get("stop_hook_active") is True)
    return None


def stop_output(layout: Layout, key: str, config: Config, *, active: bool) -> dict[str, Any] | None:
    """Keep the session going once to capture what it taught (Claude Code, Codex, Gemini
    CLI and Copilot CLI all read ``decision: "block"`` and its ``reason`` so); ``active``:
    the harness says it is already continuing because of a stop hook."""
    from lessons_core.feedback.stop_capture import stop_request  # stops only

    text = stop_request(layout, key, config, active=active)
    return {"decision": "block", "reason": text} if text else None


def failure_output(
    layout: Layout, payload: dict[str, Any], action: ToolAction, config: Config
) -> dict[str, Any] | None:
    """The capture nudge after ``action`` failed, or the recurrence nudge when it failed
    again (``feedback.recurrence``); nothing when the user interrupted it."""
    if payload.get("is_interrupt"):
        return None
    # Failures only: keeps every other call lighter.
    from lessons_core.delivery.nudges import after_failure

    error = payload.get("error")
    key = session_of(payload)
    text = after_failure(layout, key, action, error if isinstance(error, str) else "", config)
    return context_output("PostToolUseFailure", text)
