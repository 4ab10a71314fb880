"""``python -m bench``: how much a hook costs, proven end to end. See docs/performance.md.

Builds the graphs in a temp folder (the real corpus imported with ``lessons import
agentsmesh``, synthetic 10k and 50k), then measures whole ``lessons hook claude-code``
processes against ``python -c pass`` of the same install, interleaved, for both install
kinds (``bench.installs``); a rebuild after one lesson changed; the token replay (also
with the corpus's ten oldest active lessons always-on and the topics line on, days of
work on the corpus repository with a dozen lessons of its own and with the corpus's, and
this repository's own
commit history, a session for each line of work, with its lessons as they stood);
the edit and the command on the corpus with a pack and a personal store of 500 lessons
each (``bench.scopes_run``); ``lessons validate`` over a 1,000-lesson graph; its drift
check (L304) on a git history of 10,000 commits; what ``lessons mcp`` costs (tokens of its
tools list, start and query time); and what harvest finds in the recorded transcripts and
how its time grows with a transcript's size; the precision and recall of contradiction
(L204) and near-copy (L202) detection on the labelled pairs, and what those checks cost
on the corpus, a synthetic 10,000-lesson graph and one made to contradict itself. Prints
one table and its summary lines.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench.conflicts_run import conflicts_summary
from bench.days import days_graph, replay_days
from bench.drift_run import drift_cost
from bench.graphs import (
    ALWAYS_ON,
    CORPUS,
    Graph,
    always_on_variant,
    corpus_graph,
    synthetic_graph,
)
from bench.harvest_run import harvest_run
from bench.history import HISTORY_NAME, history_graph, load_snapshot, replay_history
from bench.hook_runs import DELIVERING, SHOWN_SESSION, Row, baseline, check_output, rows
from bench.installs import REPO, Install, editable, regular
from bench.mcp_tools import mcp_cost, mcp_summary
from bench.public_history import PUBLIC_NAME, load_public, public_graph, replay_public
from bench.replay import replay
from bench.report import (
    CORPUS_DAYS_NAME,
    DAYS_NAME,
    Line,
    always_summary,
    print_table,
    replay_summary,
)
from bench.scopes_run import scoped_graph, scoped_lines, scoped_summary
from bench.timing import Measure, measure_interleaved, run_once
from bench.validate_run import validate_line
from lessons_core.delivery.deliver import session_key
from lessons_core.index.cache import load_index
from lessons_core.recall.rank import rank
from lessons_core.recall.types import RecallRequest
from lessons_core.session import state as sessions
from lessons_core.store.layout import Layout


def _arguments(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m bench", description=__doc__)
    parser.add_argument("--quick", action="store_true", help="3 runs a row instead of --runs")
    parser.add_argument("--runs", type=int, default=21, help="runs a row (default 21)")
    parser.add_argument(
        "--sizes", default="10000,50000", help="synthetic graph sizes (default 10000,50000)"
    )
    parser.add_argument("--corpus", type=Path, default=CORPUS, help="agentsmesh corpus")
    parser.add_argument("--validate-lessons", type=int, default=1000, metavar="N")
    parser.add_argument("--drift-commits", type=int, default=10_000, metavar="N")
    parser.add_argument("--conflict-lessons", type=int, default=10_000, metavar="N")
    parser.add_argument("--replay-calls", type=int, default=360, metavar="N")
    parser.add_argument(
        "--history-sessions",
        type=int,
        metavar="N",
        help="replay only the first N sessions of the history (default all)",
    )
    parser.add_argument(
        "--public-days",
        type=int,
        metavar="N",
        help="replay only the first N days of pydantic-ai's history (default all)",
    )
    parser.add_argument(
        "--harvest-mb", type=float, default=50.0, help="generated transcript size (default 50)"
    )
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> None:
    args = _arguments(argv)
    runs = 3 if args.quick else args.runs
    # Every figure is the project's lessons alone (a user's own personal lessons would
    # change them), but for the rows that set up a personal store of their own.
    os.environ["LESSONS_PERSONAL"] = "0"
    # Bytecode first, as pip compiles it at install time: with PYTHONDONTWRITEBYTECODE set
    # every hook would otherwise compile its twenty-odd modules from source (~15 ms).
    packages = [str(REPO / "lessons_core"), str(REPO / "cli")]
    subprocess.run([sys.executable, "-m", "compileall", "-q", *packages], check=True)
    with tempfile.TemporaryDirectory(prefix="lessons-bench-") as tmp:
        folder = Path(tmp)
        dev = editable()
        installs = [regular(folder / "venv"), dev]
        started = time.perf_counter()
        graphs = [corpus_graph(folder / "corpus", args.corpus, Path(dev.lessons))]
        graphs += [
            synthetic_graph(folder / f"synthetic-{size}", int(size))
            for size in args.sizes.split(",")
        ]
        print(f"graphs built in {time.perf_counter() - started:.0f} s; measuring {runs} runs a row")
        lines: list[Line] = []
        for install in installs:
            lines += hook_lines(install, graphs, runs)
        lines += [rebuild_line(dev, graph, max(3, runs // 5)) for graph in graphs]
        scoped, data_home = scoped_graph(graphs[0], folder / "corpus-scoped")
        for install in installs:
            lines += scoped_lines(install, scoped, data_home, runs)
        lines.append(validate_line(folder / "validate", args.validate_lessons, runs))
        drifted = drift_cost(folder / "drift", runs, args.drift_commits)
        replayed = replay(graphs[0], args.replay_calls)
        variant = always_on_variant(graphs[0], folder / "corpus-always")
        always_replayed = replay(variant, args.replay_calls)
        days = replay_days(days_graph(folder / "days", args.corpus, Path(dev.lessons)))
        corpus_days = replay_days(graphs[0])
        snapshot = load_snapshot()
        history_root = history_graph(folder / "history", Path(dev.lessons), snapshot)
        history = replay_history(history_root, snapshot, args.history_sessions)
        public_root = public_graph(folder / "public", Path(dev.lessons))
        public = replay_public(public_root, load_public(), args.public_days)
        served = mcp_cost(dev, graphs[0], max(3, runs // 5))
        harvested = harvest_run(folder / "harvest", args.harvest_mb)
        conflicts = conflicts_summary(graphs[0].root, max(1, runs // 7), args.conflict_lessons)
    print_table(lines, replayed, installs)
    print(scoped_summary(lines))
    print(always_summary(always_replayed, ALWAYS_ON))
    print(replay_summary(days, DAYS_NAME))
    print(replay_summary(corpus_days, CORPUS_DAYS_NAME))
    print(replay_summary(history, HISTORY_NAME))
    print(replay_summary(public, PUBLIC_NAME))
    print(mcp_summary(served))
    print(drifted.summary())
    print(harvested.summary())
    print(conflicts)


def hook_lines(install: Install, graphs: list[Graph], runs: int) -> list[Line]:
    """Every row of every graph, interleaved with the install's ``python -c pass``."""
    table = [row for graph in graphs for row in rows(graph, install)]
    for row in table:
        _check(row)
    probes = [baseline(install, graphs[0]), *(row.probe for row in table)]
    bare, *measured = measure_interleaved(probes, runs)
    return [
        Line(install.name, row.graph, row.kind, m, bare)
        for row, m in zip(table, measured, strict=True)
    ]


def _check(row: Row) -> None:
    """A delivering row must deliver and a silent one must be silent, or the numbers lie.
    "All shown" is primed first: its session has seen every rule matching the edit."""
    if row.kind == "silent: all shown":
        index, _broken = load_index(Layout(row.graph.root))
        matching = [c.hit.lesson_id for c in rank(index, RecallRequest(files=(row.graph.edit,)))]
        sessions.claim(Layout(row.graph.root), session_key(SHOWN_SESSION), matching)
    said = check_output(row.probe)
    if bool(said) != (row.kind in DELIVERING):
        raise SystemExit(f"{row.graph.name} {row.kind}: unexpected output {said[:200]!r}")


def rebuild_line(install: Install, graph: Graph, runs: int) -> Line:
    """The first hook after one lesson file changed: an incremental rebuild, then recall.
    The file is written as lessons and git write one, a new file renamed into place."""
    lesson = sorted(graph.root.joinpath(".lessons", "lessons").glob("*.json"))[0]
    probe = rows(graph, install)[0].probe
    times: list[float] = []
    peak = 0.0
    for run in range(runs):
        fresh = lesson.with_name(".bench-rewrite.tmp")
        fresh.write_bytes(lesson.read_bytes().rstrip(b"\n") + b"\n" * (1 + run % 2))
        os.replace(fresh, lesson)
        elapsed, rss = run_once(probe, 10_000 + run)
        times.append(elapsed)
        peak = max(peak, rss)
    times.sort()
    return Line(install.name, graph, "edit after a lesson changed", Measure(times[runs // 2], peak))


if __name__ == "__main__":
    main()
