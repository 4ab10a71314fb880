"""Fixtures: a repo wired for a real agent client, with a fake model on loopback.

A missing client is a failure, never a skip: `bash scripts/test` installs each one.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.e2e import gemini_project
from tests.e2e.claude_project import CLAUDE, Project, make_project
from tests.e2e.gemini_project import GEMINI, GeminiProject


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
def gemini(tmp_path: Path) -> Iterator[GeminiProject]:
    """A git repo with two lessons, wired with `lessons init --gemini`.

    Afterwards every run of our hook the client logged must have exited 0 with nothing on
    stderr, and the hook must have logged no failure of its own.
    """
    if not GEMINI.exists():
        pytest.fail(f"the Gemini CLI is not installed at {GEMINI}; run 'bash scripts/test'")
    project = gemini_project.make_project(tmp_path)
    try:
        yield project
    finally:
        project.server.close()
    failed = [c for c in project.hook_calls() if c.exit_code or not c.success or c.stderr]
    assert not failed, failed
    assert not (project.root / ".lessons" / "local" / "hook.log").exists()
