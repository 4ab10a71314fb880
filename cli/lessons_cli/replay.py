"""Replaying a Claude Code session through the Claude Code hook, call by call.

Each prompt and tool call of a transcript becomes the payload Claude Code would have sent
and goes through ``harnesses.claude_code.handle``, the function ``lessons hook claude-code``
runs, so session suppression, pure-read silence, gate or context, budgets and compaction
resets are the hook's own. Only the events and tools ``lessons init --claude-code`` wires
reach it (Read or Grep never do). Three things differ from a live hook, each so that the
replay leaves nothing behind:

- the session id is a fresh one, and its state is deleted at the end, so no real
  session's shown rules are touched;
- it opens as ``clear`` would rather than ``startup``: the same reset and note, without
  pruning other sessions' old files;
- telemetry is off.

Paths recorded under the folder the session ran in are moved onto this repo's root when
that folder is not inside it, so a session recorded in another clone replays too.

What a call delivered is read from the session's shown set before and after it, so the
ids are exactly what the hook claimed, not a parse of its text.
"""

from __future__ import annotations

import uuid
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Any, cast

from lessons_cli.harnesses import claude_code, claude_protocol, events
from lessons_cli.harnesses.claude_protocol import HookPayload
from lessons_cli.relocation import Relocation
from lessons_core.delivery.deliver import CONTEXT, GATE
from lessons_core.delivery.tool_action import ToolAction
from lessons_core.eval.replay_report import (
    FAILED,
    OK,
    PROMPT_EVENT,
    REFUSED,
    TOOL_EVENT,
    Replay,
    ReplayedCall,
    is_refusal,
)
from lessons_core.eval.transcripts import Step, ToolCall, Transcript
from lessons_core.recall.render import estimate_tokens
from lessons_core.session import state as sessions
from lessons_core.session.action import logged_identity
from lessons_core.store.config import Config
from lessons_core.store.files import load_graph
from lessons_core.store.layout import Layout

WIRED = claude_code.WIRING
LABEL_CHARS = 60


def replay(layout: Layout, transcript: Transcript, config: Config) -> Replay:
    """What the Claude Code hook would have shown at each call of ``transcript``."""
    # A replay measures delivery: it logs nothing and keeps no evidence for a stop.
    quiet = config._replace(telemetry=False, stop_capture=False)
    player = _Player(layout, quiet, _origin(layout, transcript))
    try:
        player.open()
        for step in transcript.steps:
            player.play(step)
    finally:
        player.discard()
    return Replay(
        calls=tuple(player.calls),
        active_ids=frozenset(lesson.id for lesson in load_graph(layout).active()),
        session_note_tokens=player.note_tokens,
        nudge_tokens=player.nudge_tokens,
        compactions=player.compactions,
        unhooked_calls=player.unhooked,
        skipped_lines=transcript.skipped_lines,
    )


def _origin(layout: Layout, transcript: Transcript) -> Relocation:
    """From the folder the session ran in onto this repo (nothing to move when inside it)."""
    return Relocation.of(layout, next((step.cwd for step in transcript.steps if step.cwd), None))


@dataclass
class _Player:
    layout: Layout
    config: Config
    origin: Relocation
    session: str = field(default_factory=lambda: f"replay-{uuid.uuid4().hex}")
    calls: list[ReplayedCall] = field(default_factory=list)
    note_tokens: int = 0
    nudge_tokens: int = 0
    compactions: int = 0
    unhooked: int = 0
    keys: set[str] = field(default_factory=set)
    # session key -> file or command -> lessons shown for it in the current context window
    shown_for: dict[str, dict[str, set[str]]] = field(default_factory=dict)

    def open(self) -> None:
        self.note_tokens += self._tokens(self._payload("SessionStart", None, source="clear"))

    def play(self, step: Step) -> None:
        if step.kind == "compact":
            self.compactions += 1
            pre_compact = self._payload("PreCompact", step, trigger="auto")
            self._send(pre_compact)
            self.note_tokens += self._tokens(self._payload("SessionStart", step, source="compact"))
            self.shown_for.pop(claude_protocol.session_of(pre_compact), None)
        elif step.kind == "prompt" and step.prompt and WIRED.covers(PROMPT_EVENT):
            payload = self._payload(PROMPT_EVENT, step, prompt=step.prompt)
            self.calls.append(self._call(step, payload, _excerpt(step.prompt)))
        elif step.kind == "tool" and step.call is not None:
            if WIRED.covers(TOOL_EVENT, step.call.name):
                self._tool(step, step.call)
            else:
                self.unhooked += 1

    def discard(self) -> None:
        for key in self.keys:
            sessions.discard(self.layout, key)

    def _tool(self, step: Step, call: ToolCall) -> None:
        payload = self._payload(
            TOOL_EVENT,
            step,
            tool_name=call.name,
            tool_input=self.origin.tool_input(call.input),
            tool_use_id=call.id,
        )
        action = claude_code.action_of(self.layout, payload)
        replayed = replace(
            self._call(step, payload, _label(call.name, action)),
            tool_use_id=call.id,
            outcome=_outcome(call),
            action=logged_identity(action.files, action.command),
            call=action.call_digest,
        )
        about = self.shown_for.setdefault(claude_protocol.session_of(payload), {})
        shown = about.setdefault(action.command or ",".join(action.files), set())
        shown.update(replayed.lessons)
        if replayed.outcome == FAILED:
            replayed = replace(replayed, failed_after=tuple(sorted(shown)))
            if WIRED.covers("PostToolUseFailure", call.name):
                failure = {**payload, "hook_event_name": "PostToolUseFailure"}
                self.nudge_tokens += self._tokens({**failure, "error": call.result})
        self.calls.append(replayed)

    def _call(self, step: Step, payload: HookPayload, label: str) -> ReplayedCall:
        event = str(payload["hook_event_name"])
        notice = claude_code.notice_of(self.layout, payload, self.config)
        text, gated = claude_protocol.answer_text(claude_code.notice_output(event, notice))
        fresh = tuple(sorted(notice.shown)) if text and notice else ()
        mode = (GATE if gated else CONTEXT) if text else None
        return ReplayedCall(
            line=step.line,
            event=event,
            label=label,
            mode=mode,
            lessons=fresh,
            text=text,
        )

    def _payload(self, event: str, step: Step | None, **fields: Any) -> HookPayload:
        cwd = self.origin.path(step.cwd) if step and step.cwd else str(self.layout.root)
        data: dict[str, Any] = {
            "session_id": self.session,
            "transcript_path": "",
            "cwd": cwd,
            "hook_event_name": event,
            **fields,
        }
        if step and step.agent_id:
            data["agent_id"] = step.agent_id
        key = claude_protocol.session_of(data)
        self.keys.add(key)  # every state file the hook may write
        return cast(HookPayload, data)

    def _send(self, payload: Mapping[str, Any]) -> events.Output | None:
        event = str(payload.get("hook_event_name"))
        return events.answer(claude_code.ANSWERS, event, self.layout, payload, self.config)

    def _tokens(self, payload: Mapping[str, Any]) -> int:
        text, _gated = claude_protocol.answer_text(self._send(payload))
        return estimate_tokens(text) if text else 0


def _outcome(call: ToolCall) -> str | None:
    if call.failed is None:
        return None
    if not call.failed:
        return OK
    # A refusal by the hook's own gate (a session recorded with it on) is no failure.
    return REFUSED if is_refusal(call.result) else FAILED


def _label(tool: str, action: ToolAction) -> str:
    subject = action.command or ", ".join(action.files)
    return f"{tool} {_excerpt(subject)}" if subject else tool


def _excerpt(text: str, limit: int = LABEL_CHARS) -> str:
    line = " ".join(text.split())
    return line if len(line) <= limit else line[: limit - 1] + "…"
