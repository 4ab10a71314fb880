"""Okapi BM25 over rule wording: statistics from ``rank_bm25.BM25Okapi``, scores sparse.

The statistics (idf per term, document lengths, average length, term frequencies) are
computed by ``rank_bm25.BM25Okapi`` itself when the recall index is (re)built, and stored
in it as plain data. rank_bm25 pulls in numpy, so it is imported
only then: a query against a fresh cached index never loads it.

A term's part of a document's score depends on nothing a query brings, so the build
works it out for every document holding the term and the postings keep it: a query adds
up its terms' parts, touching only the documents that hold one. The parts are computed
with the same operations in the same order as ``BM25Okapi.get_scores``, and summed in the
query's order as it sums them, so the scores are bit for bit equal
(``tests/recall/test_bm25.py`` checks it on the real corpus).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, TypeAlias

if TYPE_CHECKING:
    from collections.abc import Iterable, Mapping, Sequence

    # Plain data only (marshal-able): idf per term, postings
    # ``term -> ((doc, ...), (its part of that doc's score, ...))``, document lengths,
    # average length; the index keeps them as ``lessons_core.index.entries.TermStats``,
    # the same four fields.
    Postings: TypeAlias = tuple[tuple[int, ...], tuple[float, ...]]
    Stats: TypeAlias = tuple[Mapping[str, float], Mapping[str, Postings], Sequence[int], float]

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
    idf = {term: float(value) for term, value in model.idf.items()}
    avgdl = float(model.avgdl)
    postings: dict[str, tuple[list[int], list[float]]] = {}
    for doc, frequencies in enumerate(model.doc_freqs):
        length = int(model.doc_len[doc])
        for term, freq in frequencies.items():
            docs, parts = postings.setdefault(term, ([], []))
            docs.append(doc)
            # Same operations in the same order as BM25Okapi.get_scores, so the floats agree.
            parts.append(idf[term] * (freq * (K1 + 1) / (freq + K1 * (1 - B + B * length / avgdl))))
    return (
        idf,
        {term: (tuple(docs), tuple(parts)) for term, (docs, parts) in postings.items()},
        tuple(int(length) for length in model.doc_len),
        avgdl,
    )


def scores(stats: Stats, query: Iterable[str]) -> dict[int, float]:
    """BM25 score of every document sharing a term with ``query``; the rest score 0."""
    return matches(stats, query)[0]


def matches(
    stats: Stats, query: Iterable[str]
) -> tuple[dict[int, float], dict[int, tuple[str, ...]]]:
    """``scores``, and per document the distinct ``query`` terms it holds, in query order:
    each term's postings are read once for both."""
    result: dict[int, float] = {}
    shared: dict[int, list[str]] = {}
    postings = stats[1]
    read: dict[str, Postings] = {}
    for term in query:
        found = read.get(term)
        if found is None:
            found = read[term] = postings.get(term, ((), ()))
            for doc in found[0]:
                shared.setdefault(doc, []).append(term)
        for doc, part in zip(*found, strict=True):
            result[doc] = result.get(doc, 0.0) + part
    return result, {doc: tuple(terms) for doc, terms in shared.items()}
