"""``lessons query --explain`` checks every trigger itself; what it finds matched is
exactly what ranking matched, for any request. Validate and capture ask the same matcher
per trigger kind (a glob's files counted, a pattern tried on commands) and agree too."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from lessons_core.index.build import build_index
from lessons_core.matching.commands import compile_command
from lessons_core.matching.glob_counts import FileIndex
from lessons_core.matching.globs import compile_glob
from lessons_core.matching.words import contains_phrase, tokens
from lessons_core.recall.explain import explain
from lessons_core.recall.rank import (
    command_matches,
    file_matches,
    keyword_matches,
    keyword_sources,
    rank,
    request_files,
)
from lessons_core.recall.types import RecallRequest
from lessons_core.store.config import Config
from lessons_core.store.files import load_graph
from lessons_core.store.layout import Layout
from lessons_core.store.project import init_project
from tests.conftest import make_repo, save_lesson

LESSONS = (
    ("api-timeouts", "Keep api request timeouts explicit.", {"files": ("src/api/**",)}),
    ("top-md", "Keep the README short and current.", {"files": ("*.md",)}),
    ("py-types", "Type every python module fully.", {"files": ("**/*.py",)}),
    ("one-file", "Never rename src/app.py by hand.", {"files": ("src/app.py", "src/?pp.ts")}),
    ("rm-build", "Never delete build while tests run.", {"commands": (r"rm -rf build",)}),
    ("push-gen", "Run make gen before pushing generated code.", {"commands": ("git push",)}),
    ("alembic", "Generate alembic migrations, never write them.", {"keywords": ("alembic",)}),
    ("db-pool", "Size the database pool from config.", {"keywords": ("database pool", "pool")}),
    ("mixed", "Release builds need the VERSION file bumped first.",
     {"files": ("VERSION",), "commands": (r"scripts/release\.sh",), "keywords": ("release",)}),
)  # fmt: skip

PATHS = st.sampled_from(
    ["src/api/client.ts", "README.md", "docs/guide.md", "src/app.py", "src/app.ts",
     "tools/x.py", "VERSION", "migrations/alembic/env.py", "src/db/pool.py", "a.txt"]
)  # fmt: skip
COMMANDS = st.sampled_from(
    ["rm -rf build", "cd x && rm -rf build", "git push origin main", "scripts/release.sh",
     "make release", "ls -la", "pytest -q", "alembic upgrade head"]
)  # fmt: skip
WORDS = st.sampled_from(
    ["release", "database", "pool", "alembic", "timeouts", "client", "python", "module",
     "readme", "the", "migrations", "version", "bumped", "generated", "code", "pools",
     "releases", "releasing", "released", "alembics", "pooling"]
)  # fmt: skip
REQUESTS = st.builds(
    RecallRequest,
    files=st.lists(PATHS, max_size=2).map(tuple),
    command=st.none() | COMMANDS,
    prompt=st.none() | st.lists(WORDS, min_size=1, max_size=6).map(" ".join),
    named=st.lists(PATHS, max_size=2).map(tuple),  # files the prompt names
    shell=st.none(),  # a command is parsed from its text, never given apart from it
)


def every_request(test: Callable[[Path, RecallRequest], None]) -> Callable[[Path], None]:
    """150 requests a test; the graph is made once, in the first example's tmp_path."""
    run = given(request=REQUESTS)(test)
    checks = [HealthCheck.function_scoped_fixture]
    return settings(max_examples=150, deadline=None, suppress_health_check=checks)(run)


def _layout(root: Path) -> Layout:
    """The graph of LESSONS in a repo at ``root``, made once: hypothesis runs every
    example with the same ``tmp_path``."""
    if root.exists():
        return Layout(root)
    layout, _ = init_project(make_repo(root, {"src/app.py": "x = 1\n"}))
    for lesson_id, rule, triggers in LESSONS:
        save_lesson(layout, lesson_id, rule, topics=("testing",), **triggers)
    return layout


@every_request
def test_explain_matches_exactly_what_ranking_matches(
    tmp_path: Path, request: RecallRequest
) -> None:
    """A lesson has a matched check in the explanation exactly when ranking made it a
    candidate: by a file, a command, a keyword or the prompt's words."""
    layout = _layout(tmp_path / "repo")
    index = build_index(load_graph(layout).lessons.values())
    ranked = {c.hit.lesson_id for c in rank(index, request)}
    explained = explain(layout, request, config=Config())
    matched = {v.lesson_id for v in explained.verdicts if any(c.matched for c in v.checks)}
    assert matched == ranked


def _triggers(kind: str) -> set[tuple[str, str]]:
    """(lesson id, trigger) for every trigger of ``kind`` in LESSONS."""
    return {
        (lesson_id, trigger) for lesson_id, _, found in LESSONS for trigger in found.get(kind, ())
    }


@every_request
def test_every_use_of_a_matcher_fires_where_ranking_does(
    tmp_path: Path, request: RecallRequest
) -> None:
    """Trigger by trigger, what ranking finds through the index (its buckets and literal
    runs first) is what the matcher of that kind says without them, as validate and
    capture use it: ``FileIndex`` counting a glob's files, ``CommandPattern.matches``, and
    whole-word phrases in each keyword source."""
    layout = _layout(tmp_path / "repo")
    index = build_index(load_graph(layout).lessons.values())
    files = request_files(request)
    counted = FileIndex(files)
    for path in files:
        ranked = {(index.ids[entry.lesson], entry.glob) for entry in file_matches(index, path)}
        found = {
            (x, glob)
            for x, glob in _triggers("files")
            if path in counted.matching(compile_glob(glob))
        }
        assert ranked == found
    command = request.command or ""
    ranked = {(index.ids[e.lesson], e.pattern) for e, _part in command_matches(index, command)}
    found = {(x, p) for x, p in _triggers("commands") if compile_command(p).matches(command)}
    assert ranked == (found if command.strip() else set())
    for _source, words in keyword_sources(request, files):
        ranked = {(index.ids[e.lesson], e.keyword) for e in keyword_matches(index, words)}
        found = {(x, k) for x, k in _triggers("keywords") if contains_phrase(words, tokens(k))}
        assert ranked == found
