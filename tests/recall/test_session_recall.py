"""Session suppression: a rule shown once in a session stays quiet for the rest of it."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

from lessons_core import sessions
from lessons_core.layout import Layout
from lessons_core.recall import RecallRequest
from lessons_core.session_recall import recall_once
from tests.recall.conftest import WriteLesson

REQUEST = RecallRequest(files=("src/api/client.ts",))


def test_second_recall_in_a_session_is_silent(layout: Layout, write_lesson: WriteLesson) -> None:
    """The same request twice in one session: rules the first time, nothing the second."""
    write_lesson("api", "Keep request timeouts explicit.", files=("src/**",))
    first = recall_once(layout, REQUEST, "s1")
    second = recall_once(layout, REQUEST, "s1")
    assert [h.lesson_id for h in first.hits] == ["api"]
    assert second.hits == ()
    assert sessions.shown(layout, "s1") == {"api"}


def test_other_sessions_are_unaffected(layout: Layout, write_lesson: WriteLesson) -> None:
    """Each session keeps its own seen-set."""
    write_lesson("api", "Keep request timeouts explicit.", files=("src/**",))
    recall_once(layout, REQUEST, "s1")
    assert [h.lesson_id for h in recall_once(layout, REQUEST, "s2").hits] == ["api"]


def test_suppressed_rules_let_the_next_ones_in(layout: Layout, write_lesson: WriteLesson) -> None:
    """With the budget full, the rules cut the first time are shown the next time."""
    for n in range(7):
        write_lesson(f"rule-{n}", f"Validate response {n}.", files=("src/**",))
    first = recall_once(layout, REQUEST, "s1")
    second = recall_once(layout, REQUEST, "s1")
    assert [h.lesson_id for h in first.hits] == [f"rule-{n}" for n in range(5)]
    assert first.more == 2
    assert [h.lesson_id for h in second.hits] == ["rule-5", "rule-6"]
    assert second.more == 0


def test_reset_makes_rules_eligible_again(layout: Layout, write_lesson: WriteLesson) -> None:
    """After a reset (compaction) the rules are shown again."""
    write_lesson("api", "Keep request timeouts explicit.", files=("src/**",))
    recall_once(layout, REQUEST, "s1")
    sessions.reset(layout, "s1")
    assert [h.lesson_id for h in recall_once(layout, REQUEST, "s1").hits] == ["api"]


def test_parallel_recalls_show_each_rule_once(layout: Layout, write_lesson: WriteLesson) -> None:
    """Eight concurrent recalls in one session deliver the rule exactly once in total."""
    write_lesson("api", "Keep request timeouts explicit.", files=("src/**",))
    with ThreadPoolExecutor(max_workers=8) as pool:
        results = list(pool.map(lambda _: recall_once(layout, REQUEST, "s1"), range(8)))
    assert sum(len(r.hits) for r in results) == 1


def test_discard_removes_only_that_session(layout: Layout, write_lesson: WriteLesson) -> None:
    """discard deletes one session's file and lock; others stay; a second discard is a no-op."""
    write_lesson("api", "Keep request timeouts explicit.", files=("src/**",))
    recall_once(layout, REQUEST, "s1")
    recall_once(layout, REQUEST, "s2")
    before = set(sessions.sessions_dir(layout).iterdir())
    sessions.discard(layout, "s1")
    sessions.discard(layout, "s1")
    after = set(sessions.sessions_dir(layout).iterdir())
    assert {p.suffix for p in before - after} == {".json", ".lock"}
    assert len(before - after) == 2
    assert sessions.shown(layout, "s1") == frozenset()
    assert sessions.shown(layout, "s2") == {"api"}
