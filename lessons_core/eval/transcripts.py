"""Claude Code session transcripts: the prompts, tool calls and compactions, in order.

Claude Code keeps one JSONL file per session. Each line is a record with a ``type``:

- ``user``: ``message.content`` is the prompt (a string or ``text`` blocks), or holds
  ``tool_result`` blocks (``tool_use_id``, ``is_error``, ``content``) answering calls.
  ``isMeta`` marks text the client injected; ``isCompactSummary`` the summary that opens
  the context after a compaction.
- ``assistant``: ``message.content`` holds ``tool_use`` blocks (``id``, ``name``,
  ``input``), the calls a ``PreToolUse`` hook would have seen.
- ``system`` with ``subtype: "compact_boundary"``: the context was compacted here.

Records of a subagent carry ``isSidechain`` (and an ``agentId``). Lines that are not
JSON objects, and record types that carry none of the above, are counted and skipped:
the format grows new record types and a replay must not fail on them.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import orjson

from lessons_core.errors import LessonsError

# Text Claude Code puts in a user message that the user did not type as a prompt.
_CLIENT_MARKERS = ("<command-name>", "<local-command-", "<command-message>", "Caveat:")
_COMPACT_SUMMARY = "This session is being continued from a previous conversation"


@dataclass(frozen=True)
class ToolCall:
    id: str
    name: str
    input: dict[str, Any]
    failed: bool | None = None  # None: no result recorded (the session ended first)
    result: str = ""


@dataclass(frozen=True)
class Step:
    """One thing a hook would have seen: a prompt, a tool call, or a compaction."""

    kind: str  # "prompt" | "tool" | "compact"
    line: int
    session_id: str
    cwd: str | None
    agent_id: str | None = None
    prompt: str | None = None
    call: ToolCall | None = None


@dataclass
class Transcript:
    steps: list[Step] = field(default_factory=list)
    skipped_lines: int = 0


class TranscriptError(LessonsError):
    def __init__(self, path: Path, problem: str) -> None:
        super().__init__(f"{path}: {problem}; pass a Claude Code session file (*.jsonl)")


def read_transcript(path: Path) -> Transcript:
    try:
        data = path.read_bytes()
    except OSError as err:
        raise TranscriptError(path, f"cannot be read ({err.strerror})") from None
    transcript = Transcript()
    results: dict[str, tuple[bool, str]] = {}
    for number, line in enumerate(data.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            record = orjson.loads(line)
        except orjson.JSONDecodeError:
            record = None
        if not isinstance(record, dict) or not _read_record(record, number, transcript, results):
            transcript.skipped_lines += 1
    if not transcript.steps and transcript.skipped_lines:
        raise TranscriptError(path, "holds no prompt, tool call or compaction")
    transcript.steps = [_with_result(step, results) for step in transcript.steps]
    return transcript


def _read_record(
    record: dict[str, Any],
    number: int,
    transcript: Transcript,
    results: dict[str, tuple[bool, str]],
) -> bool:
    kind = record.get("type")
    message = record.get("message")
    content = message.get("content") if isinstance(message, dict) else None
    base = Step(
        kind="",
        line=number,
        session_id=str(record.get("sessionId") or ""),
        cwd=record.get("cwd") if isinstance(record.get("cwd"), str) else None,
        agent_id=_agent(record),
    )
    if kind == "system" and record.get("subtype") == "compact_boundary":
        transcript.steps.append(replace(base, kind="compact"))
        return True
    if kind == "assistant" and isinstance(content, list):
        for block in content:
            if isinstance(block, dict) and block.get("type") == "tool_use":
                call = ToolCall(
                    id=str(block.get("id") or ""),
                    name=str(block.get("name") or ""),
                    input=block["input"] if isinstance(block.get("input"), dict) else {},
                )
                transcript.steps.append(replace(base, kind="tool", call=call))
        return True
    if kind == "user":
        if record.get("isCompactSummary") or record.get("isMeta"):
            return True
        texts = _user_texts(content, results)
        prompt = "\n".join(t for t in texts if t.strip())
        if prompt and not prompt.startswith(_CLIENT_MARKERS):
            if prompt.startswith(_COMPACT_SUMMARY):
                transcript.steps.append(replace(base, kind="compact"))
            else:
                transcript.steps.append(replace(base, kind="prompt", prompt=prompt))
        return True
    return kind in {"assistant", "system", "summary"}


def _user_texts(content: Any, results: dict[str, tuple[bool, str]]) -> list[str]:
    """The text the user typed; tool results are filed under their call's id instead."""
    if isinstance(content, str):
        return [content]
    texts: list[str] = []
    for block in content if isinstance(content, list) else []:
        if not isinstance(block, dict):
            continue
        if block.get("type") == "text" and isinstance(block.get("text"), str):
            texts.append(block["text"])
        elif block.get("type") == "tool_result":
            results[str(block.get("tool_use_id") or "")] = (
                bool(block.get("is_error")),
                _result_text(block.get("content")),
            )
    return texts


def _result_text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(str(part.get("text", "")) for part in content if isinstance(part, dict))
    return ""


def _agent(record: dict[str, Any]) -> str | None:
    if not record.get("isSidechain"):
        return None
    agent = record.get("agentId")
    return agent if isinstance(agent, str) and agent else "sidechain"


def _with_result(step: Step, results: dict[str, tuple[bool, str]]) -> Step:
    if step.call is None or step.call.id not in results:
        return step
    failed, text = results[step.call.id]
    return replace(step, call=replace(step.call, failed=failed, result=text))
