"""The failure history a session keeps per action: classes, counts, outcome, recurrence."""

from __future__ import annotations

from lessons_core.session import failure_history as history
from lessons_core.session.failure_history import (
    DUE,
    GATED,
    MAX_ACTIONS,
    MAX_CLASSES,
    answered,
    due,
    due_entry,
    parse,
    record_failure,
    record_success,
    recurring,
    set_recurrence,
)


def test_a_second_failure_with_the_same_class_recurs() -> None:
    """Counts are per action and class; the second one of a class is a recurrence."""
    found: history.History = {}
    assert record_failure(found, "a", "exit 1: ModuleNotFoundError") == (
        "exit 1: ModuleNotFoundError",
        1,
    )
    assert recurring(found["a"]) is None
    record_failure(found, "a", "exit 2")
    assert recurring(found["a"]) is None  # two failures, two classes
    record_failure(found, "b", "exit 1: ModuleNotFoundError")
    assert record_failure(found, "a", "exit 1: ModuleNotFoundError")[1] == 2
    assert recurring(found["a"]) == ("exit 1: ModuleNotFoundError", 2)
    assert recurring(found["b"]) is None


def test_the_recurrence_is_due_then_answered_once() -> None:
    """Due until the gate shows it; answered, it is never due again."""
    found: history.History = {}
    record_failure(found, "a", "exit 1")
    record_failure(found, "a", "exit 1")
    assert not due(found)
    set_recurrence(found, "a", DUE)
    assert due(found)
    assert due_entry(found, "a") == ("exit 1", 2)
    assert due_entry(found, "b") is None
    set_recurrence(found, "a", GATED)
    assert not due(found)
    assert answered(found["a"])
    record_failure(found, "a", "exit 1")
    assert answered(found["a"])  # a third failure keeps the answer


def test_the_last_outcome_follows_the_calls() -> None:
    """A success after a failure is recorded once; an action that never failed is not."""
    found: history.History = {}
    assert not record_success(found, "a")
    record_failure(found, "a", "exit 1")
    assert record_success(found, "a")
    assert found["a"]["last"] == history.SUCCEEDED
    assert not record_success(found, "a")
    record_failure(found, "a", "exit 1")
    assert found["a"]["last"] == history.FAILED


def test_the_history_is_bounded() -> None:
    """At most MAX_ACTIONS actions (the oldest go) and MAX_CLASSES classes an action."""
    found: history.History = {}
    for n in range(MAX_ACTIONS + 5):
        record_failure(found, f"m{n}", "exit 1")
    assert len(found) == MAX_ACTIONS
    assert "m0" not in found
    assert f"m{MAX_ACTIONS + 4}" in found
    for n in range(MAX_CLASSES + 3):
        record_failure(found, "m10", f"exit {n}")
    assert len(history.classes(found["m10"])) == MAX_CLASSES
    assert f"exit {MAX_CLASSES + 2}" in history.classes(found["m10"])


def test_parse_keeps_what_it_wrote_and_drops_what_is_malformed() -> None:
    """A round trip through the session file keeps the history; bad values are left out."""
    found: history.History = {}
    record_failure(found, "a", "exit 1")
    set_recurrence(found, "a", DUE)
    assert parse(found) == found
    bad = {"x": {"classes": {"exit 1": "two"}}, "y": [], 3: {}, "z": {"classes": {"e": 1}}}
    assert list(parse(bad)) == ["z"]
    assert parse(None) == {}
    assert parse([1]) == {}
    assert parse({"z": {"classes": {"e": 1}, "recurrence": "bogus"}})["z"].get("recurrence") is None
