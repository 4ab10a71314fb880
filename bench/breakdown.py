"""Where a replay's tokens go: by rule, by the kind of trigger that brought it, by the
kind of call, and what the session starts carried.

``python -m bench.breakdown`` runs the twenty days on the corpus's lessons
(``bench.days``) and prints what ``docs/recall.md`` ("Where the twenty days' tokens go")
quotes. Each rule line is
put down to its lesson by its text (a cut rule's ends in its id), and each call to its
kind: an edit, a read, a command by its first two words.
"""

from __future__ import annotations

import sys
import tempfile
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bench.days import day_events
from bench.graphs import CORPUS, Graph, corpus_graph
from bench.replay import RULE_LINE, SHELL_TOOL, Replay, run_sessions
from lessons_core.index.cache import load_index
from lessons_core.recall.render import (
    LOOSE_SHOWN_CHARS,
    MAX_SHOWN_CHARS,
    estimate_tokens,
    first_sentence,
    whole,
)
from lessons_core.store.layout import Layout


@dataclass
class Breakdown:
    by_rule: Counter[str] = field(default_factory=Counter)  # tokens of each lesson's lines
    times: Counter[str] = field(default_factory=Counter)  # how often each lesson was shown
    by_kind: Counter[str] = field(default_factory=Counter)  # rule tokens by trigger kind
    by_call: Counter[str] = field(default_factory=Counter)  # all tokens by call kind
    calls: Counter[str] = field(default_factory=Counter)  # calls by call kind
    starts: int = 0  # tokens of prompts and session starts
    frames: int = 0  # tokens of tool-call answers that are not rule lines


def call_kind(payload: dict[str, Any]) -> str:
    """``Edit``, ``Read``, ``Write``, or a command by its first two words."""
    tool = str(payload.get("tool_name", ""))
    if tool != SHELL_TOOL:
        return tool
    return " ".join(payload["tool_input"]["command"].split()[:2])


def lesson_of(rules: dict[str, str], line: str) -> str:
    """The lesson a rule line shows: the one whose id starts with the id a cut line ends
    in, else the one whose rule its text starts with (the longest, should one rule begin
    another)."""
    text = line[2:]
    if text.endswith("]") and "… " in text:
        short = text.rsplit("[", 1)[1][:-1]
        return min((i for i in rules.values() if i.startswith(short)), default=short)
    found = [rule for rule in rules if text.startswith(rule)]
    return rules[max(found, key=len)] if found else "?"


def breakdown(graph: Graph, events: list[dict[str, Any]]) -> tuple[Breakdown, Replay]:
    """The tokens of ``events`` through the hook, put down to rules and calls, and the
    replay's own count of them."""
    index, _broken = load_index(Layout(graph.root))
    rules: dict[str, str] = {}
    for lesson_id, rule in zip(index.ids, index.rules, strict=True):
        for limit in (MAX_SHOWN_CHARS, LOOSE_SHOWN_CHARS):
            rules[first_sentence(whole(rule), limit).removesuffix("…")] = lesson_id
    found = Breakdown()

    def record(payload: dict[str, Any], text: str) -> None:
        if "tool_name" not in payload:
            found.starts += estimate_tokens(text)
            return
        kind = call_kind(payload)
        found.calls[kind] += 1
        found.by_call[kind] += estimate_tokens(text) if text else 0
        ruled = 0
        for line in text.splitlines():
            if not line.startswith("- "):
                continue
            tokens = estimate_tokens(line)
            ruled += tokens
            lesson = lesson_of(rules, line)
            found.by_rule[lesson] += tokens
            found.times[lesson] += 1
            match = RULE_LINE.match(line)
            found.by_kind[match.group(1).split()[0] if match else "exact"] += tokens
        found.frames += estimate_tokens(text) - ruled if text else 0

    return found, run_sessions(graph, events, record)


def report(found: Breakdown, top: int = 15) -> list[str]:
    rules = sum(found.by_rule.values())
    lines = [
        f"rule lines {rules}, frames and notices {found.frames}, "
        f"prompts and session starts {found.starts}",
        "by trigger: " + ", ".join(f"{kind} {n}" for kind, n in found.by_kind.most_common()),
        "by call: "
        + ", ".join(
            f"{kind} {n} ({found.calls[kind]} calls)" for kind, n in found.by_call.most_common()
        ),
        f"top {top} rules (tokens, times shown):",
    ]
    lines += [
        f"  {n:5d} {found.times[lesson]:3d}x {lesson}"
        for lesson, n in found.by_rule.most_common(top)
    ]
    return lines


def main() -> None:
    lessons = Path(sys.executable).parent / "lessons"
    with tempfile.TemporaryDirectory(prefix="lessons-bench-") as tmp:
        corpus = corpus_graph(Path(tmp) / "corpus", CORPUS, lessons)
        found, _replayed = breakdown(corpus, day_events(corpus.paths))
        print("\n".join(report(found)))


if __name__ == "__main__":
    main()
