"""Recall once per session: a lesson shown in a session stays quiet for the rest of it."""

from __future__ import annotations

from lessons_core import sessions
from lessons_core.config import Config
from lessons_core.layout import Layout
from lessons_core.recall import Recall, RecallRequest, recall
from lessons_core.recall_index import RecallIndex


def recall_once(
    layout: Layout,
    request: RecallRequest,
    session_key: str,
    *,
    config: Config | None = None,
    limit: int | None = None,
    index: RecallIndex | None = None,
) -> Recall:
    """Recall without the lessons this session has seen, and record the ones shown now.

    Lessons already shown are excluded before the budget, so the next ones move up.
    ``claim`` runs under the session's lock; a lesson another hook of the same session
    claimed in the meantime is dropped here rather than shown twice.
    """
    seen = sessions.shown(layout, session_key)
    found = recall(layout, request, config=config, exclude=seen, limit=limit, index=index)
    if not found.hits:
        return found
    fresh = set(sessions.claim(layout, session_key, [hit.lesson_id for hit in found.hits]))
    return Recall(hits=tuple(h for h in found.hits if h.lesson_id in fresh), more=found.more)
