"""Okapi BM25 over rule wording: statistics from ``rank_bm25.BM25Okapi``, scores sparse.

The statistics (idf per term, document lengths, average length, term frequencies) are
computed by ``rank_bm25.BM25Okapi`` itself when the recall index is (re)built, and stored
in it as plain data. rank_bm25 pulls in numpy, so it is imported
only then: a query against a fresh cached index never loads it.

Scoring a query is done here, sparsely: only the documents that contain a query term are
touched, with the same operations in the same order as ``BM25Okapi.get_scores``, so the
scores are bit for bit equal (``tests/recall/test_bm25.py`` checks it on the real corpus).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, TypeAlias

if TYPE_CHECKING:
    from collections.abc import Iterable, Mapping, Sequence

    # Plain data only (marshal-able): idf per term, postings
    # ``term -> ((doc, tf, doc length), ...)``, document lengths, average length; the
    # index keeps them as ``lessons_core.index.entries.TermStats``, the same four fields.
    Stats: TypeAlias = tuple[
        Mapping[str, float], Mapping[str, tuple[tuple[int, int, int], ...]], Sequence[int], float
    ]

K1 = 1.5
B = 0.75
EPSILON = 0.25


def term_stats(corpus: Sequence[Sequence[str]]) -> Stats:
    """Statistics of ``corpus`` (one list of terms per document), from ``BM25Okapi``."""
    lengths = tuple(len(terms) for terms in corpus)
    if not any(lengths):
        # BM25Okapi divides by the number of documents and of distinct terms.
        return {}, {}, lengths, 0.0
    from rank_bm25 import BM25Okapi  # noqa: PLC0415 (heavy: rank-bm25 and numpy)

    model = BM25Okapi([list(terms) for terms in corpus], k1=K1, b=B, epsilon=EPSILON)
    postings: dict[str, list[tuple[int, int, int]]] = {}
    for doc, frequencies in enumerate(model.doc_freqs):
        length = int(model.doc_len[doc])
        for term, count in frequencies.items():
            postings.setdefault(term, []).append((doc, count, length))
    return (
        {term: float(value) for term, value in model.idf.items()},
        {term: tuple(docs) for term, docs in postings.items()},
        tuple(int(length) for length in model.doc_len),
        float(model.avgdl),
    )


def scores(stats: Stats, query: Iterable[str]) -> dict[int, float]:
    """BM25 score of every document sharing a term with ``query``; the rest score 0."""
    result: dict[int, float] = {}
    idfs, postings, _lengths, avgdl = stats
    if avgdl <= 0:
        return result
    for term in query:
        idf = idfs.get(term, 0.0)
        for doc, freq, length in postings.get(term, ()):
            # Same operations in the same order as BM25Okapi.get_scores, so the floats agree.
            weight = freq * (K1 + 1) / (freq + K1 * (1 - B + B * length / avgdl))
            result[doc] = result.get(doc, 0.0) + idf * weight
    return result
