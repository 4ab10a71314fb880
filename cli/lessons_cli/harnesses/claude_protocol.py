"""Claude Code's hook protocol, which Codex CLI and Qwen Code speak too, and Gemini CLI,
Copilot CLI and Cursor in part: what a payload says (its project folder ``cwd``, its
session ``session_id`` and subagent ``agent_id``, the tool call under ``tool_input``)
and how an answer is shaped (``hookSpecificOutput``, a stop's ``decision: "block"``),
with the entries of the events every such harness answers alike (``on_session_start``,
``on_prompt``, ``on_pre_tool``, ``on_pre_compact``, ``on_stop``, ``on_failure``: see
``events``).

"""

# Annotations are evaluated, not postponed (no ``from __future__ import annotations``):
# a TypedDict compiles each string annotation of its fields when its class is made.
from collections.abc import Callable, Mapping
from typing import Any, TypedDict

from lessons_cli.harnesses.events import Answer, Output
from lessons_core.delivery import actions
from lessons_core.delivery import deliver as delivery
from lessons_core.delivery.deliver import Notice
from lessons_core.delivery.tool_action import ToolAction
from lessons_core.store.config import Config
from lessons_core.store.layout import Layout


class HookPayload(TypedDict, total=False):
    """What lessons reads of a payload in Claude Code's shape, as the clients recorded
    it (tests/fixtures/claude_code, codex, qwen, gemini; the plugins of Cline, Pi,
    OpenCode and Kilo send the same keys). Every key may be missing or of another type:
    each is checked where it is read."""

    hook_event_name: str
    session_id: str
    agent_id: str  # a subagent's calls
    cwd: str
    source: str  # SessionStart: startup, resume, clear, compact
    prompt: str
    tool_name: str
    tool_input: dict[str, Any]
    tool_response: object  # a string (Codex), an object (Qwen, Gemini, Cline)
    tool_use_id: str
    transcript_path: str
    stop_hook_active: bool
    is_interrupt: bool
    error: str  # PostToolUseFailure


# Reads the action of a payload's tool call.
ActionOf = Callable[["Layout", Any], ToolAction]


def project_dir(payload: Mapping[str, Any]) -> str | None:
    cwd = payload.get("cwd")
    return cwd if isinstance(cwd, str) else None


def session_of(payload: Mapping[str, Any]) -> str:
    """The session's key; a subagent (``agent_id``) keeps its own set of shown rules."""
    agent = payload.get("agent_id")
    return delivery.session_key(
        str(payload["session_id"]), agent if isinstance(agent, str) else None
    )


def input_action(
    layout: Layout,
    payload: Mapping[str, Any],
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
    payload: Mapping[str, Any],
    *paths: Any,
    tool_input: Any = None,
    added: Any = None,
) -> ToolAction:
    """A call that changes the repo-relative files among ``paths``; anything outside the
    repo is dropped. What it adds to them comes from its input (``tool_input`` when the
    caller read it apart, ``actions.edit_added``) unless ``added`` gives it per path."""

    content = tool_input or payload.get("tool_input", payload.get("toolArgs"))
    cwd = project_dir(payload)
    return actions.changing(layout, cwd, *paths, content=content, added=added)


def read_action(layout: Layout, payload: Mapping[str, Any], *paths: Any) -> ToolAction:
    """A call that reads the repo-relative files among ``paths``."""

    return actions.reading(layout, project_dir(payload), *paths)


def shell_action(layout: Layout, payload: Mapping[str, Any], command: Any) -> ToolAction:
    """A shell command, with the files it reads and writes, relative to the session's
    folder."""

    return actions.running(layout, project_dir(payload), command)


def context_output(event: str, text: str | None) -> Output | None:
    if not text:
        return None
    return {"hookSpecificOutput": {"hookEventName": event, "additionalContext": text}}


def pre_tool_output(notice: Notice | None, event: str = "PreToolUse") -> Output | None:
    """A gate refuses the call; other rules are context of ``event`` (Qwen Code delivers
    them from ``PostToolUse``)."""
    if notice is None:
        return None
    if notice.refuses:
        decision = {"permissionDecision": "deny", "permissionDecisionReason": notice.text}
        return {"hookSpecificOutput": {"hookEventName": "PreToolUse", **decision}}
    return context_output(event, notice.text)


def answer_text(answer: Output | None) -> tuple[str, bool]:
    """What an answer built above hands the model, and whether it refuses the call."""
    output = answer.get("hookSpecificOutput") if answer else None
    if not isinstance(output, dict):
        return "", False
    if output.get("permissionDecision") == "deny":
        return str(output.get("permissionDecisionReason") or ""), True
    return str(output.get("additionalContext") or ""), False


def on_session_start(layout: Layout, payload: HookPayload, config: Config) -> Output | None:
    """A session starts (``source``: startup, resume, clear, compact): the note and the
    always-on lessons where they are new to the model."""
    source = str(payload.get("source") or "startup")
    said = delivery.session_start(layout, session_of(payload), source, config)
    return context_output(str(payload.get("hook_event_name")), said)


def on_prompt(layout: Layout, payload: HookPayload, config: Config) -> Output | None:
    """The rules the user's prompt brings, as context."""
    prompt = payload.get("prompt")
    key = session_of(payload)
    said = delivery.on_prompt(layout, key, prompt, config) if isinstance(prompt, str) else None
    return context_output(str(payload.get("hook_event_name")), said.text if said else None)


def on_pre_compact(layout: Layout, payload: HookPayload, config: Config) -> Output | None:
    """Compaction drops what was shown: every rule is eligible again."""
    delivery.before_compaction(layout, session_of(payload))
    return None


def on_stop(layout: Layout, payload: HookPayload, config: Config) -> Output | None:
    """The agent stops: once, keep it going to capture what the session taught."""
    active = payload.get("stop_hook_active") is True
    return stop_output(layout, session_of(payload), config, active=active)


def on_pre_tool(action_of: ActionOf) -> Answer:
    """The entry for a tool call about to run, whose action ``action_of`` reads: its
    rules as a refusal, or as context."""

    def answer(layout: Layout, payload: HookPayload, config: Config) -> Output | None:
        key, action = session_of(payload), action_of(layout, payload)
        return pre_tool_output(delivery.before_action(layout, key, action, config))

    return answer


def on_failure(action_of: ActionOf) -> Answer:
    """The entry for a failed call, whose action ``action_of`` reads."""

    def answer(layout: Layout, payload: HookPayload, config: Config) -> Output | None:
        return failure_output(layout, payload, action_of(layout, payload), config)

    return answer


def stop_output(layout: Layout, key: str, config: Config, *, active: bool) -> Output | None:
    """Keep the session going once to capture what it taught (Claude Code, Codex, Gemini
    CLI and Copilot CLI all read ``decision: "block"`` and its ``reason`` so); ``active``:
    the harness says it is already continuing because of a stop hook."""
    from lessons_core.feedback.stop_capture import stop_request  # noqa: PLC0415 (heavy: secret patterns)

    text = stop_request(layout, key, config, active=active)
    return {"decision": "block", "reason": text} if text else None


def failure_output(
    layout: Layout, payload: Mapping[str, Any], action: ToolAction, config: Config
) -> Output | None:
    """The capture nudge after ``action`` failed, or the recurrence nudge when it failed
    again (``feedback.recurrence``); nothing when the user interrupted it."""
    if payload.get("is_interrupt"):
        return None
    # Failures only: keeps every other call lighter.
    from lessons_core.delivery.nudges import after_failure  # noqa: PLC0415 (heavy: secret patterns)

    error = payload.get("error")
    key = session_of(payload)
    text = after_failure(layout, key, action, error if isinstance(error, str) else "", config)
    return context_output("PostToolUseFailure", text)
