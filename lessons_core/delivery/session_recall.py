"""Recall once per session: a lesson shown in a session stays quiet for the rest of it, and
broad triggers bring only ``max_broad_per_session`` rules to it."""

from __future__ import annotations

from lessons_core.delivery.deliver import claim_and_render, recall_unseen
from lessons_core.index.build import RecallIndex
from lessons_core.recall.types import Recall, RecallRequest
from lessons_core.store.config import Config, load_config
from lessons_core.store.layout import Layout


def recall_once(
    layout: Layout,
    request: RecallRequest,
    session_key: str,
    *,
    config: Config | None = None,
    limit: int | None = None,
    index: RecallIndex | None = None,
) -> Recall:
    """``recall_unseen``, then record the ones shown now.

    The claim runs under the session's lock; a lesson another hook of the same session
    claimed in the meantime is dropped here rather than shown twice.
    """
    config = config or load_config(layout.under("config.json"))
    found = recall_unseen(layout, request, session_key, config=config, limit=limit, index=index)
    _block, shown = claim_and_render(layout, session_key, found, found.hits)
    return Recall(hits=tuple(h for h in found.hits if h.lesson_id in shown), more=found.more)
