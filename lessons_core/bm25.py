"""Okapi BM25 over rule wording, computed sparsely from precomputed term statistics.

The scores are exactly those of ``rank_bm25.BM25Okapi`` (same ``k1``, ``b``, ``epsilon``,
same idf floor for terms in more than half the documents, query terms counted with their
repeats), which ``tests/test_bm25.py`` checks on the real lesson corpus. rank_bm25 itself
is not imported here: it pulls in numpy (about 150 ms), and the statistics are rebuilt on
the hook path whenever a lesson file changes. Scoring touches only the documents that
contain a query term instead of every document.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

K1 = 1.5
B = 0.75
EPSILON = 0.25


@dataclass(frozen=True)
class TermStats:
    """Plain data only (marshal-able): idf per term, postings ``term -> ((doc, tf), ...)``."""

    idf: dict[str, float]
    postings: dict[str, tuple[tuple[int, int], ...]]
    doc_len: tuple[int, ...]
    avgdl: float


def term_stats(corpus: Sequence[Sequence[str]]) -> TermStats:
    """Statistics of ``corpus`` (one list of terms per document), as BM25Okapi computes them."""
    postings: dict[str, list[tuple[int, int]]] = {}
    for doc, terms in enumerate(corpus):
        for term, count in Counter(terms).items():
            postings.setdefault(term, []).append((doc, count))
    size = len(corpus)
    total = sum(len(terms) for terms in corpus)
    idf: dict[str, float] = {}
    negative: list[str] = []
    idf_sum = 0.0  # a plain running sum: sum() rounds differently since Python 3.12
    for term, docs in postings.items():
        freq = len(docs)
        value = math.log(size - freq + 0.5) - math.log(freq + 0.5)
        idf[term] = value
        idf_sum += value
        if value < 0:
            negative.append(term)
    if idf:
        # Terms in more than half the documents get a small positive floor, as in rank_bm25.
        floor = EPSILON * (idf_sum / len(idf))
        for term in negative:
            idf[term] = floor
    return TermStats(
        idf=idf,
        postings={term: tuple(docs) for term, docs in postings.items()},
        doc_len=tuple(len(terms) for terms in corpus),
        avgdl=total / size if size else 0.0,
    )


def scores(stats: TermStats, query: Iterable[str]) -> dict[int, float]:
    """BM25 score of every document sharing a term with ``query``; the rest score 0."""
    result: dict[int, float] = {}
    if stats.avgdl <= 0:
        return result
    for term in query:
        idf = stats.idf.get(term, 0.0)
        for doc, freq in stats.postings.get(term, ()):
            # Same operations in the same order as BM25Okapi.get_scores, so the floats agree.
            weight = freq * (K1 + 1) / (freq + K1 * (1 - B + B * stats.doc_len[doc] / stats.avgdl))
            result[doc] = result.get(doc, 0.0) + idf * weight
    return result
