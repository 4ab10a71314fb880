"""Every harness's wiring hands its hook exactly what its adapter handles: the wired
events are the events it answers, the tools the wired matchers name are the tools whose
calls it reads, and every recorded payload is one the wiring sends."""

from __future__ import annotations

import re
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

import pytest

from lessons_cli.commands.hook import hook_command
from lessons_cli.harnesses import HARNESSES, codex, harness
from lessons_cli.harnesses.claude_protocol import HookPayload
from lessons_cli.harnesses.spec import Wiring
from lessons_core.delivery.tool_action import ToolAction
from lessons_core.store.layout import Layout
from tests.hooks.conftest import FIXTURES, payload

if TYPE_CHECKING:
    from lessons_cli.harnesses import Harness

# Tool names some harness sends, and names no adapter reads (pure reads, look-alikes).
OTHER_TOOLS = (
    "Read", "Grep", "view", "grep", "glob", "read_file", "grep_search", "search_replace",
    "mcp__fs__Edit", "Bash2", "edit_file", "exec_command", "shell", "local_shell",
    "run_terminal_cmd", "notebook_edit", "task",
)  # fmt: skip
# Arguments every tool can read something from: a file under each name adapters read it
# by (OpenCode's and Kilo's: filePath), and a command that is also a patch (Codex's
# apply_patch takes its files from one).
ARGS = {
    "file_path": "src/a.py",
    "path": "src/a.py",
    "filePath": "src/a.py",
    "include": ["src/a.py"],
    "command": "*** Begin Patch\n*** Update File: src/a.py\n@@\n-x = 1\n+x = 2\n*** End Patch\n",
    "input": "*** Begin Patch\n*** Update File: src/a.py\n@@\n-x = 1\n+x = 2\n*** End Patch\n",
}
UNIVERSE = sorted({t for name in HARNESSES for t in harness(name).TOOLS} | set(OTHER_TOOLS))


def tools_of(matcher: str) -> set[str]:
    """The tool names an alternation ``a|b`` or an anchored ``^(a|b)$`` names."""
    found = re.fullmatch(r"\^\((.*)\)\$", matcher)
    return set((found.group(1) if found else matcher).split("|"))


def event_of(adapter: Harness, payload: dict[str, Any]) -> str:
    named = getattr(adapter, "event_of", None)
    return str(named(payload) if named else payload["hook_event_name"])


def recorded(name: str, root: Path) -> list[dict[str, Any]]:
    """Every payload recorded for harness ``name``, pointed at ``root``."""
    folder = FIXTURES / HARNESSES[name]
    return [payload(name, path.stem, root) for path in sorted(folder.glob("*.json"))]


def tool_matchers(wiring: Wiring) -> dict[str, str]:
    return {event.name: event.matcher for event in wiring.events if event.matcher is not None}


@pytest.mark.parametrize("name", HARNESSES)
def test_the_wired_events_are_the_events_the_adapter_answers(project: Layout, name: str) -> None:
    """`lessons init --NAME` wires each event the adapter answers once, and nothing else;
    the payloads recorded from its client cover each wired event, and only those."""
    adapter = harness(name)
    wired = [event.name for event in adapter.WIRING.events]
    assert len(wired) == len(set(wired))
    assert set(wired) == adapter.EVENTS
    assert adapter.WIRING.harness == name
    payloads = recorded(name, project.root)
    assert payloads
    assert {event_of(adapter, data) for data in payloads} == adapter.EVENTS


@pytest.mark.parametrize("name", HARNESSES)
def test_the_wired_matchers_name_exactly_the_tools_the_adapter_reads(
    project: Layout, name: str
) -> None:
    """For each tool event, a recorded payload with its tool swapped for every known tool
    name: each tool a matcher names becomes an action there, and over all the tool events
    the names that become an action are exactly the names the matchers list."""
    adapter = harness(name)
    matchers = tool_matchers(adapter.WIRING)
    assert matchers
    payloads = recorded(name, project.root)
    read: set[str] = set()
    for event, matcher in matchers.items():
        base = next(data for data in payloads if event_of(adapter, data) == event)
        tool_key = "toolName" if "toolName" in base else "tool_name"
        input_key = "toolArgs" if tool_key == "toolName" else "tool_input"
        handled = {
            tool
            for tool in UNIVERSE
            if adapter.action_of(project, {**base, tool_key: tool, input_key: ARGS}) != ToolAction()
        }
        assert tools_of(matcher) <= handled, event
        assert all(adapter.WIRING.covers(event, tool) for tool in tools_of(matcher))
        read |= handled
    assert set().union(*map(tools_of, matchers.values())) == read == set(adapter.TOOLS)


@pytest.mark.parametrize(
    ("fixture", "tool"),
    [
        ("pre_tool_use_bash", "Bash"),
        ("pre_tool_use_apply_patch", "apply_patch"),
        ("pre_tool_use_shell_heredoc_patch", "Bash"),
    ],
)
def test_codex_adapter_reads_each_wired_tool_and_no_other(
    project: Layout, fixture: str, tool: str
) -> None:
    """A recorded call of a wired tool becomes an action; the model-side names Codex never
    sends to hooks (exec_command, shell, local_shell) become none."""
    data = cast(HookPayload, payload("codex", fixture, project.root))
    assert data["tool_name"] == tool
    assert codex.action_of(project, data) != ToolAction()
    for other in ("exec_command", "shell", "local_shell"):
        assert codex.action_of(project, {**data, "tool_name": other}) == ToolAction()


def test_the_hook_help_names_the_events_each_harness_wires() -> None:
    """``lessons hook --help`` lists, per harness, exactly the events its wiring installs
    (a new event wired and not named there would leave the help, and docs/cli.md, behind)."""
    text = (hook_command.help or "").split("Harnesses:", 1)[1].split("Example:", 1)[0]
    named: dict[str, str] = {}
    current = ""
    for line in text.splitlines():
        words = line.split()
        if words and words[0] in HARNESSES:
            current, words = words[0], words[1:]
        if current:
            named[current] = named.get(current, "") + " " + " ".join(words).split("(.", 1)[0]
    assert set(named) == set(HARNESSES)
    for name, listed_text in named.items():
        # Dotted names are OpenCode's and Kilo's (tool.execute.before).
        listed = set(re.findall(r"[A-Za-z_]+(?:\.[A-Za-z_]+)*", listed_text))
        adapter = harness(name)
        events = {event.name for event in adapter.WIRING.events}
        assert events <= listed, name
        assert listed - events <= set(adapter.TOOLS), name
