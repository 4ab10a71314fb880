"""The `project` fixture: a repo wired for the real Claude Code CLI and its fake model."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

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
