"""What a recorded tool call is about, read the way the harness's hook reads a live one."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from lessons_cli.harnesses import claude_code, codex
from lessons_cli.relocation import Relocation
from lessons_core.delivery.tool_action import ToolAction
from lessons_core.eval.transcripts import ToolCall
from lessons_core.harvest.codex_rollouts import is_rollout
from lessons_core.harvest.detect import ActionOf
from lessons_core.store.layout import Layout


def recorded_actions(
    layout: Layout, read: Callable[..., ToolAction] = claude_code.action_of
) -> ActionOf:
    """Claude Code's tool calls as its hook reads them (``read``: Codex's, whose calls
    a rollout names as Codex's hooks do), with paths recorded in another folder moved onto
    this repo (the folder is fixed by the first one the session names)."""
    moved: list[Relocation] = []

    def action_of(call: ToolCall, cwd: str | None) -> ToolAction:
        if not moved:
            moved.append(Relocation.of(layout, cwd))
        relocation = moved[0]
        payload = {
            "tool_name": call.name,
            "tool_input": relocation.tool_input(call.input),
            "cwd": relocation.path(cwd) if cwd else str(layout.root),
        }
        return read(layout, payload)

    return action_of


def per_transcript(layout: Layout) -> Callable[[Path], ActionOf]:
    """A fresh reader for each transcript (each has its own recorded folder), Codex's for
    a Codex session file."""
    return lambda path: recorded_actions(
        layout, codex.action_of if is_rollout(path) else claude_code.action_of
    )
