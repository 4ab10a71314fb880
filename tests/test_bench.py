"""The benchmark runs end to end in its quickest mode, so it cannot rot (nothing is timed)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from bench.replay import Replay
from bench.report import replay_summary

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.slow
def test_quick_benchmark_prints_every_row() -> None:
    """``python -m bench --quick`` on small graphs builds them, checks that delivering rows
    deliver and silent rows stay silent, and prints the table with every row."""
    small = ["--sizes", "300,600", "--validate-lessons", "60", "--replay-calls", "200"]
    small += ["--harvest-mb", "2", "--drift-commits", "1200", "--conflict-lessons", "400"]
    small += ["--history-sessions", "12", "--public-days", "3"]
    done = subprocess.run(
        [sys.executable, "-m", "bench", "--quick", *small],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr
    assert done.stderr == ""
    lines = done.stdout.splitlines()
    assert lines[1].startswith("machine: ")
    assert "regular ms" in lines[2]
    assert "editable ms" in lines[2]
    for graph in ("corpus", "300", "600"):
        for kind in (
            "edit",
            "prompt",
            "silent: nothing applies",
            "silent: all shown",
            "direct command, silent",
            "launcher, no variable, silent",
            "edit after a lesson changed",
        ):
            assert any(line.split()[0] == graph and f" {kind} " in line for line in lines), (
                graph,
                kind,
            )
    for kind in ("edit", "command"):
        assert any(line.split()[0] == "scoped" and f" {kind} " in line for line in lines), kind
    scoped = next(line for line in lines if line.startswith("scopes (corpus + a pack of 500"))
    assert "regular edit " in scoped
    assert any(line.startswith("token replay (corpus): ") for line in lines)
    assert any(line.startswith("token replay (20 days, 12 lessons): ") for line in lines)
    corpus_days = "token replay (20 days, the corpus's lessons): "
    assert any(line.startswith(corpus_days) for line in lines)
    history = next(line for line in lines if line.startswith("token replay (this repository's"))
    assert " refusals a session (12); " in history
    assert " tokens per edit or command (goal <= 25), " in history
    public = next(line for line in lines if line.startswith("token replay (pydantic/"))
    assert " refusals a session (3); " in public
    always = next(line for line in lines if line.startswith("token replay (corpus, "))
    assert "10 oldest lessons always-on" in always
    assert " always-on 0," not in always  # the marked lessons reached both starts
    assert any(line.startswith("lessons mcp (corpus): tools list 5 tools, ") for line in lines)
    drift = next(line for line in lines if line.startswith("drift check (L304), 1200 commits"))
    assert "window 1000, 40 lessons (20 reported)" in drift
    assert "x python -c pass" in drift
    harvest = "harvest: recall 1.000, precision 1.000 on 22 recorded"
    assert any(line.startswith(harvest) for line in lines)
    quality = next(line for line in lines if line.startswith("lessons eval --conflicts "))
    assert "contradictions: precision 1.000" in quality
    assert "near-copies: precision 1.000" in quality
    for graph in ("corpus (523 active lessons)", "synthetic (400 ", "self-contradicting (400 "):
        assert any(line.startswith(graph) and "contradictions (L204)" in line for line in lines)
    assert any(
        line.startswith("launcher (.lessons/run) on the silent call, with a project variable")
        for line in lines
    )
    assert any(line.split()[:4] == ["validate", "60", "lessons", "validate"] for line in lines)


def test_the_token_line_says_where_the_tokens_went() -> None:
    """Per edit or command (reads and retries not counted), per delivering call, the share
    of calls delivering, refusals a session, the preload ratio, rule lines by trigger and
    the frames' share, from one replay's counts."""
    replayed = Replay(
        calls=200,
        delivering=10,
        call_tokens=1500,
        other_tokens=500,
        preload_tokens=10_000,
        kinds={"Bash": 40, "Edit": 40, "Read": 120},
        by_trigger={"command": 600, "file": 500},
        starts=2,
        note_tokens=160,
        always_tokens=200,
        topic_tokens=60,
        actions=80,
        refusals=6,
        sessions=2,
        read_tokens=300,
    )
    assert replay_summary(replayed) == (
        "token replay (corpus): 200 tool calls (40 Bash, 40 Edit, 120 Read), "
        "80 edits and commands, 10 delivering (5% of calls), 3.0 refusals a session (2); "
        "25.0 tokens per edit or command (goal <= 25), 150 per delivering call "
        "(goal <= 150), 10.0 per call; 2000 tokens in all (300 on reads, 500 on prompts "
        "and session starts) vs 10000 to preload every active rule: 0.20x; "
        "rule lines by trigger: command 600, file 500; frames, gate text and notices 400; "
        "2 session starts: note 80, always-on 100, topics line 30 tokens each"
    )
