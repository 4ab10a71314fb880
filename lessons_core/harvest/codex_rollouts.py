"""Codex CLI session files (``$CODEX_HOME/sessions/YYYY/MM/DD/rollout-*.jsonl``) as the
same steps and results a Claude Code transcript gives.

Read from the files Codex CLI 0.171.0 writes; each line is ``{"timestamp", "type",
"payload"}``:

- ``session_meta``: the session's ``id`` and the ``cwd`` it runs in (the first line);
- ``turn_context``: the ``cwd`` of the turn that follows;
- ``event_msg`` whose payload is an ``item_completed`` with a ``UserMessage`` item: a
  prompt the user typed (the ``message`` items of role ``user`` also carry text the client
  injects, such as ``<environment_context>``, so they are not read);
- ``response_item`` ``function_call`` (``exec_command``, ``arguments`` a JSON string whose
  ``cmd`` is the command) and ``custom_tool_call`` (``apply_patch``, ``input`` the patch):
  a tool call, named as Codex's hooks name it (``Bash``, ``apply_patch``) with the command
  or patch in ``command``;
- ``function_call_output`` / ``custom_tool_call_output``: a call's result. A shell result
  says ``Process exited with code N`` and a patch's ``Exit code: N``, in header lines
  before ``Output:``; a call that never ran says neither (``Command blocked by PreToolUse
  hook: ...``, ``apply_patch verification failed: ...``) and failed.

Other records (token counts, world state, reasoning) are skipped. Older Codex versions
wrote other shapes (``shell`` calls with an argument list, ``user_message`` events); they
are not read.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import orjson

from lessons_core.eval.transcripts import (
    Result,
    Step,
    ToolCall,
    Transcript,
    result_text,
    stream_records,
)
from lessons_core.fsutil import open_regular

# The first line (the session's metadata, with Codex's instructions) is read up to this.
MAX_META_BYTES = 1 << 20
SHELL_TOOL, PATCH_TOOL = "Bash", "apply_patch"  # as Codex names them to hooks
_EXIT = re.compile(r"^(?:Process exited with code|Exit code:) (-?\d+)$", re.M)


def is_rollout(path: Path) -> bool:
    """Whether ``path`` is a Codex session file: its first line is the session's metadata."""
    return rollout_folder(path) is not None


def rollout_folder(path: Path) -> str | None:
    """The folder a Codex session ran in, from its first line; None for another file."""
    try:
        with open_regular(path, follow_links=True) as lines:  # never waits on a FIFO
            record = orjson.loads(lines.readline(MAX_META_BYTES))
    except (OSError, orjson.JSONDecodeError):
        return None
    if not isinstance(record, dict) or record.get("type") != "session_meta":
        return None
    payload = record.get("payload")
    cwd = payload.get("cwd") if isinstance(payload, dict) else None
    return cwd if isinstance(cwd, str) else ""


def stream_rollout(path: Path, counts: Transcript) -> Iterator[Step | Result]:
    """Prompts, tool calls and results of a Codex session file, in order, read once."""
    reader = _Reader()
    return stream_records(path, counts, reader.read)


class _Reader:
    """Keeps the session id and folder, which only the first records name."""

    def __init__(self) -> None:
        self.session = ""
        self.cwd: str | None = None

    def read(self, record: dict[str, Any], number: int) -> list[Step | Result] | None:
        kind, payload = record.get("type"), record.get("payload")
        if not isinstance(payload, dict):
            return None
        time = record.get("timestamp")
        base = Step("", number, self.session, self.cwd, time=time if isinstance(time, str) else "")
        if kind in ("session_meta", "turn_context"):
            if kind == "session_meta":
                self.session = str(payload.get("id") or "")
            if isinstance(payload.get("cwd"), str):
                self.cwd = payload["cwd"]
            return []
        if kind == "event_msg":
            prompt = _typed_prompt(payload)
            return [] if prompt is None else [Step("prompt", **_fields(base), prompt=prompt)]
        if kind != "response_item":
            return [] if kind else None
        item = payload.get("type")
        call_id = str(payload.get("call_id") or "")
        if item == "function_call" and payload.get("name") == "exec_command":
            command = _command(payload.get("arguments"))
            call = ToolCall(call_id, SHELL_TOOL, {"command": command} if command else {})
            return [Step("tool", **_fields(base), call=call)]
        if item == "custom_tool_call" and payload.get("name") == PATCH_TOOL:
            patch = payload.get("input")
            call = ToolCall(
                call_id, PATCH_TOOL, {"command": patch} if isinstance(patch, str) else {}
            )
            return [Step("tool", **_fields(base), call=call)]
        if item in ("function_call_output", "custom_tool_call_output"):
            code, text = _result(result_text(payload.get("output")))
            return [Result(call_id, code != 0, text, number, base.time)]
        return []


def _fields(base: Step) -> dict[str, Any]:
    return {"line": base.line, "session_id": base.session_id, "cwd": base.cwd, "time": base.time}


def _typed_prompt(payload: dict[str, Any]) -> str | None:
    item = payload.get("item")
    if payload.get("type") != "item_completed" or not isinstance(item, dict):
        return None
    if item.get("type") != "UserMessage" or not isinstance(item.get("content"), list):
        return None
    texts = [
        part["text"]
        for part in item["content"]
        if isinstance(part, dict) and isinstance(part.get("text"), str)
    ]
    return "\n".join(texts) or None


def _command(arguments: Any) -> str | None:
    try:
        parsed = orjson.loads(arguments) if isinstance(arguments, str) else None
    except orjson.JSONDecodeError:
        return None
    command = parsed.get("cmd") if isinstance(parsed, dict) else None
    return command if isinstance(command, str) else None


def _result(output: str) -> tuple[int | None, str]:
    """The exit code and what the call printed, as ``Exit code N`` and the output below
    Codex's header lines (chunk id, wall time, token count), the shape the failure
    classes read; no code when the call did not run (a hook blocked it, a patch did not
    apply), which counts as a failure."""
    head, mark, body = output.partition("\nOutput:\n")
    found = _EXIT.search(head if mark else output)
    if found is None:
        return None, output
    code = int(found.group(1))
    return code, f"Exit code {code}\n{body if mark else output}"
