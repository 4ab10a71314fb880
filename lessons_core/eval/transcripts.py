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

``stream_transcript`` reads the file once, a line at a time, and yields each step and
each tool result (``Result``) as it comes, so a harvest over a large file holds only what
it keeps; ``read_transcript`` collects them and files each result under its call.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, BinaryIO

import orjson

from lessons_core.errors import LessonsError
from lessons_core.fsutil import open_regular

# Text Claude Code puts in a user message that the user did not type as a prompt.
_CLIENT_MARKERS = (
    "<command-name>",
    "<local-command-",
    "<command-message>",
    "Caveat:",
    "Stop hook feedback:",  # a Stop hook's reason, handed on as the next user message
)
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
    time: str = ""  # the record's ISO timestamp, when it has one


@dataclass(frozen=True)
class Result:
    """The outcome of the call ``call_id``, as the user record after it carried it."""

    call_id: str
    failed: bool
    text: str
    line: int
    time: str = ""


@dataclass
class Transcript:
    steps: list[Step] = field(default_factory=list)
    skipped_lines: int = 0


class TranscriptError(LessonsError):
    def __init__(self, path: Path, problem: str) -> None:
        super().__init__(f"{path}: {problem}; pass a session transcript file (*.jsonl)")


def read_transcript(path: Path) -> Transcript:
    transcript = Transcript()
    results: dict[str, tuple[bool, str]] = {}
    for item in stream_transcript(path, transcript):
        if isinstance(item, Result):
            results[item.call_id] = (item.failed, item.text)
        else:
            transcript.steps.append(item)
    transcript.steps = [_with_result(step, results) for step in transcript.steps]
    return transcript


def stream_transcript(path: Path, counts: Transcript) -> Iterator[Step | Result]:
    """Steps and results in file order, read a line at a time; lines holding neither are
    counted in ``counts.skipped_lines``. A file with nothing else is refused at its end."""
    return stream_records(path, counts, _read_record)


# What one JSON record of a session file holds: steps and results (possibly none), or
# None for a record of no known type.
RecordReader = Callable[[dict[str, Any], int], "list[Step | Result] | None"]


def stream_records(path: Path, counts: Transcript, read: RecordReader) -> Iterator[Step | Result]:
    """``read`` applied to each JSON object line of ``path``, once, in order."""
    found = False
    try:
        with open_regular(path, follow_links=True) as lines:  # never waits on a FIFO
            for number, line in enumerate(_bounded_lines(lines), start=1):
                if not line.strip():
                    continue
                try:
                    record = orjson.loads(line)
                except orjson.JSONDecodeError:
                    record = None
                items = read(record, number) if isinstance(record, dict) else None
                if items is None:
                    counts.skipped_lines += 1
                    continue
                for item in items:
                    found = True
                    yield item
    except OSError as err:
        raise TranscriptError(path, f"cannot be read ({err.strerror})") from None
    if not found and counts.skipped_lines:
        raise TranscriptError(path, "holds no prompt, tool call or compaction")


# What one session file may take: past this, its lines are not read (docs/harvest.md).
MAX_TRANSCRIPT_BYTES = 1 << 30


def _bounded_lines(lines: BinaryIO, limit: int = MAX_TRANSCRIPT_BYTES) -> Iterator[bytes]:
    """The lines of ``lines`` within its first ``limit`` bytes."""
    while limit > 0:
        line = lines.readline(limit)
        if not line:
            return
        limit -= len(line)
        yield line


def _read_record(record: dict[str, Any], number: int) -> list[Step | Result] | None:
    """What one record holds (possibly nothing), or None for a record of no known type."""
    kind = record.get("type")
    message = record.get("message")
    content = message.get("content") if isinstance(message, dict) else None
    time = record.get("timestamp")
    base = Step(
        kind="",
        line=number,
        session_id=str(record.get("sessionId") or ""),
        cwd=record.get("cwd") if isinstance(record.get("cwd"), str) else None,
        agent_id=_agent(record),
        time=time if isinstance(time, str) else "",
    )
    if kind == "system" and record.get("subtype") == "compact_boundary":
        return [replace(base, kind="compact")]
    if kind == "assistant" and isinstance(content, list):
        return [
            replace(
                base,
                kind="tool",
                call=ToolCall(
                    id=str(block.get("id") or ""),
                    name=str(block.get("name") or ""),
                    input=block["input"] if isinstance(block.get("input"), dict) else {},
                ),
            )
            for block in content
            if isinstance(block, dict) and block.get("type") == "tool_use"
        ]
    if kind == "user":
        if record.get("isCompactSummary") or record.get("isMeta"):
            return []
        items: list[Step | Result] = []
        texts = _user_texts(content, items, base)
        prompt = "\n".join(t for t in texts if t.strip())
        if prompt and not prompt.startswith(_CLIENT_MARKERS):
            if prompt.startswith(_COMPACT_SUMMARY):
                items.append(replace(base, kind="compact"))
            else:
                items.append(replace(base, kind="prompt", prompt=prompt))
        return items
    return [] if kind in {"assistant", "system", "summary"} else None


def _user_texts(content: Any, results: list[Step | Result], base: Step) -> list[str]:
    """The text the user typed; tool results go to ``results`` instead."""
    if isinstance(content, str):
        return [content]
    texts: list[str] = []
    for block in content if isinstance(content, list) else []:
        if not isinstance(block, dict):
            continue
        if block.get("type") == "text" and isinstance(block.get("text"), str):
            texts.append(block["text"])
        elif block.get("type") == "tool_result":
            results.append(
                Result(
                    call_id=str(block.get("tool_use_id") or ""),
                    failed=bool(block.get("is_error")),
                    text=result_text(block.get("content")),
                    line=base.line,
                    time=base.time,
                )
            )
    return texts


def result_text(content: Any) -> str:
    """A tool result's text: a string, or the text of each part of a list."""
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
