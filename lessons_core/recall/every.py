"""Every rule that matches a request, in rank order, with no cap, budget or session: what
``lessons query --all`` prints, and what a hook block's count of rules left out points to
(``lessons_core.delivery.pointer``)."""

from __future__ import annotations

from lessons_core.index.entries import RecallIndex
from lessons_core.recall.rank import rank, with_sources
from lessons_core.recall.types import Recall, RecallRequest
from lessons_core.store.config import Config
from lessons_core.store.layout import Layout


def every_match(
    layout: Layout, request: RecallRequest, config: Config, index: RecallIndex
) -> Recall:
    """All of ``index``'s lessons matching ``request`` and those of the project's packs and
    personal store (``rank.with_sources``), each once, at its best match: broad ones too,
    which a hook holds back while a more specific rule matches."""
    ranked = rank(index, request)
    ranked, bound = with_sources(layout, request, config, ranked, ())
    hits = tuple(candidate.hit for candidate in ranked)
    return Recall(hits=hits, more=0, matched=tuple(hit.lesson_id for hit in hits), binding=bound)
