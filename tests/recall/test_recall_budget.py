"""Budget: caps per tier, a token cap, the top rule always shown, a notice for the rest."""

from __future__ import annotations

from lessons_core.recall.rank import recall
from lessons_core.recall.render import FRAME_TOKENS, estimate_tokens, hit_line, render_block
from lessons_core.recall.types import Allowance, RecallRequest
from lessons_core.store.config import Config, load_config
from lessons_core.store.layout import Layout
from tests.recall.conftest import WriteLesson

PATH = "src/api/client.ts"


def many(write_lesson: WriteLesson, count: int, rule: str = "Validate response {n}.") -> None:
    """``count`` rules about PATH itself: an exact path is never a broad trigger, however
    many lessons carry it, so these test the caps alone."""
    for n in range(count):
        write_lesson(f"rule-{n:02d}", rule.format(n=n), files=(PATH,))


def test_default_caps_three_trigger_matches(layout: Layout, write_lesson: WriteLesson) -> None:
    """Eight matching rules: three shown, five counted as more."""
    many(write_lesson, 8)
    found = recall(layout, RecallRequest(files=(PATH,)), config=Config())
    assert (len(found.hits), found.more) == (3, 5)
    assert [h.lesson_id for h in found.hits] == [f"rule-{n:02d}" for n in range(3)]


def test_caps_come_from_config_json(layout: Layout, write_lesson: WriteLesson) -> None:
    """``max_trigger_matches`` in .lessons/config.json is honoured."""
    many(write_lesson, 4)
    layout.config_path.write_text('{"max_trigger_matches": 2}\n')
    found = recall(layout, RecallRequest(files=(PATH,)), config=load_config(layout.config_file))
    assert (len(found.hits), found.more) == (2, 2)


def test_limit_caps_the_total(layout: Layout, write_lesson: WriteLesson) -> None:
    """``limit`` cuts below the configured caps."""
    many(write_lesson, 4)
    found = recall(
        layout, RecallRequest(files=(PATH,)), config=Config(), allowance=Allowance(limit=1)
    )
    assert (len(found.hits), found.more) == (1, 3)


def test_token_cap_stops_at_the_first_rule_that_does_not_fit(
    layout: Layout, write_lesson: WriteLesson
) -> None:
    """Rules are taken in rank order while their estimated tokens fit."""
    many(write_lesson, 5, rule="Validate response {n} " + "carefully " * 20 + ".")
    found = recall(layout, RecallRequest(files=(PATH,)), config=Config())
    cost = estimate_tokens(hit_line(found.hits[0]))
    config = Config(max_tokens=FRAME_TOKENS + 2 * cost)
    capped = recall(layout, RecallRequest(files=(PATH,)), config=config)
    assert (len(capped.hits), capped.more) == (2, 3)


def test_top_rule_is_always_shown(layout: Layout, write_lesson: WriteLesson) -> None:
    """A token cap smaller than one rule still lets the best rule through."""
    many(write_lesson, 3)
    config = Config(max_tokens=1, max_trigger_matches=0)
    found = recall(layout, RecallRequest(files=(PATH,)), config=config)
    assert [h.lesson_id for h in found.hits] == ["rule-00"]
    assert found.more == 2


def test_notice_says_how_many_more(layout: Layout, write_lesson: WriteLesson) -> None:
    """The block ends with a one-line notice when rules were cut."""
    many(write_lesson, 7)
    block = render_block(recall(layout, RecallRequest(files=(PATH,)), config=Config()))
    notices = [line for line in block.splitlines() if "more rules match" in line]
    assert notices == ["4 more rules match."]


def test_no_notice_when_nothing_was_cut(layout: Layout, write_lesson: WriteLesson) -> None:
    """All matches shown: no notice."""
    many(write_lesson, 2)
    found = recall(layout, RecallRequest(files=(PATH,)), config=Config())
    assert found.more == 0
    assert "more rules match" not in render_block(found)


def test_excluded_lessons_free_their_place(layout: Layout, write_lesson: WriteLesson) -> None:
    """Excluded lessons are neither shown nor counted; the next ones move up."""
    many(write_lesson, 5)
    found = recall(
        layout,
        RecallRequest(files=(PATH,)),
        config=Config(),
        allowance=Allowance(exclude=frozenset({"rule-00", "rule-01"})),
    )
    assert [h.lesson_id for h in found.hits] == [f"rule-{n:02d}" for n in range(2, 5)]
    assert found.more == 0
