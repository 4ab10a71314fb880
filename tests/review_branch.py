"""A real repo with a feature branch for the code side of ``lessons review``: on main, the
lessons and the files they cover; on the branch, an edit to a covered file, a covered file
deleted, another renamed, a script and a workflow that add covered commands, and a lesson
added."""

from __future__ import annotations

from pathlib import Path

from lessons_core.store.layout import Layout
from tests.conftest import git
from tests.lesson_graphs import make_project, write_lesson

MAIN_FILES = {
    "src/db/models.py": "class Model:\n    pass\n",
    "src/db/session.py": "SESSION = None\n",
    "src/legacy/old.py": "OLD = 1\n",
    "src/util/paths.py": "def base(p):\n    return p\n",
    "scripts/deploy.sh": "#!/bin/sh\nset -e\necho deploying\n",
    ".github/workflows/ci.yml": (
        "name: ci\non: [push]\njobs:\n  test:\n    runs-on: ubuntu-latest\n    steps:\n"
        "      - uses: actions/checkout@v4\n      - run: pytest -q\n"
    ),
}


def write(root: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)


def main_branch(root: Path) -> Layout:
    layout = make_project(root, files=())
    write(root, MAIN_FILES)
    write_lesson(
        layout, "db-models", "Add a migration with every model change.",
        files=["src/db/models.py"], forbid=r"\bDROP TABLE\b",
    )  # fmt: skip
    write_lesson(layout, "db-all", "Open sessions through db.session only.", files=["src/db/**"])
    write_lesson(
        layout, "legacy-old", "Keep OLD at 1 for the v1 clients.", files=["src/legacy/old.py"]
    )
    write_lesson(layout, "util-paths", "Never split('/') a path.", files=["src/util/paths.py"])
    write_lesson(
        layout, "deploy-force", "Never force-push main; open a revert instead.",
        commands=["git push --force"], enforce=True,
    )  # fmt: skip
    write_lesson(layout, "db-migrate", "Run alembic upgrade head in CI before tests.",
                 commands=["alembic upgrade"])  # fmt: skip
    git(root, "add", "-A")
    git(root, "commit", "-qm", "lessons and code")
    return layout


def feature_branch(root: Path, layout: Layout) -> None:
    git(root, "checkout", "-qb", "feature")
    write(
        root,
        {
            "src/db/models.py": "class Model:\n    id = 1\n    name = ''\n    pass\n",
            "scripts/deploy.sh": MAIN_FILES["scripts/deploy.sh"] + "git push --force origin main\n",
            ".github/workflows/ci.yml": MAIN_FILES[".github/workflows/ci.yml"]
            + "      - name: migrate\n        run: |\n          alembic upgrade head\n",
        },
    )
    git(root, "rm", "-q", "src/legacy/old.py")
    (root / "src/common").mkdir()
    git(root, "mv", "src/util/paths.py", "src/common/paths.py")
    write_lesson(layout, "db-index", "Name every index explicitly.", files=["src/db/*.py"])
    git(root, "add", "-A")
    git(root, "commit", "-qm", "feature")


def branch_repo(root: Path) -> Layout:
    layout = main_branch(root)
    feature_branch(root, layout)
    return layout
