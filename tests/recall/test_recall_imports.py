"""Recall stays light: what it must not import, checked in fresh interpreters."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from lessons_core.index.cache import load_index
from lessons_core.store.layout import INDEX_CACHE, Layout
from tests.recall.conftest import WriteLesson

HEAVY = ("click", "numpy", "rank_bm25", "detect_secrets")


def loaded_after(code: str, cwd: Path) -> set[str]:
    probe = f"{code}\nimport sys\nprint(' '.join(sorted(sys.modules)))\n"
    out = subprocess.run(
        [sys.executable, "-c", probe], cwd=cwd, capture_output=True, text=True, check=True
    )
    return set(out.stdout.split())


def seed(write_lesson: WriteLesson) -> None:
    write_lesson("api", "Keep request timeouts explicit.", files=("src/*.py",))
    write_lesson("push", "Run the tests before pushing.", commands=("git push",))
    write_lesson("db", "Generate alembic migrations.", keywords=("alembic",))


def recall_code(session: str) -> str:
    """A fresh interpreter's full recall (and rendering) in session ``session``."""
    return (
        "from pathlib import Path\n"
        "from lessons_core.store.layout import Layout\n"
        "from lessons_core.recall.rank import RecallRequest\n"
        "from lessons_core.recall.render import render_block\n"
        "from lessons_core.delivery.session_recall import recall_once\n"
        "from lessons_core.store.config import load_config\n"
        "layout = Layout(Path.cwd())\n"
        "request = RecallRequest(files=('src/a.py',), command='git push', "
        "prompt='alembic migrations please')\n"
        "config = load_config(layout.config_file)\n"
        f"found = recall_once(layout, request, {session!r}, config=config)\n"
        "block = render_block(found)\n"
        "assert 'timeouts' in block and 'pushing' in block and 'alembic' in block, block\n"
    )


def test_recall_from_a_fresh_cache_never_imports_heavy_modules(
    layout: Layout, write_lesson: WriteLesson
) -> None:
    """With the cached index fresh, a full recall and its rendering load no click, numpy,
    rank_bm25, detect_secrets, pathspec, nor the lesson model and store."""
    seed(write_lesson)
    load_index(layout)  # builds the cache
    loaded = loaded_after(recall_code("s"), layout.root)
    assert not loaded & {*HEAVY, "pathspec", "lessons_core.store.files", "lessons_core.store.model"}


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
        "from lessons_core.index.file_format import Reader, read_index\n"
        "from lessons_core.recall.rank import RecallRequest, rank\n"
        f"index = read_index(Reader({str(layout.local_dir / INDEX_CACHE)!r}))\n"
        "assert [c.hit.lesson_id for c in rank(index, RecallRequest(files=('src/a.py',)))] "
        "== ['api']\n"
    )
    loaded = loaded_after(code, layout.root)
    assert not loaded & {
        *HEAVY,
        "pathspec",
        "lessons_core.store.files",
        "lessons_core.store.model",
        "re2",
    }


# What recalling an edit whose globs all have a plan must not load: the regex engine for
# the globs without one, and the module that compiles globs.
BLOCKED = ("re2", "pathspec", "lessons_core.matching.globs")


def recall_edit_blocked(cwd: Path, path: str) -> subprocess.CompletedProcess[str]:
    """A fresh interpreter's recall of an edit of ``path`` in which importing any module
    of ``BLOCKED`` raises (sys.modules[name] = None): whatever the modules it loads
    beforehand import, the recall itself may import none of them."""
    code = (
        "import sys\n"
        "from pathlib import Path\n"
        "from lessons_core.store.layout import Layout\n"
        "from lessons_core.recall.rank import RecallRequest, recall\n"
        "from lessons_core.store.config import load_config\n"
        f"for name in {BLOCKED!r}:\n"
        "    sys.modules[name] = None\n"
        "layout = Layout(Path.cwd())\n"
        f"found = recall(layout, RecallRequest(files=({path!r},)), "
        "config=load_config(layout.config_file))\n"
        "print(' '.join(sorted(hit.lesson_id for hit in found.hits)))\n"
    )
    return subprocess.run(
        [sys.executable, "-c", code], cwd=cwd, capture_output=True, text=True, check=False
    )


def test_an_edit_recall_over_usual_globs_never_imports_re2(
    layout: Layout, write_lesson: WriteLesson
) -> None:
    """With the cache fresh and every glob made of literals, '*' and '**', recalling an
    edit matches the globs and the path's words (a keyword) without importing RE2,
    pathspec or the glob-compiling module."""
    # Globs that pin a folder or a name, not broad ones (src/**, **/*.py): those would
    # wait behind these; five matches, so the config shows five.
    write_lesson("tree", "Keep migrations reversible.", files=("src/alembic/**",))
    write_lesson("ext", "Type every module.", files=("src/alembic/**/*.py",))
    write_lesson("star", "Name envs by stage.", files=("src/*/env.py",))
    write_lesson("exact", "Never edit env.py by hand.", files=("src/alembic/env.py",))
    write_lesson("words", "Generate alembic migrations.", keywords=("alembic",))
    write_lesson("other", "Unrelated.", files=("docs/**/*.md",))
    layout.config_path.write_text('{"max_trigger_matches": 5}\n')
    load_index(layout)
    done = recall_edit_blocked(layout.root, "src/alembic/env.py")
    assert (done.returncode, done.stderr) == (0, "")
    assert done.stdout.split() == ["exact", "ext", "star", "tree", "words"]


def test_a_glob_that_could_backtrack_still_loads_re2(
    layout: Layout, write_lesson: WriteLesson
) -> None:
    """The check above is not vacuous: a '?' glob has no plan, and with three unbounded
    repeats its regex is matched by RE2, so the same recall fails where RE2 is blocked."""
    write_lesson("any", "Keep migrations reversible.", files=("src/?lembic/*/*/*.py",))
    load_index(layout)
    done = recall_edit_blocked(layout.root, "src/alembic/a/b/env.py")
    assert done.returncode != 0
    assert "import of re2 halted" in done.stderr
