"""The effect of what was shown, measured from what happened next in the same session.

Two figures, from a session's calls and failures in order (from the telemetry log, for
``lessons stats`` and ``lessons validate``; from a transcript, for ``lessons replay``):

- **changed by a gate**: for every call a gate refused, the next call on the same action
  (the same file, or the same program and sub-commands) either differs from the refused
  one (*changed*: the agent adjusted it) or is the same call sent again (*unchanged*);
  with no next call on that action it was *not retried*.
- **held**: every delivery of a lesson for an action *held* when that action did not
  fail again later in the session, and *did not hold* when it did.

Both are evidence, not proof: a changed retry may have changed for another reason, and
a session that ends early, or a harness that never reports failures, looks held.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, NamedTuple

if TYPE_CHECKING:
    from lessons_core.telemetry.log import TelemetryLog

CALL = "call"
FAILURE = "failure"


class Event(NamedTuple):
    """One call (``CALL``: what it was, what was shown for it, whether a gate refused
    it) or one failure (``FAILURE``) in a session, in the order they happened."""

    session: str
    kind: str
    action: str  # the action's identity (``ActionId.identity``), "" if none
    call: str = ""  # a digest of the whole call, to tell a changed retry apart
    lessons: tuple[str, ...] = ()
    gate: bool = False


@dataclass
class LessonEffect:
    """How often a lesson was delivered for an action, and how often that held."""

    lesson_id: str
    shown: int = 0
    held: int = 0

    @property
    def not_held(self) -> int:
        return self.shown - self.held

    @property
    def held_rate(self) -> float | None:
        return self.held / self.shown if self.shown else None

    def to_dict(self) -> dict[str, Any]:
        rate = self.held_rate
        return {
            "lesson_id": self.lesson_id,
            "shown": self.shown,
            "held": self.held,
            "not_held": self.not_held,
            "held_rate": None if rate is None else round(rate, 4),
        }


@dataclass
class Effect:
    """What the gates changed and which deliveries held, over every session measured."""

    gates: int = 0
    changed: int = 0
    unchanged: int = 0
    not_retried: int = 0
    lessons: dict[str, LessonEffect] = field(default_factory=dict)

    @property
    def changed_share(self) -> float | None:
        """Changed retries among the retried gates (None when none was retried)."""
        retried = self.changed + self.unchanged
        return self.changed / retried if retried else None

    def held_rates(self) -> list[LessonEffect]:
        """Every lesson delivered for an action, least held first."""
        return sorted(self.lessons.values(), key=lambda e: (e.held_rate or 0.0, -e.shown))

    def to_dict(self) -> dict[str, Any]:
        share = self.changed_share
        return {
            "gates": self.gates,
            "changed": self.changed,
            "unchanged": self.unchanged,
            "not_retried": self.not_retried,
            "changed_share": None if share is None else round(share, 4),
            "lessons": [effect.to_dict() for effect in self.held_rates()],
        }


def measure(events: list[Event]) -> Effect:
    """The effect over ``events``, each session's in the order given."""
    effect = Effect()
    by_session: dict[str, list[Event]] = defaultdict(list)
    for event in events:
        by_session[event.session].append(event)
    for session in by_session.values():
        _measure_session(session, effect)
    return effect


def _measure_session(events: list[Event], effect: Effect) -> None:
    # Where each action fails last: a delivery holds if no failure of its action follows.
    last_failure: dict[str, int] = {}
    for at, event in enumerate(events):
        if event.kind == FAILURE and event.action:
            last_failure[event.action] = at
    for at, event in enumerate(events):
        if event.kind != CALL or not event.action:
            continue
        if event.gate:
            effect.gates += 1
            retry = next(
                (e for e in events[at + 1 :] if e.kind == CALL and e.action == event.action), None
            )
            if retry is None:
                effect.not_retried += 1
            elif retry.call != event.call:
                effect.changed += 1
            else:
                effect.unchanged += 1
        held = last_failure.get(event.action, -1) < at
        for lesson_id in dict.fromkeys(event.lessons):
            counted = effect.lessons.setdefault(lesson_id, LessonEffect(lesson_id))
            counted.shown += 1
            counted.held += held


def log_events(log: TelemetryLog) -> list[Event]:
    """The tool calls and failures of the telemetry log as events, oldest first; records
    written before they named their action are left out."""
    timed: list[tuple[float, Event]] = [
        (r.ts, Event(r.session, CALL, r.action, r.call, r.delivered, r.gate))
        for r in log.recalls
        if r.action
    ]
    timed += [(f.ts, Event(f.session, FAILURE, f.action)) for f in log.failures if f.action]
    timed.sort(key=lambda pair: pair[0])
    return [event for _ts, event in timed]
