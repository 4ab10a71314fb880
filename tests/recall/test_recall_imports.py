"""Recall stays light: what it must not import, checked in fresh interpreters."""

from __future__ import annotations

import marshal
import subprocess
import sys
from pathlib import Path

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


def test_recall_and_render_never_import_heavy_modules(
    layout: Layout, write_lesson: WriteLesson
) -> None:
    """A full recall (index build included) and its rendering load no click, numpy,
    rank_bm25 or detect_secrets."""
    seed(write_lesson)
    code = (
        "from pathlib import Path\n"
        "from lessons_core.layout import Layout\n"
        "from lessons_core.recall import RecallRequest\n"
        "from lessons_core.render import render_block\n"
        "from lessons_core.session_recall import recall_once\n"
        "request = RecallRequest(files=('src/a.py',), command='git push', "
        "prompt='alembic migrations please')\n"
        "block = render_block(recall_once(Layout(Path.cwd()), request, 's'))\n"
        "assert 'api' in block and 'push' in block and 'db' in block, block\n"
    )
    assert not loaded_after(code, layout.root) & set(HEAVY)


def test_querying_a_prebuilt_index_needs_no_parser(
    layout: Layout, write_lesson: WriteLesson
) -> None:
    """Ranking from marshalled index data imports neither pathspec nor the store."""
    seed(write_lesson)
    data = layout.local_dir / "index.marshal"
    data.write_bytes(marshal.dumps(load_index(layout)[0].to_data()))
    code = (
        "import marshal\n"
        "from lessons_core.recall import RecallRequest, rank\n"
        "from lessons_core.recall_index import RecallIndex\n"
        f"index = RecallIndex.from_data(marshal.loads(open({str(data)!r}, 'rb').read()))\n"
        "assert [c.hit.lesson_id for c in rank(index, RecallRequest(files=('src/a.py',)))] "
        "== ['api']\n"
    )
    loaded = loaded_after(code, layout.root)
    assert not loaded & {*HEAVY, "pathspec", "lessons_core.store", "lessons_core.model", "re2"}
