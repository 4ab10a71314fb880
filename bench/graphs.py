"""The graphs the benchmark runs against, each a real repo tree in a temp folder.

- the real corpus: 576 lessons written by agents on a TypeScript repository, imported with
  ``lessons import agentsmesh`` exactly as a user would, beside that repository's files;
- synthetic graphs of any size from ``bench.synth`` (same seed, same files).

Each graph names a file with rules to show (an edit that delivers) and a file no rule is
about (a silent edit), both checked against the graph itself.
"""

from __future__ import annotations

import random
import subprocess
from dataclasses import dataclass
from pathlib import Path

from bench.synth import generate, write_repo
from lessons_core.index.cache import load_index
from lessons_core.launcher import write_launcher
from lessons_core.recall.rank import rank
from lessons_core.recall.types import RecallRequest
from lessons_core.store.layout import Layout

# The project's own copy of the real corpus, with its licence notice (NOTICE.md beside it):
# a clone of this repo is all a test or a benchmark run may read.
CORPUS = Path(__file__).resolve().parent / "corpus" / "agentsmesh"

QUIET_CANDIDATES = ("zz-scratch/unrelated.txt", "zz/untracked.bin")


@dataclass(frozen=True)
class Graph:
    name: str
    root: Path
    lessons: int  # lesson files
    paths: tuple[str, ...]  # the repo's files (repo-relative)
    edit: str  # a file with at least two rules to show
    quiet: str  # a file no rule applies to
    prompt: str  # a user prompt in the graph's own vocabulary


def corpus_graph(root: Path, corpus: Path, lessons: Path) -> Graph:
    """The agentsmesh corpus, imported with the ``lessons`` console script ``lessons``."""
    root.mkdir(parents=True)
    subprocess.run(["git", "init", "-q"], cwd=root, check=True)
    for args in (["init"], ["import", "agentsmesh", str(corpus / "lessons.json")]):
        subprocess.run([str(lessons), *args], cwd=root, check=True, capture_output=True)
    paths = tuple((corpus / "paths.txt").read_text().split())
    prompt = "the recall hook misses lessons when the capture regex sees a trailing slash"
    return _finish("corpus", root, paths, prompt)


def synthetic_graph(root: Path, count: int) -> Graph:
    """``count`` synthetic lessons over about ``count / 2`` files."""
    synthetic = generate(count)
    write_repo(root, synthetic)
    prompt = "the webhook retries overrun the quota; make the throttle respect the scheduler"
    return _finish(
        f"{count // 1000}k" if count >= 1000 else str(count), root, synthetic.paths, prompt
    )


def _finish(name: str, root: Path, paths: tuple[str, ...], prompt: str) -> Graph:
    for path in paths:
        target = root / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(b"")
    layout = Layout(root)
    write_launcher(layout)  # as `lessons init` does; the hooks run through it
    index, _broken = load_index(layout)  # also builds the cache, as the first hook would
    shuffled = list(paths)
    random.Random(11).shuffle(shuffled)
    edit = next(p for p in shuffled if sum(c.hit.via == "file" for c in rank(index, _edit(p))) >= 2)
    quiet = next(p for p in QUIET_CANDIDATES if not rank(index, _edit(p)))
    lessons = sum(1 for _ in layout.lessons_dir.glob("*.json"))
    return Graph(name, root, lessons, paths, edit, quiet, prompt)


def _edit(path: str) -> RecallRequest:
    return RecallRequest(files=(path,))
