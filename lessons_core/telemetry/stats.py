"""``lessons stats``: what the telemetry log says about recall's cost and use.

The comparison point is preloading: putting every active rule into the prompt once per
session, in the block recall renders and with the same token estimate. ``ratio`` is the
tokens recall actually served divided by what preloading would have cost over the same
sessions; below 1 recall is the cheaper of the two.
"""

from __future__ import annotations

import datetime as dt
from collections import Counter
from dataclasses import asdict, dataclass
from typing import Any

from lessons_core.recall.render import FRAME_TOKENS, estimate_tokens, neutralise
from lessons_core.store.model import Lesson
from lessons_core.telemetry.effect import Effect, log_events, measure
from lessons_core.telemetry.log import TelemetryLog

TOP = 5


@dataclass(frozen=True)
class LessonCount:
    lesson_id: str
    count: int


@dataclass(frozen=True)
class FailedAfter:
    """``lesson_id`` was shown, then a call on ``key`` failed ``failures`` times."""

    lesson_id: str
    key: str
    failures: int
    sessions: int


@dataclass(frozen=True)
class DayCount:
    day: str
    recalls: int
    delivering: int


@dataclass(frozen=True)
class Stats:
    recalls: int
    silent: int
    sessions: int
    tokens_served: int
    tokens_per_recall: float
    tokens_per_delivery: float
    active_lessons: int
    preload_tokens: int
    ratio: float | None
    most_recalled: tuple[LessonCount, ...]
    least_recalled: tuple[LessonCount, ...]
    never_recalled: tuple[str, ...]
    failed_after: tuple[FailedAfter, ...]
    days: tuple[DayCount, ...]
    skipped_lines: int
    effect: Effect  # what the gates changed, which deliveries held (telemetry.effect)

    @property
    def silent_share(self) -> float:
        return self.silent / self.recalls if self.recalls else 0.0

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data["silent_share"] = round(self.silent_share, 4)
        data["tokens_per_recall"] = round(self.tokens_per_recall, 2)
        data["tokens_per_delivery"] = round(self.tokens_per_delivery, 2)
        data["ratio"] = None if self.ratio is None else round(self.ratio, 4)
        data["effect"] = self.effect.to_dict()
        return data


def preload_cost(lessons: list[Lesson]) -> int:
    """Tokens of one recall block holding every rule, as a preloaded prompt would."""
    lines = (f"- {lesson.id}: {neutralise(lesson.rule)}" for lesson in lessons)
    return FRAME_TOKENS + sum(estimate_tokens(line) for line in lines) if lessons else 0


def compute(log: TelemetryLog, lessons: list[Lesson], top: int = TOP) -> Stats:
    """Summarise ``log`` against the current lessons (``lessons``: every lesson)."""
    active = sorted(lesson.id for lesson in lessons if lesson.is_active)
    recalls = log.recalls
    delivering = [r for r in recalls if r.delivered]
    served = sum(r.tokens for r in recalls)
    sessions = len({r.session for r in recalls})
    delivered = Counter(i for r in recalls for i in r.delivered)
    preload = preload_cost([lesson for lesson in lessons if lesson.is_active])
    ranked = sorted(delivered.items(), key=lambda item: (-item[1], item[0]))
    # The two lists never share an id: with fewer than twice ``top`` lessons delivered
    # (or many tied), the upper half is the most recalled and the rest the least.
    split = min(top, (len(ranked) + 1) // 2)
    least = sorted(ranked[split:], key=lambda item: (item[1], item[0]))
    return Stats(
        recalls=len(recalls),
        silent=len(recalls) - len(delivering),
        sessions=sessions,
        tokens_served=served,
        tokens_per_recall=served / len(recalls) if recalls else 0.0,
        tokens_per_delivery=(
            sum(r.tokens for r in delivering) / len(delivering) if delivering else 0.0
        ),
        active_lessons=len(active),
        preload_tokens=preload,
        ratio=served / (preload * sessions) if preload and sessions else None,
        most_recalled=tuple(LessonCount(i, n) for i, n in ranked[:split]),
        least_recalled=tuple(LessonCount(i, n) for i, n in least[:top]),
        never_recalled=tuple(i for i in active if i not in delivered),
        failed_after=_failed_after(log),
        days=_days(log),
        skipped_lines=log.skipped,
        effect=measure(log_events(log)),
    )


def _failed_after(log: TelemetryLog) -> tuple[FailedAfter, ...]:
    failures: Counter[tuple[str, str]] = Counter()
    sessions: dict[tuple[str, str], set[str]] = {}
    for record in log.failures:
        for lesson_id in record.after:
            failures[(lesson_id, record.key)] += 1
            sessions.setdefault((lesson_id, record.key), set()).add(record.session)
    ordered = sorted(failures.items(), key=lambda item: (-item[1], item[0]))
    return tuple(FailedAfter(i, key, n, len(sessions[(i, key)])) for (i, key), n in ordered)


def _days(log: TelemetryLog) -> tuple[DayCount, ...]:
    """Recalls per local calendar day, oldest first."""
    totals: Counter[str] = Counter()
    delivering: Counter[str] = Counter()
    for record in log.recalls:
        day = dt.datetime.fromtimestamp(record.ts).date().isoformat()
        totals[day] += 1
        delivering[day] += bool(record.delivered)
    return tuple(DayCount(day, totals[day], delivering[day]) for day in sorted(totals))
