"""The graphs the benchmark runs against, each a real repo tree in a temp folder.

- the real corpus: 576 lessons written by agents on a TypeScript repository, imported with
  ``lessons import agentsmesh`` exactly as a user would, beside that repository's files;
- synthetic graphs of any size from ``bench.synth`` (same seed, same files);
- the corpus again with its ten oldest active lessons marked always-on and the topics line
  on, for what session starts cost (``always_on_variant``).

Each graph names a file with rules to show (an edit that delivers), a file no rule is
about (a silent edit or read) and a command with rules to show, all checked against the
graph itself.
"""

from __future__ import annotations

import random
import shutil
import subprocess
from dataclasses import dataclass, replace
from pathlib import Path

import orjson

from bench.synth import generate, write_repo
from lessons_core.index.cache import load_index
from lessons_core.index.entries import RecallIndex
from lessons_core.jsonio import dumps
from lessons_core.recall.rank import rank
from lessons_core.recall.types import RecallRequest
from lessons_core.store.launcher import write_launcher
from lessons_core.store.layout import Layout

# The project's own copy of the real corpus, with its licence notice (NOTICE.md beside it):
# a clone of this repo is all a test or a benchmark run may read.
CORPUS = Path(__file__).resolve().parent / "corpus" / "agentsmesh"

# The command of the "command" row: the first of these a graph has a command rule on
# (the corpus and the synthetic graphs have rules on the first).
COMMANDS = ("pnpm test", "npm test", "git push origin main")
# Lessons the always-on variant of a graph marks always-on.
ALWAYS_ON = 10
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
    command: str = ""  # a shell command with a rule to show ("" when the graph has none)


def corpus_graph(root: Path, corpus: Path, lessons: Path) -> Graph:
    """The agentsmesh corpus, imported with the ``lessons`` console script ``lessons``."""
    root.mkdir(parents=True)
    subprocess.run(["git", "init", "-q"], cwd=root, check=True)
    for args in (["init"], ["import", "agentsmesh", str(corpus / "lessons.json")]):
        subprocess.run([str(lessons), *args], cwd=root, check=True, capture_output=True)
    paths = tuple((corpus / "paths.txt").read_text().split())
    prompt = "the recall hook misses lessons when the capture regex sees a trailing slash"
    return _finish("corpus", root, paths, prompt)


def always_on_variant(graph: Graph, root: Path, count: int = ALWAYS_ON) -> Graph:
    """A copy of ``graph`` at ``root`` whose ``count`` oldest active lessons are always-on,
    with the topics line on: what session starts cost once some rules are marked for
    every task (the corpus marks none; its lessons without a trigger are all inactive)."""
    shutil.copytree(graph.root, root, symlinks=True)
    layout = Layout(root)
    files = {path: orjson.loads(path.read_bytes()) for path in layout.lessons_dir.glob("*.json")}
    active = sorted(
        (data["created"], data["id"], path)
        for path, data in files.items()
        if data.get("status") == "active"
    )
    for _created, _id, path in active[:count]:
        path.write_bytes(dumps(files[path] | {"always": True}))
    config = orjson.loads(layout.config_path.read_bytes())
    layout.config_path.write_bytes(dumps(config | {"session_topics": True}))
    load_index(layout)
    return replace(graph, name=f"{graph.name}, always-on", root=root)


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
    command = next((c for c in COMMANDS if _runs_a_rule(index, c)), "")
    lessons = sum(1 for _ in layout.lessons_dir.glob("*.json"))
    return Graph(name, root, lessons, paths, edit, quiet, prompt, command)


def _runs_a_rule(index: RecallIndex, command: str) -> bool:
    return any(c.hit.via == "command" for c in rank(index, RecallRequest(command=command)))


def _edit(path: str) -> RecallRequest:
    return RecallRequest(files=(path,))
