"""A scripted stand-in for the Anthropic Messages API, served on 127.0.0.1.

The real Claude Code client talks to it through ``ANTHROPIC_BASE_URL``; ``route`` answers
``/v1/messages`` (streamed or not) with the step ``fake_model.FakeModel`` chooses, and
``count_tokens`` with a fixed count. Tool-use ids carry the scenario and step
(``toolu_<scenario>_<step>_<n>``).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

from tests.e2e.fake_model import (
    EMPTY,
    Conversation,
    FakeModel,
    Response,
    Step,
    ToolResult,
    newest_scenario,
)

# Claude Code's compaction request tells the model to answer in text only.
COMPACT_MARK = "TEXT ONLY"
_ID_PREFIX = "toolu_"


def _texts(message: dict[str, Any]) -> list[str]:
    content = message.get("content")
    if isinstance(content, str):
        return [content]
    return [b.get("text", "") for b in content or [] if b.get("type") == "text"]


def result_text(block: dict[str, Any]) -> str:
    content = block.get("content")
    if isinstance(content, str):
        return content
    return "\n".join(b.get("text", "") for b in content or [] if isinstance(b, dict))


def read_messages(body: dict[str, Any]) -> Conversation:
    """The scenario, tool results and tools of a Messages API request.

    Claude Code may merge a new prompt into the user message that carries the previous
    tool results (after ``--resume``), so every user message is searched. A request that
    asks for text only (a compaction summary) gets no scenario.
    """
    messages = body.get("messages", [])
    last = messages[-1] if messages else {}
    compacting = last.get("role") == "user" and any(COMPACT_MARK in t for t in _texts(last))
    user = [m for m in messages if m.get("role") == "user"]
    scenario = None if compacting else newest_scenario(t for m in user for t in _texts(m))
    results = tuple(
        ToolResult(
            str(block.get("tool_use_id", "")).removeprefix(_ID_PREFIX),
            result_text(block),
            bool(block.get("is_error")),
        )
        for message in user
        if isinstance(message.get("content"), list)
        for block in message["content"]
        if block.get("type") == "tool_result"
    )
    return Conversation(scenario, results, bool(body.get("tools")))


def _blocks(step: Step) -> list[dict[str, Any]]:
    if isinstance(step, str):
        return [{"type": "text", "text": step}]
    call_id = _ID_PREFIX + step.id
    return [{"type": "tool_use", "id": call_id, "name": step.name, "input": step.input}]


def _sse(event: str, data: dict[str, Any]) -> bytes:
    return f"event: {event}\ndata: {json.dumps(data)}\n\n".encode()


def stream_events(blocks: list[dict[str, Any]], model: str) -> Iterator[bytes]:
    """The streaming Messages API events for one assistant message."""
    stop = "tool_use" if any(b["type"] == "tool_use" for b in blocks) else "end_turn"
    yield _sse(
        "message_start",
        {
            "type": "message_start",
            "message": {
                "id": "msg_fake",
                "type": "message",
                "role": "assistant",
                "model": model,
                "content": [],
                "stop_reason": None,
                "stop_sequence": None,
                "usage": {"input_tokens": 10, "output_tokens": 1},
            },
        },
    )
    for index, block in enumerate(blocks):
        start: dict[str, Any]
        if block["type"] == "text":
            start = {"type": "text", "text": ""}
            delta = {"type": "text_delta", "text": block["text"]}
        else:
            start = {"type": "tool_use", "id": block["id"], "name": block["name"], "input": {}}
            delta = {"type": "input_json_delta", "partial_json": json.dumps(block["input"])}
        yield _sse(
            "content_block_start",
            {"type": "content_block_start", "index": index, "content_block": start},
        )
        yield _sse(
            "content_block_delta", {"type": "content_block_delta", "index": index, "delta": delta}
        )
        yield _sse("content_block_stop", {"type": "content_block_stop", "index": index})
    yield _sse(
        "message_delta",
        {
            "type": "message_delta",
            "delta": {"stop_reason": stop, "stop_sequence": None},
            "usage": {"output_tokens": 5},
        },
    )
    yield _sse("message_stop", {"type": "message_stop"})


def route(fake: FakeModel, path: str, query: str, body: dict[str, Any]) -> Response:
    """The Messages API: ``/v1/messages`` and its ``count_tokens``; anything else ``{}``."""
    if path.endswith("/count_tokens"):
        return Response(200, b'{"input_tokens": 100}')
    if not path.endswith("/messages"):
        return EMPTY
    blocks = _blocks(fake.answer(body, read_messages))
    model = str(body.get("model", "claude-fake"))
    if body.get("stream"):
        return Response(200, b"".join(stream_events(blocks, model)), "text/event-stream")
    stop = "tool_use" if any(b["type"] == "tool_use" for b in blocks) else "end_turn"
    message = {
        "id": "msg_fake",
        "type": "message",
        "role": "assistant",
        "model": model,
        "content": blocks,
        "stop_reason": stop,
        "stop_sequence": None,
        "usage": {"input_tokens": 10, "output_tokens": 5},
    }
    return Response(200, json.dumps(message).encode())
