"""Fixtures for recall tests: a fresh store, a lesson writer, and the real corpus graph."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from lessons_core.store.config import Config
from lessons_core.store.files import create_lesson
from lessons_core.store.layout import Layout
from lessons_core.store.model import Lesson, Status, Triggers
from lessons_core.store.project import init_project
from tests.conftest import corpus_dir, save_lesson

WriteLesson = Callable[..., Lesson]

# A budget large enough that nothing is cut, for tests about order rather than budget.
UNLIMITED = Config(max_trigger_matches=10_000, max_prompt_matches=10_000, max_tokens=10**9)


@pytest.fixture
def layout(tmp_path: Path) -> Layout:
    return init_project(tmp_path)[0]


@pytest.fixture
def write_lesson(layout: Layout) -> WriteLesson:
    """Write a lesson file directly (no capture guards), so any trigger can be tested."""

    def write(lesson_id: str, rule: str, **fields: Any) -> Lesson:
        return save_lesson(layout, lesson_id, rule, **fields)

    return write


@pytest.fixture(scope="session")
def corpus() -> Any:
    """The real lessons graph (agentsmesh format: lessons, triggers, topics)."""
    return json.loads((corpus_dir() / "lessons.json").read_text())


@pytest.fixture(scope="session")
def corpus_paths() -> list[str]:
    """Real file paths of the repository the corpus lessons were written for."""
    return (corpus_dir() / "paths.txt").read_text().split()


@pytest.fixture(scope="module")
def corpus_layout(tmp_path_factory: pytest.TempPathFactory, corpus: Any) -> Layout:
    """Every corpus lesson with a file glob, as a lesson file carrying its globs."""
    layout = init_project(tmp_path_factory.mktemp("corpus"))[0]
    data = corpus
    triggers = data["triggers"]
    for lesson_id, raw in data["lessons"].items():
        globs = tuple(
            str(triggers[t]["pattern"])
            for t in raw["triggers"]
            if triggers[t]["kind"] == "file_glob"
        )
        if not globs:
            continue
        superseded = raw.get("supersededBy")
        lesson = Lesson(
            id=lesson_id,
            rule=str(raw["rule"]),
            topics=tuple(raw["topics"]),
            triggers=Triggers(files=globs),
            created=str(raw["createdAt"]),
            status=Status(raw["status"]),
            rationale=raw.get("rationale"),
            superseded_by=str(superseded) if superseded else None,
        )
        assert create_lesson(layout, lesson)
    return layout
