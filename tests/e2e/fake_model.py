"""What every scripted stand-in for a model API shares: scenarios, recording, a loopback server.

A real agent client talks to a fake server on 127.0.0.1. Every model request is recorded
with what ``probe`` saw at that moment (say, whether a file exists yet). The reply to a
main-loop request is derived from the conversation itself, so retries and resumed sessions
need no server-side state:

- the scenario is named in the newest user prompt (``SCENARIO:name``); a request that names
  none, or offers no tools (compaction, titles, side queries), gets a short text reply;
- a scenario is a list of tool calls; each is issued in turn, and a call whose result came
  back as a ``lessons`` gate denial is issued again, the way a model applies the rule and
  retries; after the last call the model ends the turn with text.

Each wire format (``fake_anthropic``, ``fake_gemini``) reads its requests into a
``Conversation`` and renders the ``Step`` it gets back.
"""

from __future__ import annotations

import json
import re
import threading
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, NamedTuple

from lessons_core.delivery import GATE_PREFIX

_SCENARIO = re.compile(r"SCENARIO:([\w-]+)")
SUMMARY = "Summary: the session ran the scripted steps."
DONE = "All steps are done."


@dataclass(frozen=True)
class ToolCall:
    """One scripted call: the tool's name as the client offers it, and its arguments."""

    name: str
    input: dict[str, Any]


@dataclass(frozen=True)
class ToolUse:
    """A call the model makes now; ``id`` names its scenario and step."""

    id: str
    name: str
    input: dict[str, Any]


@dataclass(frozen=True)
class ToolResult:
    """A tool result the client sent back: the id of its call, its text, whether an error."""

    call_id: str
    text: str
    error: bool

    @property
    def refused(self) -> bool:
        """Whether a ``lessons`` gate refused the call (so the model makes it again)."""
        return self.error and GATE_PREFIX in self.text


@dataclass(frozen=True)
class Conversation:
    """What a wire format read from one request."""

    scenario: str | None
    results: tuple[ToolResult, ...]
    tools_offered: bool


def newest_scenario(texts: Iterable[str]) -> str | None:
    """The name in the last ``SCENARIO:`` of ``texts`` (given oldest first)."""
    found = None
    for text in texts:
        for match in _SCENARIO.finditer(text):
            found = match.group(1)
    return found


Step = ToolUse | str  # a tool call, or the text that ends the turn


@dataclass
class FakeModel:
    """Scenarios by name; every request received and what ``probe`` saw at that moment."""

    scenarios: dict[str, list[ToolCall]]
    probe: Callable[[], Any] = lambda: None
    requests: list[dict[str, Any]] = field(default_factory=list)
    observed: list[Any] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def answer(self, body: dict[str, Any], read: Callable[[dict[str, Any]], Conversation]) -> Step:
        """Record ``body`` and decide the model's next step, as one atomic act."""
        with self.lock:
            step = self.next_step(read(body))
            self.requests.append(body)
            self.observed.append(self.probe())
        return step

    def next_step(self, conversation: Conversation) -> Step:
        scenario = conversation.scenario or ""
        calls = self.scenarios.get(scenario)
        if not calls or not conversation.tools_offered:
            return SUMMARY
        # Ids, not positions, tie a result to its scenario: clients merge, reorder and
        # compact messages.
        done = sum(
            1
            for result in conversation.results
            if result.call_id.startswith(f"{scenario}_") and not result.refused
        )
        if done >= len(calls):
            return DONE
        call = calls[done]
        return ToolUse(f"{scenario}_{done}_{len(self.requests):04d}", call.name, call.input)


class Response(NamedTuple):
    status: int
    body: bytes
    content_type: str = "application/json"


# A wire format's answer to one POST: (fake, path without query, query, JSON body).
Route = Callable[[FakeModel, str, str, dict[str, Any]], Response]
EMPTY = Response(200, b"{}")


def _handler(fake: FakeModel, route: Route) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, format: str, *args: Any) -> None:
            """Quiet: the test reads the recorded requests instead."""

        def _send(self, response: Response) -> None:
            self.send_response(response.status)
            self.send_header("content-type", response.content_type)
            self.send_header("content-length", str(len(response.body)))
            self.end_headers()
            self.wfile.write(response.body)

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
            path, _, query = self.path.partition("?")
            self._send(route(fake, path, query, body if isinstance(body, dict) else {}))

    return Handler


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    block_on_close = False  # a client's idle keep-alive connection must not hold up close()


class FakeServer:
    """Serve ``fake`` through ``route`` on a free loopback port until ``close``."""

    def __init__(self, fake: FakeModel, route: Route) -> None:
        self.fake = fake
        self.httpd = _Server(("127.0.0.1", 0), _handler(fake, route))
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
