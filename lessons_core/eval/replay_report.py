"""What a replay found: for a Claude Code transcript (``lessons replay``), each prompt and
tool call as the hook answered it and the totals over them; for the telemetry log
(``lessons eval --replay``), the cost of its tool calls as logged and as replayed.

Tokens are those of the text the hook hands the model (``render.estimate_tokens``), the
same estimate recall budgets with. Per-call figures cover prompts and tool calls only;
the session note (at startup and after each compaction) and the nudges after failed calls
are counted apart, because they do not depend on which lessons match.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import asdict, dataclass
from typing import Any

from lessons_core.delivery.deliver import GATE, GATE_PREFIX
from lessons_core.recall.render import estimate_tokens
from lessons_core.telemetry.effect import CALL, FAILURE, Effect, Event, measure

PROMPT_EVENT = "UserPromptSubmit"
TOOL_EVENT = "PreToolUse"
OK, FAILED, REFUSED = "ok", "failed", "refused"
# How the hook's refusals begin: today's text, and the longer ones sessions recorded before
# it was shortened still carry.
REFUSAL_PREFIXES = (
    GATE_PREFIX,
    "Not run yet: adjust the call to these lessons if they apply, then make it again.",
    "Not run yet: adjust the call to these project lessons if they apply, then make it again",
    "Not run yet: project lessons apply to this call.",
)


def is_refusal(result: str) -> bool:
    """Whether a failed call's result is a lessons gate's refusal, not a failure."""
    return any(prefix in result for prefix in REFUSAL_PREFIXES)


@dataclass(frozen=True)
class ReplayedCall:
    """One prompt or tool call: how the hook would have answered it.

    ``mode`` is ``gate``, ``context`` or None (silent). ``outcome`` is what the recorded
    call did: ``ok``, ``failed``, ``refused`` (stopped by a lessons gate, in a session
    recorded with the hook on) or None (a prompt, or no result was recorded). When it
    failed, ``failed_after`` names the lessons shown for its file or command earlier in
    the same context window or at this very call.
    """

    line: int  # of the transcript
    event: str  # PROMPT_EVENT or TOOL_EVENT
    label: str
    mode: str | None
    lessons: tuple[str, ...]
    text: str
    tool_use_id: str | None = None
    outcome: str | None = None
    failed_after: tuple[str, ...] = ()
    action: str = ""  # the call's action identity (``feedback.failures``), "" if none
    call: str = ""  # a digest of the whole call (``ToolAction.call_digest``)

    @property
    def tokens(self) -> int:
        return estimate_tokens(self.text) if self.text else 0

    def to_dict(self) -> dict[str, Any]:
        return {
            "line": self.line,
            "event": self.event,
            "label": self.label,
            "tool_use_id": self.tool_use_id,
            "mode": self.mode,
            "lessons": list(self.lessons),
            "tokens": self.tokens,
            "outcome": self.outcome,
            "failed_after": list(self.failed_after),
            "text": self.text,
        }


@dataclass(frozen=True)
class CallCost:
    """What a run of hook calls cost: how many, how many delivered, the tokens they sent."""

    calls: int
    delivering: int
    tokens: int

    @classmethod
    def of(cls, tokens: Iterable[int]) -> CallCost:
        """From each call's tokens (0 for a silent call)."""
        spent = list(tokens)
        return cls(calls=len(spent), delivering=sum(t > 0 for t in spent), tokens=sum(spent))

    @property
    def silent_share(self) -> float:
        return (self.calls - self.delivering) / self.calls if self.calls else 1.0

    @property
    def tokens_per_call(self) -> float:
        return self.tokens / self.calls if self.calls else 0.0

    @property
    def tokens_per_delivering_call(self) -> float:
        return self.tokens / self.delivering if self.delivering else 0.0

    def cost_dict(self) -> dict[str, Any]:
        return {
            "calls": self.calls,
            "delivering": self.delivering,
            "tokens": self.tokens,
            "silent_share": round(self.silent_share, 4),
            "tokens_per_call": round(self.tokens_per_call, 2),
            "tokens_per_delivering_call": round(self.tokens_per_delivering_call, 2),
        }


@dataclass(frozen=True)
class ReplayTotals(CallCost):
    prompts: int
    tool_calls: int
    gates: int
    session_note_tokens: int
    nudge_tokens: int
    compactions: int
    lessons_fired: int
    never_fired: tuple[str, ...]
    failed_after_lesson: tuple[ReplayedCall, ...]

    def to_dict(self) -> dict[str, Any]:
        data = {**asdict(self), **self.cost_dict()}
        data["failed_after_lesson"] = [
            {"line": c.line, "label": c.label, "lessons": list(c.failed_after)}
            for c in self.failed_after_lesson
        ]
        return data


@dataclass(frozen=True)
class Replay:
    calls: tuple[ReplayedCall, ...]
    active_ids: frozenset[str]  # the lessons that could have fired
    session_note_tokens: int = 0
    nudge_tokens: int = 0
    compactions: int = 0
    unhooked_calls: int = 0  # tool calls the hook is not wired for (Read, Grep, ...)
    skipped_lines: int = 0  # transcript lines holding nothing a hook sees

    def totals(self) -> ReplayTotals:
        fired = {lesson for call in self.calls for lesson in call.lessons}
        return ReplayTotals(
            calls=len(self.calls),
            prompts=sum(call.event == PROMPT_EVENT for call in self.calls),
            tool_calls=sum(call.event == TOOL_EVENT for call in self.calls),
            delivering=sum(call.mode is not None for call in self.calls),
            gates=sum(call.mode == GATE for call in self.calls),
            tokens=sum(call.tokens for call in self.calls),
            session_note_tokens=self.session_note_tokens,
            nudge_tokens=self.nudge_tokens,
            compactions=self.compactions,
            lessons_fired=len(fired),
            never_fired=tuple(sorted(self.active_ids - fired)),
            failed_after_lesson=tuple(call for call in self.calls if call.failed_after),
        )

    def effect(self) -> Effect:
        """What came of the refusals the transcript recorded (the agent ran with the hook
        on) and, had today's lessons been shown, whether the failures came after them."""
        events: list[Event] = []
        for call in self.calls:
            if call.event != TOOL_EVENT:
                continue
            gate = call.outcome == REFUSED
            events.append(Event("replay", CALL, call.action, call.call, call.lessons, gate))
            if call.outcome == FAILED:
                events.append(Event("replay", FAILURE, call.action))
        return measure(events)

    def to_dict(self) -> dict[str, Any]:
        return {
            "totals": self.totals().to_dict(),
            "effect": self.effect().to_dict(),
            "unhooked_calls": self.unhooked_calls,
            "skipped_lines": self.skipped_lines,
            "calls": [call.to_dict() for call in self.calls],
        }


@dataclass(frozen=True)
class LogReplay:
    """The tool calls of the telemetry log, as logged and as today's lessons answer them.

    Prompt recalls are counted but not replayed (prompt text is never logged), nor are
    queries the agent made through ``lessons mcp`` (no hook answered them), nor records
    written before the log said what their key holds.
    """

    logged: CallCost
    replayed: CallCost
    sessions: int
    changed: int  # calls whose delivered lessons differ from the logged ones
    prompts: int
    unreplayable: int
    skipped_lines: int
    queries: int = 0

    def to_dict(self) -> dict[str, Any]:
        return {
            "logged": self.logged.cost_dict(),
            "replayed": self.replayed.cost_dict(),
            "sessions": self.sessions,
            "changed": self.changed,
            "prompts": self.prompts,
            "unreplayable": self.unreplayable,
            "queries": self.queries,
            "skipped_lines": self.skipped_lines,
        }
