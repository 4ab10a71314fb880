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

from collections import Counter
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
    terms = list(query)
    parts = term_parts(stats, terms)
    holding = dict.fromkeys(doc for found in parts.values() for doc in found)
    return prompt_scores(parts, terms, holding)[0]


def term_parts(stats: Stats, query: Iterable[str]) -> dict[str, dict[int, float]]:
    """Each distinct term of ``query``, in its order, with the documents holding it and
    the term's part of their scores: its postings, read once."""
    postings = stats[1]
    return {
        term: dict(zip(*postings.get(term, ((), ())), strict=True)) for term in dict.fromkeys(query)
    }


def sharing(parts: Mapping[str, Mapping[int, float]], least: int) -> list[int]:
    """The documents holding at least ``least`` of the terms of ``parts``."""
    counts: Counter[int] = Counter()
    for found in parts.values():
        counts.update(found.keys())
    return [doc for doc, count in counts.items() if count >= least]


def prompt_scores(
    parts: Mapping[str, Mapping[int, float]], query: Sequence[str], docs: Iterable[int]
) -> tuple[dict[int, float], dict[int, tuple[str, ...]]]:
    """For each of ``docs``: its BM25 score for ``query`` (whose terms ``parts`` holds),
    and the distinct query terms it holds, in query order. Parts are added in the
    query's order, each time a term occurs, as ``BM25Okapi.get_scores`` adds them."""
    scored: dict[int, float] = {}
    shared: dict[int, tuple[str, ...]] = {}
    for doc in docs:
        score = 0.0
        for term in query:
            part = parts[term].get(doc)
            if part is not None:
                score += part
        scored[doc] = score
        shared[doc] = tuple(term for term, found in parts.items() if doc in found)
    return scored, shared
