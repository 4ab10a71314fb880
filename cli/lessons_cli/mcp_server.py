"""``lessons mcp``: the tools of ``lessons_cli.mcp_tools`` served over stdio with the
official Model Context Protocol SDK (``mcp`` on PyPI).

Only this module imports the SDK, and only ``lessons mcp`` imports this module: the SDK
and what it pulls in (pydantic, anyio, starlette) cost far more to import than a hook may
spend (tests/hooks/test_hook_entry.py holds the hook to that).

The SDK's stdio transport points the process's stdout at stderr while it serves, so
nothing but protocol messages can reach the client through stdout, and it ends when the
client closes stdin, once every request read before then has its answer (the SDK alone
would cancel the handlers still running at end of input, losing replies to requests it
had read: a client piping a file of requests got half of them answered). A tool that
hits a bug answers with an error result and a traceback on stderr (clients keep a
server's stderr as its log); the server keeps serving.
"""

from __future__ import annotations

import sys
import traceback
from collections.abc import AsyncIterable
from pathlib import Path
from typing import Any, Protocol

import anyio
import mcp_types as types
from anyio.streams.memory import MemoryObjectReceiveStream, MemoryObjectSendStream
from mcp.server import Server, ServerRequestContext
from mcp.server.stdio import stdio_server
from mcp.shared.message import SessionMessage

from lessons_cli.mcp_tools import ToolReply, call_tool, tool_list
from lessons_core import __version__

INSTRUCTIONS = (
    "Project lessons: one-line rules this repository's agents learnt from past mistakes. "
    "Query them before planning an edit or command; save a new one after a correction."
)


def build_server(cwd: Path) -> Server[Any]:
    """The server, answering for the store found from ``cwd``."""

    async def list_tools(
        ctx: ServerRequestContext[Any], params: types.PaginatedRequestParams | None
    ) -> types.ListToolsResult:
        return types.ListToolsResult(tools=[types.Tool.model_validate(t) for t in tool_list()])

    async def call(
        ctx: ServerRequestContext[Any], params: types.CallToolRequestParams
    ) -> types.CallToolResult:
        try:
            reply = call_tool(params.name, params.arguments, cwd)
            for problem in reply.data.get("skipped", ()):  # for the server's log, as the CLI
                print(f"warning: skipped {problem}", file=sys.stderr)
        except Exception:  # a bug: reported to the model and logged, the server goes on
            traceback.print_exc(file=sys.stderr)
            reply = ToolReply(
                f"lessons hit a bug in {params.name}; the traceback is in the server's log",
                {"error": {"code": "bug", "problem": "internal error", "fix": "report it"}},
                is_error=True,
            )
        # Claude Code hands the model a successful result's structured content in place
        # of its text: a success goes as text alone (the fenced block the hooks show, the
        # lesson in words); an error also carries its code, problem and fix as JSON.
        return types.CallToolResult(
            content=[types.TextContent(text=reply.text)],
            structured_content=reply.data if reply.is_error else None,
            is_error=reply.is_error,
        )

    return Server(
        "lessons",
        version=__version__,
        instructions=INSTRUCTIONS,
        on_list_tools=list_tools,
        on_call_tool=call,
    )


# How long the server waits, once stdin has closed, for the answers to requests it has
# read: a tool call takes well under a second, an index rebuild of a large store a few.
DRAIN_SECONDS = 60.0

RequestId = str | int
CANCELLED = "notifications/cancelled"


class ClientOutput(Protocol):
    """The stdio transport's stream to the client."""

    async def send(self, item: SessionMessage, /) -> None: ...

    async def aclose(self) -> None: ...


class Unanswered:
    """The ids of the requests read from the client and not answered yet."""

    def __init__(self) -> None:
        self.ids: dict[RequestId, int] = {}  # id -> how many are open (a client may reuse one)
        self.done = False  # the server wrote its last message: nothing more will come
        self._changed = anyio.Event()

    def opened(self, message: types.JSONRPCMessage) -> None:
        if isinstance(message, types.JSONRPCRequest):
            self.ids[message.id] = self.ids.get(message.id, 0) + 1
        elif isinstance(message, types.JSONRPCNotification) and message.method == CANCELLED:
            # A cancelled request gets no answer (the protocol says so): wait for none.
            self.ids.pop((message.params or {}).get("requestId", ""), None)

    def answered(self, message: types.JSONRPCMessage) -> None:
        if (
            isinstance(message, types.JSONRPCResponse | types.JSONRPCError)
            and message.id is not None
        ):
            left = self.ids.pop(message.id, 0) - 1
            if left > 0:
                self.ids[message.id] = left
            self._wake()

    def finish(self) -> None:
        self.done = True
        self._wake()

    def _wake(self) -> None:
        self._changed.set()
        self._changed = anyio.Event()

    async def settled(self) -> None:
        """Return once every open request is answered or the server can answer no more."""
        while self.ids and not self.done:
            await self._changed.wait()


async def relay_requests(
    client: AsyncIterable[SessionMessage | Exception],
    server: MemoryObjectSendStream[SessionMessage | Exception],
    open_requests: Unanswered,
) -> None:
    """Hand the server what the client sends; at end of input, end the server's input only
    when the requests already read are answered (bounded by ``DRAIN_SECONDS``)."""
    async with server:
        try:
            async for item in client:
                if isinstance(item, SessionMessage):
                    open_requests.opened(item.message)
                await server.send(item)
        except (anyio.BrokenResourceError, anyio.ClosedResourceError):
            return  # the server stopped reading: nothing is left to wait for
        with anyio.move_on_after(DRAIN_SECONDS):
            await open_requests.settled()


async def relay_replies(
    server: MemoryObjectReceiveStream[SessionMessage],
    client: ClientOutput,
    open_requests: Unanswered,
) -> None:
    """Hand the client what the server writes, noting each request answered."""
    try:
        async for message in server:
            await client.send(message)
            open_requests.answered(message.message)
    finally:
        open_requests.finish()
        await client.aclose()


def serve(cwd: Path) -> None:
    """Serve one client over stdin/stdout until it closes stdin and has every answer."""
    server = build_server(cwd)

    async def run() -> None:
        async with stdio_server() as (from_client, to_client):
            to_server, server_input = anyio.create_memory_object_stream[
                SessionMessage | Exception
            ]()
            server_output, from_server = anyio.create_memory_object_stream[SessionMessage]()
            open_requests = Unanswered()
            async with anyio.create_task_group() as tasks:
                tasks.start_soon(relay_requests, from_client, to_server, open_requests)
                tasks.start_soon(relay_replies, from_server, to_client, open_requests)
                await server.run(
                    server_input, server_output, server.create_initialization_options()
                )

    anyio.run(run)
