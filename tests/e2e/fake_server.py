"""What every fake model API shares: scripted scenarios, request recording, a loopback server.

A real agent client is pointed at ``FakeServer.url``. The API module (Anthropic Messages,
OpenAI Responses, ...) turns each request into a ``Reply`` and records the model calls
through ``Recorder.record``, so a test reads exactly what reached the model and what
``probe`` saw at that moment (say, whether a file existed yet).

Scenarios keep the server stateless: the newest user prompt names one
(``SCENARIO:name``), a scenario is a list of tool calls issued in turn, and the API
module counts from the conversation how many of them already ran (a call refused by a
``lessons`` gate does not count, so it is issued again, the way a model applies the rule
and retries).
"""

from __future__ import annotations

import json
import re
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Generic, Protocol, TypeVar

SCENARIO = re.compile(r"SCENARIO:([\w-]+)")


@dataclass(frozen=True)
class ToolCall:
    name: str
    input: dict[str, Any]


@dataclass(frozen=True)
class Reply:
    body: bytes
    content_type: str = "application/json"
    status: int = 200


EMPTY = Reply(b"{}")


@dataclass
class Recorder:
    """Scenarios by name; every model request received and what ``probe`` saw then."""

    scenarios: dict[str, list[ToolCall]]
    probe: Callable[[], Any] = lambda: None
    requests: list[dict[str, Any]] = field(default_factory=list)
    observed: list[Any] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def record(self, body: dict[str, Any]) -> int:
        """Keep ``body``; its index among the requests."""
        self.requests.append(body)
        self.observed.append(self.probe())
        return len(self.requests) - 1

    def next_call(self, scenario: str | None, done: int) -> ToolCall | None:
        """The call after ``done`` completed ones, or None when the scenario is over."""
        calls = self.scenarios.get(scenario or "", [])
        return calls[done] if done < len(calls) else None


class Api(Protocol):
    """One model API: answers a POST (called under ``lock``), records model calls."""

    lock: threading.Lock

    def respond(self, path: str, body: dict[str, Any]) -> Reply: ...


def _handler(api: Api) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, format: str, *args: Any) -> None:
            """Quiet: the test reads the recorded requests instead."""

        def _send(self, reply: Reply) -> None:
            self.send_response(reply.status)
            self.send_header("content-type", reply.content_type)
            self.send_header("content-length", str(len(reply.body)))
            self.end_headers()
            self.wfile.write(reply.body)

        def do_GET(self) -> None:
            self._send(EMPTY)

        do_HEAD = do_GET

        def do_POST(self) -> None:
            length = int(self.headers.get("content-length") or 0)
            raw = self.rfile.read(length) if length else b""
            try:
                body = json.loads(raw or b"{}")
            except json.JSONDecodeError:
                body = {}
            with api.lock:
                reply = api.respond(self.path.split("?", 1)[0], body)
            self._send(reply)

    return Handler


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    block_on_close = False  # a client's idle keep-alive connection must not hold up close()


ApiT = TypeVar("ApiT", bound=Api)


class FakeServer(Generic[ApiT]):
    """Serve ``api`` on a free loopback port until ``close``."""

    def __init__(self, api: ApiT) -> None:
        self.api = api
        self.httpd = _Server(("127.0.0.1", 0), _handler(api))
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


def sse(event: str, data: dict[str, Any]) -> bytes:
    """One server-sent event."""
    return f"event: {event}\ndata: {json.dumps(data)}\n\n".encode()


def texts(content: Any) -> list[str]:
    """The texts of a message or tool result: its content as a string, or a list of parts."""
    if isinstance(content, str):
        return [content]
    return [part.get("text", "") for part in content or [] if isinstance(part, dict)]
