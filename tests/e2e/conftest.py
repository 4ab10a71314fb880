"""Fixtures: repos wired for the real Claude Code and Codex CLIs, each with its fake model."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.e2e import codex_project
from tests.e2e.claude_project import CLAUDE, Project, make_project


@pytest.fixture
def project(tmp_path: Path) -> Iterator[Project]:
    """A git repo with two lessons, wired with `lessons init --claude-code`."""
    if not CLAUDE.exists():
        pytest.fail(f"the Claude Code CLI is not installed at {CLAUDE}; run 'bash scripts/test'")
    project = make_project(tmp_path)
    try:
        yield project
    finally:
        project.server.close()


@pytest.fixture
def codex_repo(tmp_path: Path) -> Iterator[codex_project.Project]:
    """A git repo with two lessons, wired with `lessons init --codex`; nothing trusted yet."""
    if not codex_project.CODEX.exists():
        pytest.fail(
            f"the Codex CLI is not installed at {codex_project.CODEX}; run 'bash scripts/test'"
        )
    project = codex_project.make_project(tmp_path)
    try:
        yield project
    finally:
        project.server.close()


@pytest.fixture
def codex(codex_repo: codex_project.Project) -> codex_project.Project:
    """The same repo after the documented trust steps (project, then its hooks)."""
    codex_repo.trust()
    return codex_repo
