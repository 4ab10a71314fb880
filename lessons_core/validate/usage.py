"""L3xx: what the telemetry log says about lessons in use (only with telemetry on).

A lesson never delivered is a notice, not a fault: a rule about a rare mistake is rightly
quiet. A lesson shown again and again right before the same failure is not working.
"""

from __future__ import annotations

import bisect
import datetime as dt
from collections import Counter
from collections.abc import Iterator

from lessons_core.matching.thresholds import (
    NEVER_HELD_MIN_SHOWN,
    NEVER_RECALLED_MIN_RECALLS,
    REPEATED_FAILURE_MIN,
)
from lessons_core.telemetry.effect import log_events, measure
from lessons_core.telemetry.log import TelemetryLog
from lessons_core.validate.context import Context
from lessons_core.validate.findings import Finding


def check(ctx: Context) -> Iterator[Finding]:
    if ctx.telemetry is None:
        return
    yield from _never_recalled(ctx, ctx.telemetry)
    yield from _failed_after(ctx, ctx.telemetry)
    yield from _never_held(ctx, ctx.telemetry)


def created_at(created: str) -> float:
    """Local midnight starting the day a lesson was created, as a Unix time.

    An impossible date that still has the YYYY-MM-DD shape counts every recall.
    """
    try:
        day = dt.date.fromisoformat(created)
    except ValueError:
        return 0.0
    return dt.datetime.combine(day, dt.time.min).timestamp()


def _never_recalled(ctx: Context, log: TelemetryLog) -> Iterator[Finding]:
    times = [record.ts for record in log.recalls]
    delivered = {i for record in log.recalls for i in record.delivered}
    matched = Counter(i for record in log.recalls for i in record.candidates)
    for lesson in sorted(ctx.graph.active(), key=lambda x: x.id):
        # An always-on lesson comes at every session start, which recalls do not log;
        # one the budget cuts is L401's.
        if lesson.id in delivered or lesson.always:
            continue
        since = len(times) - bisect.bisect_left(times, created_at(lesson.created))
        if since < NEVER_RECALLED_MIN_RECALLS:
            continue
        if matched[lesson.id]:
            why = (
                f"it matched {matched[lesson.id]} times but others always ranked above it "
                "or filled the budget"
            )
        else:
            why = "its triggers never matched"
        yield Finding(
            "L301",
            ctx.lesson_file(lesson.id),
            f"never delivered in the {since} recalls logged since it was created: {why}",
            "nothing, if the mistake is rare; otherwise check its triggers name the files "
            "and commands where the mistake happens",
            lesson.id,
            '"triggers"',
        )


def _failed_after(ctx: Context, log: TelemetryLog) -> Iterator[Finding]:
    counts = Counter((i, f.key) for f in log.failures for i in f.after)
    # Lessons that already reached the agent as a gate (the call refused until it read
    # them): "gate": true is no fix for those.
    gated = {i for r in log.recalls if r.gate for i in r.delivered}
    for (lesson_id, key), count in sorted(counts.items()):
        lesson = ctx.graph.lessons.get(lesson_id)
        if count < REPEATED_FAILURE_MIN or lesson is None or not lesson.is_active:
            continue
        if lesson.gate or lesson_id in gated:
            fix = (
                "it already comes as a gate, read before the call runs, so the wording is "
                "what fails: reword the rule to say exactly what to do instead, check it is "
                "still true, or narrow its triggers to where it is"
            )
        else:
            fix = (
                "reword the rule to say exactly what to do instead, check it is still true, "
                'or set "gate": true so it is read before the call runs'
            )
        yield Finding(
            "L302",
            ctx.lesson_file(lesson_id),
            f"shown, then '{key}' failed anyway, {count} times: the rule is not working there",
            fix,
            lesson_id,
            '"rule"',
        )


def _never_held(ctx: Context, log: TelemetryLog) -> Iterator[Finding]:
    for effect in sorted(measure(log_events(log)).lessons.values(), key=lambda e: e.lesson_id):
        lesson = ctx.graph.lessons.get(effect.lesson_id)
        if effect.shown < NEVER_HELD_MIN_SHOWN or effect.held or lesson is None:
            continue
        if not lesson.is_active:
            continue
        yield Finding(
            "L303",
            ctx.lesson_file(effect.lesson_id),
            f"shown {effect.shown} times, and each time the call it was shown for failed "
            "again later in the session: it never held",
            "check the rule names the real cause and what to do instead; if the failure "
            "has another cause, narrow its triggers to where it is true",
            effect.lesson_id,
            '"rule"',
        )
