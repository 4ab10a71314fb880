"""Session suppression: a rule shown once in a session stays quiet for the rest of it."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

from lessons_core.delivery.session_recall import recall_once
from lessons_core.recall.types import RecallRequest
from lessons_core.session import state as sessions
from lessons_core.store.config import Config
from lessons_core.store.layout import SESSIONS, Layout
from tests.recall.conftest import WriteLesson

REQUEST = RecallRequest(files=("src/api/client.ts",))


def test_second_recall_in_a_session_is_silent(layout: Layout, write_lesson: WriteLesson) -> None:
    """The same request twice in one session: rules the first time, nothing the second."""
    write_lesson("api", "Keep request timeouts explicit.", files=("src/**",))
    first = recall_once(layout, REQUEST, "s1", config=Config())
    second = recall_once(layout, REQUEST, "s1", config=Config())
    assert [h.lesson_id for h in first.hits] == ["api"]
    assert second.hits == ()
    assert sessions.load(layout, "s1").shown == {"api"}


def test_other_sessions_are_unaffected(layout: Layout, write_lesson: WriteLesson) -> None:
    """Each session keeps its own seen-set."""
    write_lesson("api", "Keep request timeouts explicit.", files=("src/**",))
    recall_once(layout, REQUEST, "s1", config=Config())
    assert [h.lesson_id for h in recall_once(layout, REQUEST, "s2", config=Config()).hits] == [
        "api"
    ]


def test_suppressed_rules_let_the_next_ones_in(layout: Layout, write_lesson: WriteLesson) -> None:
    """With the budget full, the rules cut the first time are shown the next time."""
    for n in range(5):
        write_lesson(f"rule-{n}", f"Validate response {n}.", files=("src/api/client.ts",))
    first = recall_once(layout, REQUEST, "s1", config=Config())
    second = recall_once(layout, REQUEST, "s1", config=Config())
    assert [h.lesson_id for h in first.hits] == [f"rule-{n}" for n in range(3)]
    assert first.more == 2
    assert [h.lesson_id for h in second.hits] == ["rule-3", "rule-4"]
    assert second.more == 0


def test_reset_makes_rules_eligible_again(layout: Layout, write_lesson: WriteLesson) -> None:
    """After a reset (compaction) the rules are shown again."""
    write_lesson("api", "Keep request timeouts explicit.", files=("src/**",))
    recall_once(layout, REQUEST, "s1", config=Config())
    sessions.reset(layout, "s1")
    assert [h.lesson_id for h in recall_once(layout, REQUEST, "s1", config=Config()).hits] == [
        "api"
    ]


def test_parallel_recalls_show_each_rule_once(layout: Layout, write_lesson: WriteLesson) -> None:
    """Eight concurrent recalls in one session deliver the rule exactly once in total."""
    write_lesson("api", "Keep request timeouts explicit.", files=("src/**",))
    with ThreadPoolExecutor(max_workers=8) as pool:
        results = list(
            pool.map(lambda _: recall_once(layout, REQUEST, "s1", config=Config()), range(8))
        )
    assert sum(len(r.hits) for r in results) == 1


def test_discard_removes_only_that_session(layout: Layout, write_lesson: WriteLesson) -> None:
    """discard deletes one session's file and lock; others stay; a second discard is a no-op."""
    write_lesson("api", "Keep request timeouts explicit.", files=("src/**",))
    recall_once(layout, REQUEST, "s1", config=Config())
    recall_once(layout, REQUEST, "s2", config=Config())
    before = set((layout.local_dir / SESSIONS).iterdir())
    sessions.discard(layout, "s1")
    sessions.discard(layout, "s1")
    after = set((layout.local_dir / SESSIONS).iterdir())
    assert {p.suffix for p in before - after} == {".json", ".lock"}
    assert len(before - after) == 2
    assert sessions.load(layout, "s1").shown == frozenset()
    assert sessions.load(layout, "s2").shown == {"api"}


def test_claims_count_broad_rules_and_tokens(layout: Layout) -> None:
    """A claim adds its tokens and its broad rules to the session; a claim of nothing new
    adds nothing; a reset starts both again from zero."""
    assert sessions.claim(layout, "s1", ["a", "b"], frozenset({"b"}), tokens=40) == ["a", "b"]
    assert sessions.claim(layout, "s1", ["a"], frozenset({"a"}), tokens=40) == []
    state = sessions.load(layout, "s1")
    assert (state.shown, state.broad, state.tokens) == (frozenset({"a", "b"}), 1, 40)
    sessions.reset(layout, "s1")
    state = sessions.load(layout, "s1")
    assert (state.shown, state.broad, state.tokens) == (frozenset(), 0, 0)


def test_parallel_claims_lose_no_tokens(layout: Layout) -> None:
    """Sixteen concurrent claims of distinct rules add up exactly."""
    with ThreadPoolExecutor(max_workers=8) as pool:
        list(pool.map(lambda n: sessions.claim(layout, "s1", [f"r{n}"], tokens=10), range(16)))
    state = sessions.load(layout, "s1")
    assert (state.broad, state.tokens) == (0, 160)


def test_a_spent_session_budget_leaves_the_rules_about_the_very_thing(
    layout: Layout, write_lesson: WriteLesson
) -> None:
    """Once a session has been shown ``max_session_tokens``, folder rules and keywords
    wait; an exact path, a command rule that is not broad and a gated rule still speak."""
    config = Config(max_session_tokens=1)
    write_lesson("first", "Keep request timeouts explicit.", files=("src/api/**",))
    first = recall_once(layout, REQUEST, "s1", config=config)
    assert [h.lesson_id for h in first.hits] == ["first"]
    write_lesson("folder", "Validate every response.", files=("src/db/**",))
    write_lesson("keyword", "Migrate with alembic.", keywords=("models",))
    write_lesson("exact", "Keep models flat.", files=("src/db/models.py",))
    write_lesson("gated", "Never edit generated code.", files=("src/db/*.py",), gate=True)
    write_lesson("push", "Run the tests first.", commands=("git push",))
    request = RecallRequest(files=("src/db/models.py",), command="git push origin main")
    found = recall_once(layout, request, "s1", config=config)
    assert [h.lesson_id for h in found.hits] == ["exact", "gated", "push"]
    assert found.more == 2
    sessions.reset(layout, "s1")  # compaction: a new context window, a new budget
    again = recall_once(layout, request, "s1", config=config)
    assert {h.lesson_id for h in again.hits} == {"exact", "gated", "folder"}
