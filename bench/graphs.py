"""The graphs the benchmark runs against, each a real repo tree in a temp folder.

- the real corpus: 576 lessons written by agents on a TypeScript repository, imported with
  ``lessons import agentsmesh`` exactly as a user would, beside that repository's files;
- synthetic graphs of any size from ``bench.synth`` (same seed, same files).

Each graph names a file with rules to show (an edit that delivers) and a file no rule is
about (a silent edit), both checked against the graph itself.
"""

from __future__ import annotations

import json
import random
import subprocess
from dataclasses import dataclass
from importlib.util import find_spec
from pathlib import Path
from typing import Any

from bench.synth import generate, write_repo
from lessons_core.layout import Layout
from lessons_core.model import Lesson, Status, Triggers
from lessons_core.recall import RecallRequest, rank
from lessons_core.recall_index import load_index
from lessons_core.store import create_lesson

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
    subprocess.run([str(lessons), "init"], cwd=root, check=True, capture_output=True)
    if find_spec("lessons_core.importers"):
        command = [str(lessons), "import", "agentsmesh", str(corpus / "lessons.json")]
        subprocess.run(command, cwd=root, check=True, capture_output=True)
    else:
        _convert(Layout(root), json.loads((corpus / "lessons.json").read_text()))
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
    index, _broken = load_index(layout)  # also builds the cache, as the first hook would
    shuffled = list(paths)
    random.Random(11).shuffle(shuffled)
    edit = next(p for p in shuffled if sum(c.hit.via == "file" for c in rank(index, _edit(p))) >= 2)
    quiet = next(p for p in QUIET_CANDIDATES if not rank(index, _edit(p)))
    lessons = sum(1 for _ in layout.lessons_dir.glob("*.json"))
    return Graph(name, root, lessons, paths, edit, quiet, prompt)


def _convert(layout: Layout, data: dict[str, Any]) -> None:
    """The corpus's file and keyword triggers as lesson files, for a ``lessons`` without
    ``import agentsmesh`` (its command patterns are JavaScript regexes: left out)."""
    triggers = data["triggers"]
    for lesson_id, raw in data["lessons"].items():
        found = [triggers[t] for t in raw["triggers"]]
        superseded = raw.get("supersededBy")
        lesson = Lesson(
            id=lesson_id,
            rule=str(raw["rule"]),
            topics=tuple(raw["topics"]),
            triggers=Triggers(
                files=tuple(t["pattern"] for t in found if t["kind"] == "file_glob"),
                keywords=tuple(t["pattern"] for t in found if t["kind"] == "keyword"),
            ),
            created=str(raw["createdAt"])[:10],
            status=Status(raw["status"]),
            rationale=raw.get("rationale"),
            superseded_by=str(superseded) if superseded else None,
        )
        create_lesson(layout, lesson)


def _edit(path: str) -> RecallRequest:
    return RecallRequest(files=(path,))
