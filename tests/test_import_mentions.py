"""The triggers a rule's own words name (importers.mentions), judged on a real repo."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from lessons_core.authoring.repo_files import tracked_files
from lessons_core.importers.mentions import Mentions
from lessons_core.matching.glob_counts import FileIndex
from lessons_core.store.model import Triggers
from tests.conftest import make_repo

FILES = {
    "pyproject.toml": "[project]\n",
    "uv.lock": "version = 1\n",
    "scripts/release": "#!/bin/sh\n",
    "src/app/__init__.py": "",
    "src/app/db/models.py": "",
    "src/app/db/queries.py": "",
    "src/app/web/views.py": "",
    "tests/conftest.py": "",
    "tests/unit/test_models.py": "",
    "docs/index.md": "",
}


@pytest.fixture
def mentions(tmp_path: Path) -> Mentions:
    root = make_repo(tmp_path / "repo", FILES)
    os.chmod(root / "scripts" / "release", 0o755)
    return Mentions(root, FileIndex(tracked_files(root)))


@pytest.mark.parametrize(
    ("text", "files", "commands"),
    [
        ("Never edit `uv.lock` by hand.", ("uv.lock",), ()),
        ("Bump the version in pyproject.toml, not elsewhere.", ("pyproject.toml",), ()),
        ("Queries live in src/app/db/ only.", ("src/app/db/**",), ()),
        ("Queries live in `src/app/db` only.", ("src/app/db/**",), ()),
        ("Shared fixtures go in conftest.py.", ("**/conftest.py",), ()),
        ("Name tests `tests/**/test_*.py`.", ("tests/**/test_*.py",), ()),
        ("Release with `./scripts/release --tag`.", (), (r"\./scripts/release",)),
        # The runner and the test runner alone fire on every test run: no trigger.
        ("Run `uv run pytest -x` before pushing.", (), ()),
        (
            "Use `python -m pytest tests/unit`.",
            ("tests/unit/**",),
            ("python -m pytest tests/unit",),
        ),
        ("Start it with `docker compose up -d db`.", (), ("docker compose up",)),
        # The runner and the test runner alone fire on every test run: no trigger.
        ("Run one: `uv run pytest path/to/test.py::test_name`.", (), ()),
        ("Never `rm -rf` the build tree.", (), ("rm",)),
        ("Run `PYTHONWARNINGS=error uv run pytest -x`.", (), ()),
        ("**Never hand-edit `*.lock`.** It is generated.", ("*.lock",), ()),
        # a name pattern no root file matches is read at any depth, as .gitignore reads it
        ("Never edit `test_*.py` files by hand.", ("**/test_*.py",), ()),
    ],
)
def test_names_of_the_repo_become_triggers(
    mentions: Mentions, text: str, files: tuple[str, ...], commands: tuple[str, ...]
) -> None:
    assert mentions.triggers(text) == Triggers(files=files, commands=commands)


@pytest.mark.parametrize(
    "text",
    [
        "Prefer `pathlib.Path` over `os.path.join` in new code.",  # dotted names, no file
        "Write docstrings, e.g. in the imperative mood.",
        "See https://example.com/docs/index.md for more.",  # a URL, not the repo's file
        "Never touch /etc/hosts or ../other/file.py.",  # outside the repo
        "Keep `**/*.py` formatted.",  # a glob over most of the repo
        "Return `True` or `None`, never `sort`.",  # values, and an ordinary word
        "Run `python` scripts with care.",  # only an interpreter
        "Never add `src/app/cache.py` back.",  # no such file
        "Prefer the `uv.lock` of main.",  # a repo file that is not a program: no command
        "Use `uv` or `gh` or `just`.",  # bare multi-purpose programs
        "Use `uv run` or `npx` or `pnpm run`.",  # runner prefixes
        "Run `python -m {module}`.",  # a placeholder for the module
    ],
)
def test_what_is_not_a_name_of_the_repo_names_nothing(mentions: Mentions, text: str) -> None:
    found = mentions.triggers(text)
    assert found.commands == ()
    if "uv.lock" not in text:
        assert found.files == ()
