"""A session's failure history: per action, the error classes seen and how often, the
last outcome, and whether its recurrence was already answered.

Kept in the session file under ``failures`` (``state.SessionState.failures``), keyed by
``ActionId.failure_key``, a digest of the action's identity (``session.action``), so the file
holds no path or command text; the classes are masked already. The pre-tool hook reads
it for a session that holds one, so this module imports nothing: a call checks ``due``
on the history it already loaded and computes its own identity only when something is
due.

An action *recurs* once it failed ``RECURS_AT`` times with one error class, nothing
changed between: an attempt made after another action (an edit, another command) is
marked ``changed`` (``record_success``), and its failure starts the count again, since
"the test fails, the code is edited, the test fails again" is the work, not a repeat. Its
recurrence is answered once per session: by showing the lessons that cover it again (the
recurrence gate, before the next attempt), or by a stronger capture nudge when none does.
"""

from __future__ import annotations

RECURS_AT = 2
# Actions kept per session (the oldest failure goes first) and classes kept per action.
MAX_ACTIONS = 32
MAX_CLASSES = 4
MAX_CLASS_CHARS = 100

FAILED = "failed"
SUCCEEDED = "ok"
# What became of a recurrence: not yet answered; due (covered: the gate shows it before
# the next attempt); gated or nudged (answered, never again this session).
DUE = "due"
GATED = "gated"
NUDGED = "nudged"
_STATES = frozenset({DUE, GATED, NUDGED})

Entry = dict[str, object]
History = dict[str, Entry]


def parse(value: object) -> History:
    """The history as read from a session file; anything malformed is left out."""
    if not isinstance(value, dict):
        return {}
    history: History = {}
    for failure_key, raw in value.items():
        if not (isinstance(failure_key, str) and isinstance(raw, dict)):
            continue
        classes = raw.get("classes")
        counts = (
            {c: n for c, n in classes.items() if isinstance(c, str) and type(n) is int and n > 0}
            if isinstance(classes, dict)
            else {}
        )
        if not counts:
            continue
        entry: Entry = {"classes": counts, "last": _last(raw.get("last")), "seq": _seq(raw)}
        if raw.get("recurrence") in _STATES:
            entry["recurrence"] = raw["recurrence"]
        if raw.get("nudged") is True:
            entry["nudged"] = True
        if raw.get("changed") is True:
            entry["changed"] = True
        history[failure_key] = entry
    return history


def _last(value: object) -> str:
    return SUCCEEDED if value == SUCCEEDED else FAILED


def _seq(raw: dict[str, object]) -> int:
    value = raw.get("seq")
    return value if type(value) is int and value >= 0 else 0


def classes(entry: Entry) -> dict[str, int]:
    counts = entry.get("classes")
    return counts if isinstance(counts, dict) else {}


def record_failure(history: History, failure_key: str, error_class: str) -> tuple[str, int]:
    """Count a failure of the action ``failure_key`` with ``error_class``; returns the class and
    how often the action failed with it in this session."""
    error_class = error_class[:MAX_CLASS_CHARS]
    entry = history.pop(failure_key, None) or {"classes": {}}
    # Made again after something else changed: a new attempt, counted from one.
    counts = {} if entry.pop("changed", None) else dict(classes(entry))
    counts[error_class] = counts.get(error_class, 0) + 1
    if len(counts) > MAX_CLASSES:  # keep the most frequent, this one always
        kept = sorted(counts, key=lambda c: (c != error_class, -counts[c]))[:MAX_CLASSES]
        counts = {c: counts[c] for c in kept}
    entry = {**entry, "classes": counts, "last": FAILED, "seq": _next_seq(history)}
    history[failure_key] = entry
    while len(history) > MAX_ACTIONS:
        oldest = min(history, key=lambda m: _seq(history[m]))
        del history[oldest]
    return error_class, counts[error_class]


def record_success(history: History, failure_key: str, changed: bool = False) -> bool:
    """The action ``failure_key`` ran fine (it is made again: a failure hook counts it over this
    if it fails); ``changed``: another action came between its failure and this attempt.
    False when it never failed (nothing to record)."""
    entry = history.get(failure_key)
    if entry is None or entry.get("last") == SUCCEEDED:
        return False
    entry = {**entry, "last": SUCCEEDED, "seq": _next_seq(history)}
    if changed:
        entry["changed"] = True
    history[failure_key] = entry
    return True


def _next_seq(history: History) -> int:
    return max((_seq(entry) for entry in history.values()), default=0) + 1


def recurring(entry: Entry) -> tuple[str, int] | None:
    """The error class the action failed with at least ``RECURS_AT`` times (the most
    frequent), and how often; None when it has not recurred."""
    counts = classes(entry)
    if not counts:
        return None
    top = max(counts, key=lambda c: counts[c])
    return (top, counts[top]) if counts[top] >= RECURS_AT else None


def answered(entry: Entry) -> bool:
    """Whether the action's recurrence was gated or nudged already this session."""
    return entry.get("recurrence") in (GATED, NUDGED)


def set_recurrence(history: History, failure_key: str, state: str) -> None:
    """Mark the recurrence of ``failure_key`` as ``DUE``, ``GATED`` or ``NUDGED``."""
    entry = history.get(failure_key)
    if entry is not None:
        history[failure_key] = {**entry, "recurrence": state}


def claim_nudge(history: History, failure_key: str) -> bool:
    """Whether the action ``failure_key`` gets its capture nudge now: once per session (no reset
    forgets it), False for an action that never failed."""
    entry = history.get(failure_key)
    if entry is None or entry.get("nudged") is True:
        return False
    history[failure_key] = {**entry, "nudged": True}
    return True


def due(history: History) -> bool:
    """Whether any action's recurrence waits for the gate (cheap: no identity needed)."""
    return any(entry.get("recurrence") == DUE for entry in history.values())


def due_entry(history: History, failure_key: str) -> tuple[str, int] | None:
    """The recurring class and count of ``failure_key`` if its recurrence gate is due."""
    entry = history.get(failure_key)
    if entry is None or entry.get("recurrence") != DUE:
        return None
    return recurring(entry)
