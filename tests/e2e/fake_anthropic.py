"""A scripted stand-in for the Anthropic Messages API (served by ``fake_server``).

The real Claude Code client talks to it through ``ANTHROPIC_BASE_URL``. The reply to a
main-loop request is derived from the conversation itself, so retries and resumed sessions
need no server-side state: a request whose newest prompt names no scenario (compaction,
titles, side queries) gets a short text reply; after a scenario's last call the model ends
the turn with text.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from typing import Any

from lessons_core.delivery.deliver import GATE_PREFIX
from tests.e2e.fake_server import EMPTY, SCENARIO, Recorder, Reply, ToolCall, sse, texts

# Claude Code's compaction request tells the model to answer in text only.
COMPACT_MARK = "TEXT ONLY"
# How Claude Code hands the model a stop hook's reason (DESIGN: Stop, verified).
STOP_FEEDBACK = "Stop hook feedback:"


class FakeModel(Recorder):
    """The Messages API: ``/v1/messages`` (streaming or not) and ``count_tokens``.

    ``answer_stop``, when set, is how the model acts on a stop hook's feedback: given the
    feedback's text, the tool call it makes (once; then it ends the turn again).
    """

    answer_stop: Callable[[str], ToolCall] | None = None

    def reply(self, body: dict[str, Any]) -> list[dict[str, Any]]:
        """The content blocks of the next assistant message."""
        messages = body.get("messages", [])
        feedback = stop_feedback(messages)
        if feedback is not None and self.answer_stop is not None and body.get("tools"):
            answer = self.answer_stop(feedback)
            tool_id = f"toolu_stop_{len(self.requests):04d}"
            return [{"type": "tool_use", "id": tool_id, "name": answer.name, "input": answer.input}]
        scenario = _newest_scenario(messages)
        if not self.scenarios.get(scenario or "") or not body.get("tools"):
            return [{"type": "text", "text": "Summary: the session ran the scripted steps."}]
        done = _completed_steps(messages, scenario or "")
        call = self.next_call(scenario, done)
        if call is None:
            return [{"type": "text", "text": "All steps are done."}]
        tool_id = f"toolu_{scenario}_{done}_{len(self.requests):04d}"
        return [{"type": "tool_use", "id": tool_id, "name": call.name, "input": call.input}]

    def respond(self, path: str, body: dict[str, Any]) -> Reply:
        if path.endswith("/count_tokens"):
            return Reply(b'{"input_tokens": 100}')
        if not path.endswith("/messages"):
            return EMPTY
        blocks = self.reply(body)
        self.record(body)
        model = str(body.get("model", "claude-fake"))
        if body.get("stream"):
            return Reply(b"".join(stream_events(blocks, model)), "text/event-stream")
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
        return Reply(json.dumps(message).encode())


def stop_feedback(messages: list[dict[str, Any]]) -> str | None:
    """The text of a stop hook's feedback not acted on yet. Claude Code puts it in the
    newest user message ("Stop hook feedback:\nREASON", inside a system reminder, after
    the turn's tool results) and may send a system note after it. It merges the turn's
    messages, so the feedback stays there after the model answered it: answered means a
    result of the model's stop call (``toolu_stop_...``) is in the conversation."""
    users = [m for m in messages if m.get("role") == "user"]
    if not users or messages.index(users[-1]) < len(messages) - 2:
        return None
    for message in users:
        for block in message.get("content") or []:
            if isinstance(block, dict) and str(block.get("tool_use_id", "")).startswith(
                "toolu_stop_"
            ):
                return None
    found = [t for t in texts(users[-1].get("content")) if STOP_FEEDBACK in t]
    return found[-1] if found else None


def _newest_scenario(messages: list[dict[str, Any]]) -> str | None:
    """The name in the newest ``SCENARIO:`` prompt.

    Claude Code may merge a new prompt into the user message that carries the previous
    tool results (after ``--resume``), so every user message is searched, newest first.
    A request that asks for text only (a compaction summary) gets no scenario.
    """
    for index in range(len(messages) - 1, -1, -1):
        message = messages[index]
        if message.get("role") != "user":
            continue
        found_texts = texts(message.get("content"))
        if index == len(messages) - 1 and any(COMPACT_MARK in t for t in found_texts):
            return None
        for text in reversed(found_texts):
            found = SCENARIO.search(text)
            if found:
                return found.group(1)
    return None


def result_text(block: dict[str, Any]) -> str:
    return "\n".join(texts(block.get("content")))


def tool_results(request: dict[str, Any]) -> list[dict[str, Any]]:
    """Every tool result a recorded request carries, oldest first."""
    return [
        block
        for message in request["messages"]
        if isinstance(message.get("content"), list)
        for block in message["content"]
        if block.get("type") == "tool_result"
    ]


def _completed_steps(messages: list[dict[str, Any]], scenario: str) -> int:
    """Results of this scenario's calls (their ids name it) that were not a gate denial.

    Ids, not positions, tie a result to its scenario: Claude Code merges and reorders
    messages when it resumes or compacts a session.
    """
    done = 0
    for message in messages:
        content = message.get("content")
        if message.get("role") != "user" or not isinstance(content, list):
            continue
        for block in content:
            if block.get("type") != "tool_result":
                continue
            if not str(block.get("tool_use_id", "")).startswith(f"toolu_{scenario}_"):
                continue
            denied = block.get("is_error") and GATE_PREFIX in result_text(block)
            if not denied:
                done += 1
    return done


def stream_events(blocks: list[dict[str, Any]], model: str) -> Iterator[bytes]:
    """The streaming Messages API events for one assistant message."""
    stop = "tool_use" if any(b["type"] == "tool_use" for b in blocks) else "end_turn"
    yield sse(
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
        yield sse(
            "content_block_start",
            {"type": "content_block_start", "index": index, "content_block": start},
        )
        yield sse(
            "content_block_delta", {"type": "content_block_delta", "index": index, "delta": delta}
        )
        yield sse("content_block_stop", {"type": "content_block_stop", "index": index})
    yield sse(
        "message_delta",
        {
            "type": "message_delta",
            "delta": {"stop_reason": stop, "stop_sequence": None},
            "usage": {"output_tokens": 5},
        },
    )
    yield sse("message_stop", {"type": "message_stop"})
