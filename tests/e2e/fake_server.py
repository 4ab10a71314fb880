"""What every scripted stand-in for a model API shares: a loopback server, request
recording and scenario stepping.

A model API module (``fake_anthropic``, ``fake_chat_completions``) subclasses
``FakeModel`` with ``answer``: it reads the conversation in a request body, finds the
scenario named in the newest user prompt (``SCENARIO:name``) and the steps already done,
and encodes ``next_call`` in its wire format. Replies are derived from the conversation
alone, so retries and resumed sessions need no server-side state.
"""

from __future__ import annotations

import json
import re
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Generic, NamedTuple, TypeVar

SCENARIO = re.compile(r"SCENARIO:([\w-]+)")
# What the model says when a request names no scenario (titles, summaries, side queries)
# and when a scenario's steps are all done.
SUMMARY_TEXT = "Summary: the session ran the scripted steps."
DONE_TEXT = "All steps are done."


@dataclass(frozen=True)
class ToolCall:
    name: str
    input: dict[str, Any]


class Reply(NamedTuple):
    """An HTTP answer; ``model_call`` marks a request the test reads afterwards."""

    body: bytes
    content_type: str = "application/json"
    model_call: bool = False


def scenario_in(texts: list[str]) -> str | None:
    """The scenario named in ``texts``, the newest (last) text first."""
    for text in reversed(texts):
        found = SCENARIO.search(text)
        if found:
            return found.group(1)
    return None


def sse(data: dict[str, Any] | str, event: str | None = None) -> bytes:
    """One server-sent event."""
    payload = data if isinstance(data, str) else json.dumps(data)
    head = f"event: {event}\n" if event else ""
    return f"{head}data: {payload}\n\n".encode()


@dataclass
class FakeModel:
    """Scenarios by name; every model request received and what ``probe`` saw at that moment."""

    scenarios: dict[str, list[ToolCall]]
    probe: Callable[[], Any] = lambda: None
    requests: list[dict[str, Any]] = field(default_factory=list)
    observed: list[Any] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def next_call(self, scenario: str | None, done: int) -> ToolCall | str:
        """The scenario's next tool call, or the text that ends the turn."""
        calls = self.scenarios.get(scenario or "")
        if not calls:
            return SUMMARY_TEXT
        return calls[done] if done < len(calls) else DONE_TEXT

    def call_id(self, prefix: str, scenario: str, done: int) -> str:
        """A tool call id naming its scenario, so a result can be tied to it later."""
        return f"{prefix}{scenario}_{done}_{len(self.requests):04d}"

    def answer(self, path: str, body: dict[str, Any]) -> Reply:
        """The reply to a POST to ``path`` (called under ``lock``)."""
        raise NotImplementedError


def _handler(fake: FakeModel) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, format: str, *args: Any) -> None:
            """Quiet: the test reads the recorded requests instead."""

        def _send(self, reply: Reply) -> None:
            self.send_response(200)
            self.send_header("content-type", reply.content_type)
            self.send_header("content-length", str(len(reply.body)))
            self.end_headers()
            self.wfile.write(reply.body)

        def do_GET(self) -> None:
            self._send(Reply(b"{}"))

        do_HEAD = do_GET

        def do_POST(self) -> None:
            length = int(self.headers.get("content-length") or 0)
            raw = self.rfile.read(length) if length else b""
            try:
                body = json.loads(raw or b"{}")
            except json.JSONDecodeError:
                body = {}
            with fake.lock:
                reply = fake.answer(self.path.split("?", 1)[0], body)
                if reply.model_call:
                    fake.requests.append(body)
                    fake.observed.append(fake.probe())
            self._send(reply)

    return Handler


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    block_on_close = False  # a client's idle keep-alive connection must not hold up close()


Model = TypeVar("Model", bound=FakeModel)


class FakeServer(Generic[Model]):
    """Serve ``fake`` on a free loopback port until ``close``."""

    def __init__(self, fake: Model) -> None:
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
