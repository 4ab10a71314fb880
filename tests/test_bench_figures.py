"""The token figures the docs quote are the benchmark's: the replays are deterministic, so
this runs them and holds README.md, docs/performance.md and docs/recall.md to their output.
"""

from __future__ import annotations

import re
import sys
import tempfile
from pathlib import Path

import pytest

from bench.days import days_graph, replay_days
from bench.graphs import CORPUS, corpus_graph
from bench.history import HISTORY_NAME, history_graph, load_snapshot, replay_history
from bench.public_history import PUBLIC_NAME, load_public, public_graph, replay_public
from bench.replay import replay
from bench.report import CORPUS_DAYS_NAME, DAYS_NAME, replay_summary

ROOT = Path(__file__).resolve().parents[1]
DOCS = [ROOT / "README.md", ROOT / "docs" / "performance.md", ROOT / "docs" / "recall.md"]
PER_ACTION = re.compile(r"(\d+(?:\.\d)?) tokens (?:per|an|a) edit or command")
PER_DELIVERY = re.compile(r"(\d+) (?:tokens )?(?:per|a) delivering call")


@pytest.mark.slow
def test_the_quoted_token_figures_are_the_replays() -> None:
    """The recorded run's replay lines (the corpus, the twenty days with twelve lessons
    and with the corpus's, this repository's history, pydantic-ai's) are what the replays print now,
    and every figure of tokens per edit or command and per delivering call in the docs is
    one of theirs. The session note names the repo's path, so the graphs live where
    ``python -m bench`` puts them: a temp folder of the same name's length."""
    lessons = Path(sys.executable).parent / "lessons"
    with tempfile.TemporaryDirectory(prefix="lessons-bench-") as tmp:
        corpus_root = corpus_graph(Path(tmp) / "corpus", CORPUS, lessons)
        corpus = replay(corpus_root)
        days = replay_days(days_graph(Path(tmp) / "days", CORPUS, lessons))
        corpus_days = replay_days(corpus_root)
        snapshot = load_snapshot()
        history = replay_history(history_graph(Path(tmp) / "history", lessons, snapshot), snapshot)
        public = replay_public(public_graph(Path(tmp) / "public", lessons), load_public())
    replays = (corpus, days, corpus_days, history, public)
    lines = [
        replay_summary(corpus),
        replay_summary(days, DAYS_NAME),
        replay_summary(corpus_days, CORPUS_DAYS_NAME),
        replay_summary(history, HISTORY_NAME),
        replay_summary(public, PUBLIC_NAME),
    ]
    recorded = (ROOT / "docs" / "performance.md").read_text()
    for line in lines:
        assert line in recorded.splitlines(), line
    actions = {f"{r.per_action:.1f}" for r in replays}
    deliveries = {f"{r.per_delivery:.0f}" for r in replays}
    for doc in DOCS:
        text = doc.read_text()
        quoted = PER_ACTION.findall(text)
        assert set(quoted) <= actions, (doc.name, quoted, actions)
        assert set(PER_DELIVERY.findall(text)) <= deliveries, (doc.name, deliveries)
    assert any(PER_ACTION.search(doc.read_text()) for doc in DOCS)
