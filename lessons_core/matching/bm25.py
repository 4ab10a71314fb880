"""Okapi BM25 over rule wording: statistics from ``rank_bm25.BM25Okapi``, scores sparse.

The statistics (idf per term, document lengths, average length, term frequencies) are
computed by ``rank_bm25.BM25Okapi`` itself when the recall index is (re)built, and stored
in it as plain data. rank_bm25 pulls in numpy (about 70 ms to import), so it is imported
only then: a query against a fresh cached index never loads it.

Scoring a query is done here, sparsely: only the documents that contain a query term are
touched, with the same operations in the same order as ``BM25Okapi.get_scores``, so the
scores are bit for bit equal (``tests/recall/test_bm25.py`` checks it on the real corpus).
"""

from __future__ import annotations

from lessons_core.records import NamedTuple

TYPE_CHECKING = False  # typing costs a hook ~8 ms: lessons_core.records
if TYPE_CHECKING:
    from collections.abc import Iterable, Mapping, Sequence

K1 = 1.5
B = 0.75
EPSILON = 0.25


class TermStats(NamedTuple):
    """Plain data only (marshal-able): idf per term, and postings
    ``term -> ((doc, tf, doc length), ...)``, the length carried along so that scoring a
    term needs nothing but its own postings.

    Mappings and sequences rather than dicts and tuples, so that an index read from disk
    can load only the terms a query asks for.
    """

    idf: Mapping[str, float]
    postings: Mapping[str, tuple[tuple[int, int, int], ...]]
    doc_len: Sequence[int]
    avgdl: float


def term_stats(corpus: Sequence[Sequence[str]]) -> TermStats:
    """Statistics of ``corpus`` (one list of terms per document), from ``BM25Okapi``."""
    lengths = tuple(len(terms) for terms in corpus)
    if not any(lengths):
        # BM25Okapi divides by the number of documents and of distinct terms.
        return TermStats(idf={}, postings={}, doc_len=lengths, avgdl=0.0)
    from rank_bm25 import BM25Okapi

    model = BM25Okapi([list(terms) for terms in corpus], k1=K1, b=B, epsilon=EPSILON)
    postings: dict[str, list[tuple[int, int, int]]] = {}
    for doc, frequencies in enumerate(model.doc_freqs):
        length = int(model.doc_len[doc])
        for term, count in frequencies.items():
            postings.setdefault(term, []).append((doc, count, length))
    return TermStats(
        idf={term: float(value) for term, value in model.idf.items()},
        postings={term: tuple(docs) for term, docs in postings.items()},
        doc_len=tuple(int(length) for length in model.doc_len),
        avgdl=float(model.avgdl),
    )


def scores(stats: TermStats, query: Iterable[str]) -> dict[int, float]:
    """BM25 score of every document sharing a term with ``query``; the rest score 0."""
    result: dict[int, float] = {}
    if stats.avgdl <= 0:
        return result
    avgdl = stats.avgdl
    for term in query:
        idf = stats.idf.get(term, 0.0)
        for doc, freq, length in stats.postings.get(term, ()):
            # Same operations in the same order as BM25Okapi.get_scores, so the floats agree.
            weight = freq * (K1 + 1) / (freq + K1 * (1 - B + B * length / avgdl))
            result[doc] = result.get(doc, 0.0) + idf * weight
    return result
