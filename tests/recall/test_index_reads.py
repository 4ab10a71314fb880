"""A query reads a small part of a large store's index file: its header stays small
whatever the store's size, and a lookup reads only the few pieces its keys fall in.

Measured through ``pread`` itself on a real cache of 3,000 synthetic lessons (the shape
of bench/synth.py's graphs: exact paths, folder and extension globs, commands, keywords).
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from bench.synth import generate, write_repo
from lessons_core.index import file_format
from lessons_core.index.cache import cached_index
from lessons_core.recall.rank import rank
from lessons_core.recall.types import RecallRequest
from lessons_core.store.layout import INDEX_CACHE, Layout

LESSONS = 3000


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> tuple[Layout, tuple[str, ...]]:
    root = tmp_path_factory.mktemp("large")
    synthetic = generate(LESSONS)
    write_repo(root, synthetic)
    layout = Layout(root)
    cached_index(layout)  # builds the cache
    return layout, synthetic.paths


def _reads(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The size of every ``pread`` from now on (the index file's reader is what uses it)."""
    sizes: list[int] = []
    real = os.pread

    def counted(fd: int, length: int, offset: int) -> bytes:
        data = real(fd, length, offset)
        sizes.append(len(data))
        return data

    monkeypatch.setattr(os, "pread", counted)
    return sizes


def test_the_header_stays_small_in_a_large_store(
    store: tuple[Layout, tuple[str, ...]], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Opening the cache reads a header of a few hundred bytes: the names and stat data
    of 3,000 lesson files (~200 KB) are parts of their own, read by a full check only."""
    layout, _paths = store
    sizes = _reads(monkeypatch)
    reader = file_format.Reader(layout.local(INDEX_CACHE))
    assert reader._base < 2048
    assert sum(sizes) <= 4096


@pytest.mark.parametrize("number", [0, 7, 123, 999])
def test_a_query_reads_a_few_kilobytes(
    store: tuple[Layout, tuple[str, ...]], monkeypatch: pytest.MonkeyPatch, number: int
) -> None:
    """An edit of a file of the store's tree, or of one nothing covers, reads a small
    share of the index file (over 1 MB here), and answers as the whole index would."""
    layout, paths = store
    index, _broken = cached_index(layout)
    size = Path(layout.local(INDEX_CACHE)).stat().st_size
    assert size > 1 << 20
    for path in (paths[number], "zz-scratch/unrelated.txt"):
        request = RecallRequest(files=(path,))
        sizes = _reads(monkeypatch)
        reader = file_format.Reader(layout.local(INDEX_CACHE))
        found = rank(file_format.read_index(reader), request)
        monkeypatch.undo()
        assert found == rank(index, request)
        assert sum(sizes) < 96 << 10, (path, len(sizes), sum(sizes))


def test_a_command_reads_only_the_entries_its_runs_name(
    store: tuple[Layout, tuple[str, ...]], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A command is checked against each distinct literal run once; entries are read
    only for runs the command contains."""
    layout, _paths = store
    index, _broken = cached_index(layout)
    request = RecallRequest(command=f"{index.commands[0].pattern} --filter api")
    sizes = _reads(monkeypatch)
    found = rank(file_format.read_index(file_format.Reader(layout.local(INDEX_CACHE))), request)
    monkeypatch.undo()
    assert found == rank(index, request)
    assert any(c.hit.via == "command" for c in found)
    assert sum(sizes) < 64 << 10, (len(sizes), sum(sizes))
