"""Prompt-only matches: BM25 over rule wording, two meaningful shared terms, at most three."""

from __future__ import annotations

from lessons_core.recall.rank import recall
from lessons_core.recall.types import RecallRequest
from lessons_core.store.config import Config
from lessons_core.store.layout import Layout
from tests.recall.conftest import WriteLesson


def test_prompt_match_is_labelled_with_shared_terms(
    layout: Layout, write_lesson: WriteLesson
) -> None:
    """A rule sharing two meaningful words with the prompt is shown, with those words."""
    write_lesson(
        "db-alembic", "Generate Alembic migrations; never hand-edit them.", keywords=("x1",)
    )
    write_lesson("other", "Pin the Node version in CI.", keywords=("x2",))
    found = recall(
        layout, RecallRequest(prompt="please add an alembic migrations script"), config=Config()
    )
    assert [(h.lesson_id, h.via, h.trigger, h.terms) for h in found.hits] == [
        ("db-alembic", "prompt", "", ("alembic", "migrations"))
    ]


def test_one_shared_term_is_not_enough(layout: Layout, write_lesson: WriteLesson) -> None:
    """Sharing a single meaningful word never makes a prompt match."""
    write_lesson("db-alembic", "Generate Alembic migrations by autogenerate.", keywords=("x1",))
    assert recall(layout, RecallRequest(prompt="what does alembic do"), config=Config()).hits == ()


def test_common_words_never_count(layout: Layout, write_lesson: WriteLesson) -> None:
    """Words like top, left, file, code, fix, make are not shared terms."""
    write_lesson("layout", "Make the top left file code fix first.", keywords=("x1",))
    found = recall(
        layout, RecallRequest(prompt="fix the code, make the top left file"), config=Config()
    )
    assert found.hits == ()


def test_one_prompt_match_by_default(layout: Layout, write_lesson: WriteLesson) -> None:
    """Five qualifying rules: the best by BM25 is shown (the three of a larger cap, best
    first, start with it), four are counted as more."""
    for n in range(5):
        words = " ".join(["alembic", "migration", *(["autogenerate"] * n)])
        write_lesson(f"db-{n}", f"Review the {words} output.", keywords=(f"x{n}",))
    found = recall(layout, RecallRequest(prompt="alembic migration autogenerate"), config=Config())
    assert found.more == 4
    wider = recall(
        layout,
        RecallRequest(prompt="alembic migration autogenerate"),
        config=Config(max_prompt_matches=3),
    )
    assert [h.lesson_id for h in wider.hits][:1] == [h.lesson_id for h in found.hits]
    assert {h.via for h in found.hits} == {"prompt"}


def test_prompt_matches_are_configurable(layout: Layout, write_lesson: WriteLesson) -> None:
    """``max_prompt_matches`` in config.json changes the cap."""
    for n in range(4):
        write_lesson(f"db-{n}", f"Review alembic migration number {n}.", keywords=(f"x{n}",))
    config = Config(max_prompt_matches=3)
    found = recall(layout, RecallRequest(prompt="alembic migration"), config=config)
    assert (len(found.hits), found.more) == (3, 1)


def test_rationale_wording_counts(layout: Layout, write_lesson: WriteLesson) -> None:
    """The rationale is scored with the rule, so a rule can be found by its why."""
    write_lesson(
        "ci-node",
        "Pin the Node version.",
        rationale="Renovate bumped Node and broke the lockfile.",
        keywords=("x1",),
    )
    found = recall(
        layout, RecallRequest(prompt="renovate broke the lockfile again"), config=Config()
    )
    assert [h.terms for h in found.hits] == [("renovate", "broke", "lockfile")]
