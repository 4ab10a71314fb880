"""The tools a harness's wiring hands the hook are exactly the tools its adapter reads."""

from __future__ import annotations

import pytest

from lessons_cli.hooks import codex
from lessons_core.delivery import ToolAction
from lessons_core.layout import Layout
from lessons_core.wiring import WIRINGS
from tests.hooks.conftest import payload


def _matched(harness: str, event: str) -> set[str]:
    (matcher,) = [hook.matcher for hook in WIRINGS[harness].events if hook.name == event]
    assert matcher is not None
    return set(matcher.split("|"))


def test_codex_wiring_matches_the_tools_the_adapter_reads() -> None:
    """`lessons init --codex` wires PreToolUse for Bash and apply_patch, nothing else."""
    assert _matched("codex", "PreToolUse") == set(codex.TOOLS)


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
    data = payload("codex", fixture, project.root)
    assert data["tool_name"] == tool
    assert codex.action_of(project, data) != ToolAction()
    for other in ("exec_command", "shell", "local_shell"):
        assert codex.action_of(project, {**data, "tool_name": other}) == ToolAction()
