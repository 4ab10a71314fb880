"""The hook on the corpus with the two other scopes full: a pack of 500 lessons named in
the config and a personal store of 500 (``lessons_core.store.sources``), each with its
own index the hook checks fresh on every call, as the project's.

The 500 of each are synthetic (``bench.synth``, seeds of their own); one lesson of each is
about the corpus row's edited file and command, so the measured calls deliver a pack's
and a personal rule beside the project's (checked before timing). Rows are the edit and
the command, each answered in the hook's own process, as ratios to
``python -c pass`` of the same install in the same run. The copy's config allows five
trigger matches a call (the corpus's three would leave the scopes' rules, which rank after
the project's at equal rank, out of the block).
"""

from __future__ import annotations

import os
import shutil
from dataclasses import replace
from pathlib import Path

import orjson

from bench.graphs import Graph
from bench.hook_runs import Row, baseline, check_output, rows
from bench.installs import Install
from bench.report import Line
from bench.synth import generate
from bench.timing import measure_interleaved
from lessons_core.jsonio import dumps
from lessons_core.recall.scopes import source_index
from lessons_core.store.layout import Layout
from lessons_core.store.model import Lesson, Triggers
from lessons_core.store.sources import pack_store, personal_store

SCOPE_LESSONS = 500
PACK = "vendor/team-pack"
NAME = "scoped"  # the graph's name in the table


def scoped_graph(graph: Graph, root: Path) -> tuple[Graph, Path]:
    """A copy of ``graph`` at ``root`` with a pack and a personal store (under the
    returned ``XDG_DATA_HOME``) of ``SCOPE_LESSONS`` lessons each, their indexes built."""
    shutil.copytree(graph.root, root, symlinks=True)
    data_home = root.parent / f"{root.name}-data"
    layout = Layout(root)
    config = layout.config_path
    # Room for five trigger matches (the corpus keeps three): the row's own pack and
    # personal rules rank after the project's at equal rank, and must show to be checked.
    settings = {**orjson.loads(config.read_bytes()), "packs": [PACK], "max_trigger_matches": 5}
    config.write_bytes(dumps(settings))
    _write(root / PACK / "lessons", 11, "pack", graph)
    _write(data_home / "lessons" / "lessons", 13, "mine", graph)
    os.chmod(data_home / "lessons", 0o700)
    previous = os.environ.get("XDG_DATA_HOME")
    os.environ["XDG_DATA_HOME"] = str(data_home)
    try:
        for store in (pack_store(layout, PACK), personal_store(root)):
            assert store is not None
            source_index(store)  # as the first hook would
    finally:
        if previous is None:
            del os.environ["XDG_DATA_HOME"]
        else:
            os.environ["XDG_DATA_HOME"] = previous
    scoped = replace(graph, name=NAME, root=root, lessons=graph.lessons + 2 * SCOPE_LESSONS)
    return scoped, data_home


def _write(folder: Path, seed: int, prefix: str, graph: Graph) -> None:
    folder.mkdir(parents=True)
    synthetic = generate(SCOPE_LESSONS - 1, seed=seed).lessons
    about = Lesson(
        id=f"{prefix}-about-the-row",
        rule=f"Check the {prefix} notes before changing this file or running this command.",
        topics=("bench",),
        triggers=Triggers(files=(graph.edit,), commands=(graph.command,)),
        created="2026-12-01",
    )
    for lesson in (*synthetic, about):
        (folder / f"{lesson.id}.json").write_bytes(dumps(lesson.to_dict()))


def scoped_lines(install: Install, graph: Graph, data_home: Path, runs: int) -> list[Line]:
    """The edit and the command, with both scopes speaking."""
    env = (("XDG_DATA_HOME", str(data_home)), ("LESSONS_PERSONAL", "1"))
    chosen = [
        Row(row.graph, row.kind, replace(row.probe, env=(*row.probe.env, *env)))
        for row in rows(graph, install)
        if row.kind in ("edit", "command")
    ]
    for row in chosen:
        _check(row)
    bare, *measured = measure_interleaved(
        [baseline(install, graph), *(r.probe for r in chosen)], runs
    )
    return [
        Line(install.name, row.graph, row.kind, m, bare)
        for row, m in zip(chosen, measured, strict=True)
    ]


def _check(row: Row) -> None:
    """The row delivers the pack's and the personal rule, labelled, or its figure lies."""
    said = check_output(row.probe).decode()
    for label in ("(pack team-pack", "(personal"):
        if label not in said:
            raise SystemExit(f"{NAME} {row.kind}: no {label}) rule in {said[:300]!r}")


def scoped_summary(lines: list[Line]) -> str:
    """One line: each install's ratio for each row, against the goal."""
    parts = [
        f"{line.install} {line.kind} {line.ratio:.2f}x"
        for line in lines
        if line.graph.name == NAME and line.ratio is not None
    ]
    return (
        f"scopes (corpus + a pack of {SCOPE_LESSONS} + {SCOPE_LESSONS} personal lessons, "
        f"each scope its own index): {', '.join(parts)} (goal <= 3x)"
    )
