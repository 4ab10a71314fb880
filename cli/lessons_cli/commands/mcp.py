"""``lessons mcp``: the lessons as tools an agent calls, over the Model Context Protocol."""

from __future__ import annotations

from importlib import import_module
from pathlib import Path

import click

from lessons_cli import mcp_sdk
from lessons_core.errors import LessonsError


@click.command("mcp")
def mcp_command() -> None:
    """Serve the lessons to an agent as MCP tools, over stdin and stdout.

    Harnesses start this, not people: 'lessons init --claude-code --mcp' registers it in
    .mcp.json. Tools: lessons_query (rules for a file, command or task, each once per
    session, shared with the hooks), lessons_show, lessons_add (the same checks as
    'lessons add', refusals as errors naming the problem and the fix), lessons_topics,
    lessons_deprecate. It serves until the client closes stdin and every request it
    read has its answer. It needs the MCP SDK, the 'mcp' extra ("pipx install '.[mcp]'");
    without it, it exits 1 naming the command that installs it.

    \b
    Example:
      lessons init --claude-code --mcp     # register it in .mcp.json, then start claude
      echo '{"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion":
      "2025-06-18", "capabilities": {}, "clientInfo": {"name": "sh", "version": "1"}}}' \\
        | tr -d '\\n' | lessons mcp
    """
    problem = mcp_sdk.missing()
    if problem is not None:  # an install without the mcp extra
        raise LessonsError(problem)
    # Imported by name here, not at the top: every command module loads with the CLI, and
    # the SDK (pydantic, anyio, ...) costs about a second that only this command needs.
    import_module("lessons_cli.mcp_server").serve(Path.cwd())
