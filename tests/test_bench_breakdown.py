"""The token breakdown accounts for every token the replay counts, and puts each rule
line down to a lesson of the store."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from bench.breakdown import breakdown
from bench.days import day_events
from bench.graphs import CORPUS, corpus_graph


@pytest.mark.slow
def test_the_breakdown_adds_up_to_the_replay(tmp_path: Path) -> None:
    lessons = Path(sys.executable).parent / "lessons"
    graph = corpus_graph(tmp_path / "corpus", CORPUS, lessons)
    found, replayed = breakdown(graph, day_events(graph.paths, days=3))
    rules = sum(found.by_rule.values())
    assert rules + found.frames == replayed.call_tokens
    assert found.starts == replayed.other_tokens
    assert sum(found.by_kind.values()) == rules
    assert sum(found.by_call.values()) == replayed.call_tokens
    assert sum(found.calls.values()) == replayed.calls
    assert "?" not in found.by_rule  # every line is some lesson's
    assert found.times["git-commit-hygiene-when-writing-a-git-commit"] == 3  # once a day
