"""L3xx: what the telemetry log says about lessons in use (only with telemetry on).

A lesson never delivered is a notice, not a fault: a rule about a rare mistake is rightly
quiet. A lesson shown again and again right before the same failure is not working.
"""

from __future__ import annotations

import bisect
import datetime as dt
from collections import Counter
from collections.abc import Callable, Iterator

from lessons_core.matching.commands import CommandPatternError, compile_command
from lessons_core.matching.globs import GlobError, compile_glob
from lessons_core.matching.thresholds import (
    NEVER_HELD_MIN_SHOWN,
    NEVER_RECALLED_MIN_RECALLS,
    REPEATED_FAILURE_MIN,
)
from lessons_core.store.model import Lesson
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
    yield from _would_hold(ctx, ctx.telemetry)


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


def _would_hold(ctx: Context, log: TelemetryLog) -> Iterator[Finding]:
    """L350: a lesson shown, then failed anyway, in several sessions: the rule is known
    and still broken, which is what a person can make a hard rule of. A command lesson
    can be enforced (every matching command refused with the rule); a file lesson can
    carry a ``forbid`` pattern (the hook and ``lessons check`` refuse a change adding it).
    Only suggested: neither key is ever set by lessons itself."""
    sessions: dict[str, set[str]] = {}
    keys: dict[str, list[str]] = {}
    for failure in log.failures:
        for lesson_id in failure.after:
            sessions.setdefault(lesson_id, set()).add(failure.session)
            keys.setdefault(lesson_id, []).append(failure.key)
    for lesson_id, seen in sorted(sessions.items()):
        lesson = ctx.graph.lessons.get(lesson_id)
        if len(seen) < REPEATED_FAILURE_MIN or lesson is None or not lesson.is_active:
            continue
        suggestion = _hard_rule(lesson, keys[lesson_id])
        if suggestion is None:
            continue
        [(example, _)] = Counter(keys[lesson_id]).most_common(1)  # ties: the first logged
        yield Finding(
            "L350",
            ctx.lesson_file(lesson_id),
            f"shown, then failed anyway in {len(seen)} sessions (e.g. on '{example}'): "
            f"the rule is known and still broken; {suggestion[0]}",
            suggestion[1],
            lesson_id,
            '"rule"',
        )


_ENFORCE = (
    'setting "enforce": true would refuse every matching command with the rule',
    'if the command is never right there, set "enforce": true in the lesson file (only '
    "a person sets it); first make its command trigger name exactly that command",
)
_FORBID = (
    'a "forbid" pattern would refuse the change that adds it',
    'if the mistake is text you can name, add "forbid": an RE2 pattern of it to the '
    "lesson file (only a person sets it): the hook refuses a change adding it and "
    "'lessons check' holds every commit to it",
)


def _hard_rule(lesson: Lesson, failed_on: list[str]) -> tuple[str, str] | None:
    """What would make ``lesson`` hold where it failed: ``_ENFORCE`` when it failed on
    commands its command triggers match, ``_FORBID`` on files its file triggers cover;
    None when it already carries that key or neither applies."""
    keys = sorted(set(failed_on))
    triggers = lesson.triggers
    on_command = _fires(triggers.commands, lambda p: any(map(compile_command(p).matches, keys)))
    on_file = _fires(triggers.files, lambda glob: any(map(compile_glob(glob).matches, keys)))
    if on_command and not lesson.enforce:
        return _ENFORCE
    if on_file and lesson.forbid is None:
        return _FORBID
    return None


def _fires(triggers: tuple[str, ...], fires: Callable[[str], bool]) -> bool:
    """Whether one of ``triggers`` fires (``fires``); one that does not compile never does
    (L009, L010)."""
    for trigger in triggers:
        try:
            if fires(trigger):
                return True
        except (CommandPatternError, GlobError):
            continue
    return False
