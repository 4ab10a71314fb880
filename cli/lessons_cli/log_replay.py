"""Replaying the telemetry log: every logged tool call through today's lessons.

Each recall record whose key the log marks as files or a command is turned back into
the call it came from and goes through ``delivery.before_action``, the function every
harness adapter's tool hook calls, with the modes that hook's event allows (a Gemini CLI
``BeforeTool`` can only gate, its ``AfterTool`` only add context). Records go in time
order, each logged session in a throwaway session of its own, so a rule shown once stays
quiet for the rest of that session, as it did live. Telemetry is off, since the replay
must not append to the log it reads, and the throwaway sessions are deleted at the end.

What the log cannot give back: prompt text (prompt recalls are counted, not replayed),
compactions (a rule shown before one stays quiet after it here), keys longer than the
log keeps, and secrets it masked.
"""

from __future__ import annotations

import uuid

from lessons_cli.harnesses import cursor, gemini
from lessons_core.delivery import deliver as delivery
from lessons_core.delivery.deliver import BOTH_MODES
from lessons_core.delivery.tool_action import ToolAction
from lessons_core.errors import LessonsError
from lessons_core.eval.replay_report import CallCost, LogReplay
from lessons_core.recall.render import estimate_tokens
from lessons_core.session import state as sessions
from lessons_core.store.config import Config
from lessons_core.store.layout import Layout
from lessons_core.telemetry.log import (
    ABOUT_COMMAND,
    ABOUT_FILES,
    ABOUT_PROMPT,
    MCP_QUERY_EVENT,
    RecallRecord,
    log_path,
    read_log,
)

# Tool events that cannot do both; every other one (Claude Code, Codex) can.
EVENT_MODES = {**gemini.EVENT_MODES, **cursor.EVENT_MODES}


def replay_log(layout: Layout, config: Config) -> LogReplay:
    """The logged tool calls as logged, and as the hook answers them with today's lessons."""
    log = read_log(layout)
    if not log.recalls:
        raise LessonsError(
            f"{log_path(layout)}: no recalls logged yet; the hooks log each call once "
            f'{layout.config_path} says "telemetry": true'
        )
    quiet = config._replace(telemetry=False, stop_capture=False)  # no log, no evidence
    prefix = f"eval-replay-{uuid.uuid4().hex}-"
    replayed: list[RecallRecord] = []
    tokens: list[int] = []
    changed = 0
    try:
        for record in log.recalls:
            action = call_of(record)
            if action is None:
                continue
            key = prefix + record.session
            modes = EVENT_MODES.get(record.event, BOTH_MODES)
            notice = delivery.before_action(layout, key, action, quiet, modes, record.event)
            shown = set(notice.shown) if notice else set()
            replayed.append(record)
            tokens.append(estimate_tokens(notice.text) if notice else 0)
            changed += shown != set(record.delivered)
    finally:
        for session in {record.session for record in log.recalls}:
            sessions.discard(layout, prefix + session)
    return LogReplay(
        logged=CallCost.of(record.tokens for record in replayed),
        replayed=CallCost.of(tokens),
        sessions=len({record.session for record in replayed}),
        changed=changed,
        prompts=sum(r.about == ABOUT_PROMPT and r.event != MCP_QUERY_EVENT for r in log.recalls),
        unreplayable=sum(not record.about for record in log.recalls),
        skipped_lines=log.skipped,
        queries=sum(record.event == MCP_QUERY_EVENT for record in log.recalls),
    )


def call_of(record: RecallRecord) -> ToolAction | None:
    """The call a record was logged for (``ToolAction.key`` read backwards), or None
    (a prompt, or a query the agent made through ``lessons mcp``: no hook answered it)."""
    if record.event == MCP_QUERY_EVENT:
        return None
    if record.about == ABOUT_FILES:
        return ToolAction(files=tuple(record.key.split(" ")))
    if record.about == ABOUT_COMMAND:
        return ToolAction(command=record.key)
    return None
