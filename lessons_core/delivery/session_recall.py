"""Recall once per session: a lesson shown in a session stays quiet for the rest of it, and
broad triggers bring only ``max_broad_per_session`` rules to it."""

from __future__ import annotations

from lessons_core.delivery.deliver import allowance, claim_and_render
from lessons_core.index.entries import RecallIndex
from lessons_core.recall.rank import recall
from lessons_core.recall.types import Recall, RecallRequest
from lessons_core.session import state as sessions
from lessons_core.store.config import Config
from lessons_core.store.layout import Layout


def recall_once(
    layout: Layout,
    request: RecallRequest,
    session_key: str,
    *,
    config: Config,
    limit: int | None = None,
    index: RecallIndex | None = None,
) -> Recall:
    """Recall within what the session has left (``deliver.allowance``), then record the
    ones shown now.

    The claim runs under the session's lock; a lesson another hook of the same session
    claimed in the meantime is dropped here rather than shown twice.
    """
    with sessions.open_session(layout, session_key) as session:
        left = allowance(session.state, config, limit)
        found = recall(layout, request, config=config, allowance=left, index=index)
        notice = claim_and_render(session, found, found.hits)
    return found.only(set(notice.shown) if notice else set())
