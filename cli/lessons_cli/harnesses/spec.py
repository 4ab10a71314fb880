"""What a harness's wiring is: the settings file ``lessons init`` writes and the events
(with tool matchers) it asks the harness to call ``lessons hook`` on.

Each harness module builds its ``WIRING`` from these records at import time. Writing them
into settings files is ``lessons_cli.harnesses.wiring``.
"""

# Annotations are evaluated, not postponed (no ``from __future__ import annotations``):
# a NamedTuple compiles each string annotation of its fields when its class is made.
import re
from typing import Any, NamedTuple


class HookEvent(NamedTuple):
    name: str
    matcher: str | None = None


class Wiring(NamedTuple):
    """Where one harness reads hooks from and which events ``lessons`` listens to.

    ``nested``: entries are groups ``{"matcher", "hooks": [{"type", "command"}]}`` (Claude
    Code, Codex, Gemini CLI, Qwen Code); otherwise flat ``{"command", "matcher"}`` entries
    (Cursor, Copilot CLI), with ``handler_extra`` beside the command.
    ``command_key``: the key that holds the command (Copilot CLI's is ``bash``).
    ``project_dir_var``: the variable the harness sets to the project folder when it runs
    a hook, if it sets one (the hook command finds ``.lessons/run`` through it).
    ``note``: what ``lessons init`` tells the user after wiring it, when the harness needs
    a step of theirs before it runs the hooks (``{root}``: the store's folder).
    ``mcp_settings``: the project file where the harness reads MCP servers, if lessons
    registers ``lessons mcp`` there (``lessons init --mcp``; docs/mcp.md), and
    ``mcp_project_dir_var`` the variable it sets to the project folder for its servers.
    A harness that runs a file of ours at ``settings`` instead of reading hook entries
    there (Pi, Cline, OpenCode, Kilo) has its file in ``plugin_files.PLUGIN_FILES``.
    """

    harness: str
    settings: str
    events: tuple[HookEvent, ...]
    project_dir_var: str | None = None
    nested: bool = True
    handler_extra: dict[str, Any] | None = None
    top_level: dict[str, Any] | None = None
    command_key: str = "command"
    note: str | None = None
    mcp_settings: str | None = None
    mcp_project_dir_var: str | None = None

    def covers(self, event: str, tool: str | None = None) -> bool:
        """Whether the harness runs our hook on ``event`` (for ``tool``) with these entries.

        Matchers are regular expressions over the whole tool name, as the harnesses read
        them (``Edit|Write``); an event without one fires for every tool.
        """

        for hook in self.events:
            if hook.name == event:
                return hook.matcher is None or (
                    tool is not None and re.fullmatch(hook.matcher, tool) is not None
                )
        return False


def any_of(tools: tuple[str, ...]) -> str:
    """A matcher for exactly ``tools``, for a harness that matches the whole tool name."""
    return "|".join(tools)


def anchored(tools: tuple[str, ...]) -> str:
    """A matcher for exactly ``tools``, for a harness that searches the tool name for its
    matcher (``RegExp.test``): the anchors keep our hook off every other tool whose name
    merely contains one of these (an MCP tool called ``search_replace``, say)."""
    return f"^({any_of(tools)})$"
