"""``lessons mcp``: the tools of ``lessons_cli.mcp_tools`` served over stdio with the
official Model Context Protocol SDK (``mcp`` on PyPI).

Only this module imports the SDK, and only ``lessons mcp`` imports this module: the SDK
and what it pulls in (pydantic, anyio, starlette) cost far more to import than a hook may
spend (tests/hooks/test_hook_entry.py holds the hook to that).

The SDK's stdio transport points the process's stdout at stderr while it serves, so
nothing but protocol messages can reach the client through stdout, and it ends when the
client closes stdin. A tool that hits a bug answers with an error result and a traceback
on stderr (clients keep a server's stderr as its log); the server keeps serving.
"""

from __future__ import annotations

import sys
import traceback
from pathlib import Path
from typing import Any

import anyio
import mcp_types as types
from mcp.server import Server, ServerRequestContext
from mcp.server.stdio import stdio_server

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


def serve(cwd: Path) -> None:
    """Serve one client over stdin/stdout until it closes stdin."""
    server = build_server(cwd)

    async def run() -> None:
        async with stdio_server() as (read_stream, write_stream):
            await server.run(read_stream, write_stream, server.create_initialization_options())

    anyio.run(run)
