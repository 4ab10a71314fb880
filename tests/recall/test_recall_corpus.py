"""Recall over a real graph: the agentsmesh lessons and that repository's file paths."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from lessons_core.index.build import build_index
from lessons_core.index.cache import load_index
from lessons_core.index.entries import RecallIndex, TermStats
from lessons_core.index.file_format import Reader, read_index
from lessons_core.index.file_writer import Writer, add_index
from lessons_core.matching.glob_match import plan_matches
from lessons_core.matching.globs import compile_glob, has_glob_chars, matching_plan
from lessons_core.recall.rank import rank
from lessons_core.recall.types import RecallRequest
from lessons_core.store.files import load_graph
from lessons_core.store.layout import Layout


@pytest.fixture(scope="module")
def index(corpus_layout: Layout) -> RecallIndex:
    return load_index(corpus_layout)[0]


def test_corpus_graph_is_large(corpus_layout: Layout, index: RecallIndex) -> None:
    """The fixture holds at least 300 real lessons, most of them active."""
    graph = load_graph(corpus_layout)
    assert len(graph.lessons) >= 400
    assert len(index.ids) >= 300
    assert graph.broken == []


def test_exact_paths_rank_above_subtrees_for_sampled_real_paths(
    corpus_layout: Layout, index: RecallIndex, corpus_paths: list[str]
) -> None:
    """For real paths, every exact-path match is shown above every ``**`` subtree match."""
    sample = random.Random(20260606).sample(corpus_paths, 60)
    sample += [p for p in corpus_paths if p in index.exact][:40]
    both = 0
    for path in sample:
        hits = [c.hit for c in rank(index, RecallRequest(files=(path,)))]
        exact = [n for n, hit in enumerate(hits) if not has_glob_chars(hit.trigger)]
        subtree = [n for n, hit in enumerate(hits) if "**" in hit.trigger]
        if exact and subtree:
            both += 1
            assert max(exact) < min(subtree), path
    assert both >= 30  # the check is not vacuous


def test_every_real_path_ranks_by_specificity(index: RecallIndex, corpus_paths: list[str]) -> None:
    """For all 1,103 real paths, file matches come in non-increasing specificity."""
    for path in corpus_paths:
        specs = [c.specificity for c in rank(index, RecallRequest(files=(path,)))]
        assert specs == sorted(specs, reverse=True), path


def test_prefilters_never_miss_a_match(
    corpus_layout: Layout, index: RecallIndex, corpus_paths: list[str]
) -> None:
    """The prefix and suffix prefilters find exactly the lessons that evaluating every
    glob against every real path finds."""
    active = [x for x in load_graph(corpus_layout).lessons.values() if x.is_active]
    compiled = [(x.id, [compile_glob(g) for g in x.triggers.files]) for x in active]
    for path in corpus_paths:
        expected = {lesson for lesson, globs in compiled if any(g.matches(path) for g in globs)}
        found = {c.hit.lesson_id for c in rank(index, RecallRequest(files=(path,)))}
        assert found == expected, path


def test_every_real_glob_has_a_plan_matching_what_its_regex_matches(
    corpus_layout: Layout, corpus_paths: list[str]
) -> None:
    """Each glob of the real lessons is matched without a regex, and over all 1,103 real
    paths its plan matches exactly the paths its regex matches."""
    globs = {g for x in load_graph(corpus_layout).lessons.values() for g in x.triggers.files}
    matched = 0
    for glob in sorted(globs):
        compiled = compile_glob(glob)
        plan = matching_plan(compiled)
        assert plan is not None, glob
        for path in corpus_paths:
            found = plan_matches(plan, path)
            assert found == compiled.matches(path), (glob, path)
            matched += found
    assert len(globs) >= 300
    assert matched >= 1000  # the check is not vacuous


def test_index_survives_the_index_file(
    tmp_path: Path, index: RecallIndex, corpus_paths: list[str]
) -> None:
    """Written to an index file and read back lazily, the index is equal and answers alike."""
    writer = Writer()
    add_index(writer, index)
    (tmp_path / "index.bin").write_bytes(writer.finish(None))
    loaded = read_index(Reader(str(tmp_path / "index.bin")))
    request = RecallRequest(files=(corpus_paths[500],), prompt="regex safety lessons recall")
    assert rank(loaded, request) == rank(index, request)
    assert _materialise(loaded) == _materialise(index)


def test_index_is_stable(corpus_layout: Layout, index: RecallIndex) -> None:
    """Building twice from the same files gives the same index (lessons in id order), and
    the cached one equals a fresh build."""
    built = build_index(load_graph(corpus_layout).lessons.values())
    assert _materialise(index) == built == build_index(load_graph(corpus_layout).lessons.values())
    assert list(index.ids) == sorted(index.ids)


def _materialise(index: RecallIndex) -> RecallIndex:
    """The same index with every part loaded into dicts and tuples (for comparisons)."""
    stats = index.bm25
    return RecallIndex(
        ids=tuple(index.ids),
        rules=tuple(index.rules),
        created=tuple(index.created),
        gates=tuple(index.gates),
        exact=dict(index.exact),
        by_prefix=dict(index.by_prefix),
        commands=tuple(index.commands),
        command_runs=tuple(index.command_runs),
        keywords=dict(index.keywords),
        bm25=TermStats(
            idf=dict(stats.idf),
            postings=dict(stats.postings),
            doc_len=tuple(stats.doc_len),
            avgdl=stats.avgdl,
        ),
        skipped=tuple(index.skipped),
        always=tuple(index.always),
        topics=tuple(index.topics),
        enforces=tuple(index.enforces),
        forbids=tuple(index.forbids),
    )
