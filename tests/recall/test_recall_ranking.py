"""Ranking: specificity dominates, tiers, and deterministic tie-breaks.

Orders are read from ``rank`` (every matching lesson): what recall shows is a prefix of it,
less the broad matches it holds back (``tests/recall/test_broad_triggers.py``).
"""

from __future__ import annotations

from lessons_core.index.cache import load_index
from lessons_core.recall.rank import rank, recall
from lessons_core.recall.types import Hit, RecallRequest
from lessons_core.store.config import Config
from lessons_core.store.layout import Layout
from lessons_core.store.model import Status
from tests.recall.conftest import UNLIMITED, WriteLesson

PATH = "src/api/client.ts"
PROMPT = "retry the flaky payment webhook with exponential backoff jitter"
PERFECT = "Retry the flaky payment webhook with exponential backoff jitter."


def ranked_hits(layout: Layout, request: RecallRequest) -> list[Hit]:
    return [candidate.hit for candidate in rank(load_index(layout)[0], request)]


def ids(layout: Layout, request: RecallRequest) -> list[str]:
    return [hit.lesson_id for hit in ranked_hits(layout, request)]


def test_file_specificity_chain(layout: Layout, write_lesson: WriteLesson) -> None:
    """exact > dir/*/name > dir/*.ext > dir/**/*.ext > dir/** > **/*.ext > **, even when
    the broader rules are newer and their wording matches the prompt perfectly."""
    chain = [
        ("exact", PATH),
        ("star-name", "src/*/client.ts"),
        ("star-ext", "src/api/*.ts"),
        ("deep-ext", "src/**/*.ts"),
        ("subtree", "src/**"),
        ("any-ext", "**/*.ts"),
        ("everything", "**"),
    ]
    for age, (lesson_id, glob) in enumerate(chain):
        rule = "Keep request timeouts explicit." if lesson_id == "exact" else PERFECT
        write_lesson(lesson_id, rule, files=(glob,), created=f"2026-01-{10 + age:02d}")
    hits = ranked_hits(layout, RecallRequest(files=(PATH,), prompt=PROMPT))
    assert [hit.lesson_id for hit in hits] == [lesson_id for lesson_id, _ in chain]
    assert [hit.trigger for hit in hits] == [glob for _, glob in chain]
    assert {hit.via for hit in hits} == {"file"}


def test_deeper_prefix_ranks_first(layout: Layout, write_lesson: WriteLesson) -> None:
    """``src/cli/**`` ranks above ``src/**`` for a file under src/cli."""
    write_lesson("shallow", PERFECT, files=("src/**",), created="2026-05-01")
    write_lesson("deep", "Register every command in the table.", files=("src/cli/**",))
    request = RecallRequest(files=("src/cli/main.py",), prompt=PROMPT)
    assert ids(layout, request) == ["deep", "shallow"]


def test_many_candidates_cannot_outrank_a_more_specific_rule(
    layout: Layout, write_lesson: WriteLesson
) -> None:
    """Forty broad rules in one topic, worded exactly like the prompt, all stay below the
    one exact-path rule; with room for one rule, the exact one is it."""
    write_lesson("api-client-exact", "Keep request timeouts explicit.", files=(PATH,))
    for n in range(40):
        write_lesson(
            f"api-broad-{n:02d}",
            PERFECT,
            files=("src/**", "src/api/**"),
            rationale=PROMPT,
            created="2026-09-09",
        )
    request = RecallRequest(files=(PATH,), prompt=PROMPT)
    ranked = ids(layout, request)
    assert ranked[0] == "api-client-exact"
    assert len(ranked) == 41
    config = Config(max_trigger_matches=1)
    found = recall(layout, request, config=config)
    assert [hit.lesson_id for hit in found.hits] == ["api-client-exact"]
    assert found.more == 40


def test_command_triggers_rank_by_what_they_pin(layout: Layout, write_lesson: WriteLesson) -> None:
    """``git push --force`` > ``git push`` > ``git`` for a force push."""
    write_lesson("git-any", PERFECT, commands=("git",), created="2026-09-01")
    write_lesson("git-push", "Run the tests before pushing.", commands=("git push",))
    write_lesson("git-force", "Never force-push main.", commands=("git push --force",))
    request = RecallRequest(command="git push --force origin main", prompt=PROMPT)
    assert ids(layout, request) == ["git-force", "git-push", "git-any"]


def test_tiers_file_command_keyword_prompt(layout: Layout, write_lesson: WriteLesson) -> None:
    """File trigger > command trigger > keyword > prompt-only match, whatever the wording."""
    write_lesson("by-prompt", PERFECT, created="2026-09-09", keywords=("unrelatedterm",))
    write_lesson("by-keyword", PERFECT, keywords=("webhook",))
    write_lesson("by-command", PERFECT, commands=("pytest",))
    write_lesson("by-file", "Keep request timeouts explicit.", files=("**",))
    request = RecallRequest(files=(PATH,), command="pytest -q", prompt=PROMPT)
    assert [(h.lesson_id, h.via) for h in ranked_hits(layout, request)] == [
        ("by-file", "file"),
        ("by-command", "command"),
        ("by-keyword", "keyword"),
        ("by-prompt", "prompt"),
    ]


def test_a_lesson_appears_once_at_its_best_match(layout: Layout, write_lesson: WriteLesson) -> None:
    """A lesson matching by several triggers is listed once, labelled with the best."""
    write_lesson("multi", PERFECT, files=("src/**", PATH), keywords=("webhook",))
    found = recall(layout, RecallRequest(files=(PATH,), prompt=PROMPT), config=UNLIMITED)
    assert [(h.lesson_id, h.via, h.trigger) for h in found.hits] == [("multi", "file", PATH)]


def test_tie_broken_by_prompt_relevance(layout: Layout, write_lesson: WriteLesson) -> None:
    """Same trigger: the rule whose wording is closer to the prompt ranks first."""
    write_lesson("a-unrelated", "Keep request timeouts explicit.", files=("src/**",))
    write_lesson("b-related", "Add jitter to the webhook retry backoff.", files=("src/**",))
    assert ids(layout, RecallRequest(files=(PATH,), prompt=PROMPT)) == ["b-related", "a-unrelated"]


def test_tie_broken_by_fewer_lessons_sharing_the_trigger(
    layout: Layout, write_lesson: WriteLesson
) -> None:
    """Equally specific triggers: the one fewer lessons share ranks first."""
    write_lesson("a-crowded", "Log every request.", files=("src/api/*.ts",))
    write_lesson("a-crowded-2", "Validate every response.", files=("src/api/*.ts",))
    write_lesson("z-alone", "Keep request timeouts explicit.", files=("src/*/*.ts",))
    assert ids(layout, RecallRequest(files=(PATH,)))[0] == "a-crowded"
    # src/api/*.ts pins more than src/*/*.ts, so specificity still comes first; with equal
    # specificity the shared count decides:
    write_lesson("z-alone-2", "Retry idempotent calls only.", files=("src/ap*/*.ts",))
    write_lesson("y-crowded", "Name handlers after routes.", files=("src/a*/*.ts",))
    write_lesson("y-crowded-2", "Document status codes.", files=("src/a*/*.ts",))
    ranked = ids(layout, RecallRequest(files=(PATH,)))
    assert ranked.index("z-alone-2") < ranked.index("y-crowded")


def test_tie_broken_by_newer_then_id(layout: Layout, write_lesson: WriteLesson) -> None:
    """Same trigger and relevance: newer first; same day: by id."""
    write_lesson("b-old", "Log every request.", files=("src/**",), created="2026-01-01")
    write_lesson("c-new", "Validate every response.", files=("src/**",), created="2026-03-01")
    write_lesson("a-new", "Document status codes.", files=("src/**",), created="2026-03-01")
    assert ids(layout, RecallRequest(files=(PATH,))) == ["a-new", "c-new", "b-old"]


def test_only_active_lessons_are_recalled(layout: Layout, write_lesson: WriteLesson) -> None:
    """Deprecated and superseded lessons never match."""
    write_lesson("old", "Log every request.", files=(PATH,), status=Status.DEPRECATED)
    write_lesson("replaced", "Log more.", files=(PATH,), status=Status.SUPERSEDED)
    write_lesson("current", "Validate every response.", files=("src/**",))
    assert ids(layout, RecallRequest(files=(PATH,))) == ["current"]


def test_broken_lesson_files_are_skipped(layout: Layout, write_lesson: WriteLesson) -> None:
    """A lesson file that fails to parse does not stop the others from being served."""
    write_lesson("good", "Validate every response.", files=("src/**",))
    (layout.lessons_dir / "bad.json").write_text("{not json")
    (layout.lessons_dir / "wrong-schema.json").write_text('{"id": "wrong-schema"}\n')
    assert ids(layout, RecallRequest(files=(PATH,))) == ["good"]


def test_invalid_triggers_are_skipped_not_fatal(layout: Layout, write_lesson: WriteLesson) -> None:
    """A pattern RE2 refuses or a glob that escapes the repo leaves the rest of the lesson
    (and every other lesson) working."""
    write_lesson("mixed", "Validate every response.", files=("../x/**", "src/**"))
    write_lesson("lookahead", "Never amend pushed commits.", commands=("git (?!push)", "git"))
    assert ids(layout, RecallRequest(files=(PATH,), command="git status")) == [
        "mixed",
        "lookahead",
    ]


def test_bm25_orders_equal_triggers_by_rare_shared_words(
    layout: Layout, write_lesson: WriteLesson
) -> None:
    """With as many shared words each, the rule sharing the rarer words ranks first."""
    for n, topic in enumerate(["billing", "search", "uploads", "reports", "exports"]):
        write_lesson(f"filler-{n}", f"Cache {topic} queries per tenant.", keywords=(topic,))
    write_lesson("a-common", "Cache tenant queries.", files=("src/**",))
    write_lesson("b-rare", "Throttle webhook jitter.", files=("src/**",))
    request = RecallRequest(files=(PATH,), prompt="tenant queries webhook jitter")
    assert ids(layout, request)[:2] == ["b-rare", "a-common"]
