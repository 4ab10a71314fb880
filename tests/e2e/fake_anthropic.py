"""A scripted stand-in for the Anthropic Messages API, served on 127.0.0.1.

The real Claude Code client talks to it through ``ANTHROPIC_BASE_URL``. Every request body
is recorded. The reply to a main-loop request is derived from the conversation itself, so
retries and resumed sessions need no server-side state:

- the scenario is named in the newest user prompt (``SCENARIO:name``); a request whose
  newest prompt names none (compaction, titles, side queries) gets a short text reply;
- a scenario is a list of tool calls; each is issued in turn, and a call whose result came
  back as a ``lessons`` gate denial is issued again, the way a model applies the rule and
  retries; after the last call the model ends the turn with text.
"""

from __future__ import annotations

import json
import re
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from lessons_core.delivery import GATE_PREFIX

_SCENARIO = re.compile(r"SCENARIO:([\w-]+)")
# Claude Code's compaction request tells the model to answer in text only.
COMPACT_MARK = "TEXT ONLY"


@dataclass(frozen=True)
class ToolCall:
    name: str
    input: dict[str, Any]


@dataclass
class FakeModel:
    """Scenarios by name; every request received and what ``probe`` saw at that moment."""

    scenarios: dict[str, list[ToolCall]]
    probe: Callable[[], Any] = lambda: None
    requests: list[dict[str, Any]] = field(default_factory=list)
    observed: list[Any] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def reply(self, body: dict[str, Any]) -> list[dict[str, Any]]:
        """The content blocks of the next assistant message."""
        messages = body.get("messages", [])
        scenario = _newest_scenario(messages)
        calls = self.scenarios.get(scenario or "")
        if not calls or not body.get("tools"):
            return [{"type": "text", "text": "Summary: the session ran the scripted steps."}]
        done = _completed_steps(messages, scenario or "")
        if done >= len(calls):
            return [{"type": "text", "text": "All steps are done."}]
        call = calls[done]
        tool_id = f"toolu_{scenario}_{done}_{len(self.requests):04d}"
        return [{"type": "tool_use", "id": tool_id, "name": call.name, "input": call.input}]


def _texts(message: dict[str, Any]) -> list[str]:
    content = message.get("content")
    if isinstance(content, str):
        return [content]
    return [b.get("text", "") for b in content or [] if b.get("type") == "text"]


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
        texts = _texts(message)
        if index == len(messages) - 1 and any(COMPACT_MARK in text for text in texts):
            return None
        for text in reversed(texts):
            found = _SCENARIO.search(text)
            if found:
                return found.group(1)
    return None


def result_text(block: dict[str, Any]) -> str:
    content = block.get("content")
    if isinstance(content, str):
        return content
    return "\n".join(b.get("text", "") for b in content or [] if isinstance(b, dict))


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


def _handler(fake: FakeModel) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, format: str, *args: Any) -> None:
            """Quiet: the test reads the recorded requests instead."""

        def _send(self, status: int, body: bytes, content_type: str) -> None:
            self.send_response(status)
            self.send_header("content-type", content_type)
            self.send_header("content-length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def do_GET(self) -> None:
            self._send(200, b"{}", "application/json")

        do_HEAD = do_GET

        def do_POST(self) -> None:
            length = int(self.headers.get("content-length") or 0)
            raw = self.rfile.read(length) if length else b""
            try:
                body = json.loads(raw or b"{}")
            except json.JSONDecodeError:
                body = {}
            path = self.path.split("?", 1)[0]
            if path.endswith("/count_tokens"):
                self._send(200, b'{"input_tokens": 100}', "application/json")
                return
            if not path.endswith("/messages"):
                self._send(200, b"{}", "application/json")
                return
            with fake.lock:
                blocks = fake.reply(body)
                fake.requests.append(body)
                fake.observed.append(fake.probe())
            model = str(body.get("model", "claude-fake"))
            if body.get("stream"):
                payload = b"".join(stream_events(blocks, model))
                self._send(200, payload, "text/event-stream")
                return
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
            self._send(200, json.dumps(message).encode(), "application/json")

    return Handler


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    block_on_close = False  # a client's idle keep-alive connection must not hold up close()


class FakeServer:
    """Serve ``fake`` on a free loopback port until ``close``."""

    def __init__(self, fake: FakeModel) -> None:
        self.fake = fake
        self.httpd = _Server(("127.0.0.1", 0), _handler(fake))
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)
        self.thread.start()

    @property
    def url(self) -> str:
        host, port = self.httpd.server_address[:2]
        name = host.decode() if isinstance(host, bytes) else host
        return f"http://{name}:{port}"

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()
