"""The prefix-filtered near-duplicate join finds exactly the pairs a full comparison finds."""

from __future__ import annotations

import random
from itertools import combinations

from lessons_core.authoring.guards import rule_terms, term_similarity
from lessons_core.matching.thresholds import NEAR_DUPLICATE_SIMILARITY
from lessons_core.store.model import Lesson, Triggers
from lessons_core.validate.duplicates import near_pairs

WORDS = "alembic schema cursor ledger tenant webhook quota bucket shard locale payload".split()


def _lessons(seed: int, count: int) -> list[Lesson]:
    rng = random.Random(seed)
    return [
        Lesson(
            id=f"x-{n}",
            rule=" ".join(rng.sample(WORDS, rng.randint(1, 6))) + " before release.",
            topics=("x",),
            triggers=Triggers(keywords=("alembic",)),
            created="2026-01-01",
        )
        for n in range(count)
    ]


def test_prefix_filtering_misses_no_pair_and_adds_none() -> None:
    """Over 300 random rules from a small vocabulary, both methods agree pair for pair."""
    for seed in range(5):
        lessons = _lessons(seed, 300)
        words = {lesson.id: rule_terms(lesson.rule) for lesson in lessons}
        expected = {
            (a.id, b.id)
            for a, b in combinations(lessons, 2)
            if term_similarity(words[a.id], words[b.id]) >= NEAR_DUPLICATE_SIMILARITY
        }
        found = {(a.id, b.id) for a, b, _ in near_pairs(lessons)}
        assert found == expected
        assert expected  # the vocabulary is small enough that pairs exist
