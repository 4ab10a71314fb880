"""Recall stays light: what it must not import, checked in fresh interpreters."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from lessons_core.index_cache import CACHE_NAME
from lessons_core.layout import Layout
from lessons_core.recall_index import load_index
from tests.recall.conftest import WriteLesson

HEAVY = ("click", "numpy", "rank_bm25", "detect_secrets")


def loaded_after(code: str, cwd: Path) -> set[str]:
    probe = f"{code}\nimport sys\nprint(' '.join(sorted(sys.modules)))\n"
    out = subprocess.run(
        [sys.executable, "-c", probe], cwd=cwd, capture_output=True, text=True, check=True
    )
    return set(out.stdout.split())


def seed(write_lesson: WriteLesson) -> None:
    write_lesson("api", "Keep request timeouts explicit.", files=("src/**",))
    write_lesson("push", "Run the tests before pushing.", commands=("git push",))
    write_lesson("db", "Generate alembic migrations.", keywords=("alembic",))


def recall_code(session: str) -> str:
    """A fresh interpreter's full recall (and rendering) in session ``session``."""
    return (
        "from pathlib import Path\n"
        "from lessons_core.layout import Layout\n"
        "from lessons_core.recall import RecallRequest\n"
        "from lessons_core.render import render_block\n"
        "from lessons_core.session_recall import recall_once\n"
        "request = RecallRequest(files=('src/a.py',), command='git push', "
        "prompt='alembic migrations please')\n"
        f"block = render_block(recall_once(Layout(Path.cwd()), request, {session!r}))\n"
        "assert 'api' in block and 'push' in block and 'db' in block, block\n"
    )


def test_recall_from_a_fresh_cache_never_imports_heavy_modules(
    layout: Layout, write_lesson: WriteLesson
) -> None:
    """With the cached index fresh, a full recall and its rendering load no click, numpy,
    rank_bm25, detect_secrets, pathspec, nor the lesson model and store."""
    seed(write_lesson)
    load_index(layout)  # builds the cache
    loaded = loaded_after(recall_code("s"), layout.root)
    assert not loaded & {*HEAVY, "pathspec", "lessons_core.store", "lessons_core.model"}


def test_only_a_rebuild_imports_rank_bm25(layout: Layout, write_lesson: WriteLesson) -> None:
    """The index builder computes BM25 statistics with rank_bm25 (so numpy), but never
    click or detect_secrets; the next recall, against the fresh cache, needs none of it."""
    seed(write_lesson)
    rebuilding = loaded_after(recall_code("first"), layout.root)
    assert {"rank_bm25", "numpy"} <= rebuilding
    assert not rebuilding & {"click", "detect_secrets"}
    assert not loaded_after(recall_code("second"), layout.root) & set(HEAVY)


def test_querying_the_cached_index_needs_no_parser(
    layout: Layout, write_lesson: WriteLesson
) -> None:
    """Ranking from the index file imports neither pathspec, RE2 nor the store."""
    seed(write_lesson)
    load_index(layout)
    code = (
        "from lessons_core.index_file import Reader, read_index\n"
        "from lessons_core.recall import RecallRequest, rank\n"
        f"index = read_index(Reader({str(layout.local_dir / CACHE_NAME)!r}))\n"
        "assert [c.hit.lesson_id for c in rank(index, RecallRequest(files=('src/a.py',)))] "
        "== ['api']\n"
    )
    loaded = loaded_after(code, layout.root)
    assert not loaded & {*HEAVY, "pathspec", "lessons_core.store", "lessons_core.model", "re2"}
