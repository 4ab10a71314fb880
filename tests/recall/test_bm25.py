"""Sparse BM25 equals rank_bm25.BM25Okapi, the reference implementation."""

from __future__ import annotations

from typing import Any

import pytest
from rank_bm25 import BM25Okapi

from lessons_core.index.build import bm25_terms, build_index
from lessons_core.index.entries import TermStats
from lessons_core.matching.bm25 import scores, term_stats
from lessons_core.matching.words import meaningful, tokens
from lessons_core.store.files import load_graph
from lessons_core.store.layout import Layout

PROMPTS = [
    "fix the regex safety check in lessons recall before capture",
    "the git commit hook runs pnpm test coverage and fails on index lock",
    "add a target for the windsurf generator and update the capability ledger",
    "lessons lessons lessons recall",  # repeated terms count each time, as in rank_bm25
    "überweisung формуляр",  # terms in no document score nothing
]


@pytest.mark.parametrize("prompt", PROMPTS)
def test_scores_equal_rank_bm25_on_the_real_corpus(prompt: str, corpus: Any) -> None:
    """Every document's score equals BM25Okapi.get_scores on 576 real rules."""
    lessons = corpus["lessons"].values()
    documents = [meaningful(tokens(f"{x['rule']} {x.get('rationale') or ''}")) for x in lessons]
    query = meaningful(tokens(prompt))
    reference = BM25Okapi(documents).get_scores(query)
    ours = scores(term_stats(documents), query)
    assert len(reference) == len(documents) == 576
    # Same operations in the same order: the floats are identical, not merely close.
    assert [ours.get(doc, 0.0) for doc in range(len(documents))] == [float(x) for x in reference]
    assert any(reference) == bool(ours)


def test_common_terms_get_the_idf_floor() -> None:
    """A term in more than half the documents gets epsilon * average idf, like rank_bm25."""
    corpus = [["alpha", "beta"], ["alpha", "gamma"], ["alpha"], ["delta"]]
    reference = BM25Okapi(corpus)
    stats = TermStats(*term_stats(corpus))
    assert stats.idf == pytest.approx(reference.idf)
    assert stats.idf["alpha"] > 0
    assert stats.avgdl == reference.avgdl


def test_empty_corpus_scores_nothing() -> None:
    """No documents, or only empty ones, give no scores instead of dividing by zero."""
    assert scores(term_stats([]), ["alpha"]) == {}
    assert scores(term_stats([[], []]), ["alpha"]) == {}


def test_recall_index_scores_equal_rank_bm25(corpus_layout: Layout) -> None:
    """The statistics the recall index stores give BM25Okapi's scores for its lessons."""
    lessons = [x for x in load_graph(corpus_layout).lessons.values() if x.is_active]
    index = build_index(lessons)
    documents = [bm25_terms(lesson) for lesson in sorted(lessons, key=lambda x: x.id)]
    query = meaningful(tokens(PROMPTS[1]))
    reference = BM25Okapi(documents).get_scores(query)
    ours = scores(index.bm25, query)
    assert len(documents) >= 300
    assert [ours.get(doc, 0.0) for doc in range(len(documents))] == [float(x) for x in reference]
