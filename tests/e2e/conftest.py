"""Fixtures: repos wired for the real Claude Code, Copilot and Qwen Code CLIs and their
fake models."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import TypeVar

import pytest

from tests.e2e.claude_project import CLAUDE, Project, make_project
from tests.e2e.copilot_project import COPILOT, COPILOT_CACHE, CopilotProject, make_copilot_project
from tests.e2e.qwen_project import QWEN, QwenProject, make_qwen_project

Wired = TypeVar("Wired", Project, CopilotProject, QwenProject)


def _served(project: Wired) -> Iterator[Wired]:
    """``project`` for one test; its fake model's server closes afterwards."""
    try:
        yield project
    finally:
        project.server.close()


@pytest.fixture
def project(tmp_path: Path) -> Iterator[Project]:
    """A git repo with two lessons, wired with `lessons init --claude-code`."""
    if not CLAUDE.exists():
        pytest.fail(f"the Claude Code CLI is not installed at {CLAUDE}; run 'bash scripts/test'")
    yield from _served(make_project(tmp_path))


@pytest.fixture
def copilot_project(tmp_path: Path) -> Iterator[CopilotProject]:
    """A git repo with two lessons, wired with `lessons init --copilot`."""
    if not COPILOT.exists() or not COPILOT_CACHE.exists():
        pytest.fail(f"the Copilot CLI is not installed at {COPILOT}; run 'bash scripts/test'")
    yield from _served(make_copilot_project(tmp_path))


@pytest.fixture
def qwen_project(tmp_path: Path) -> Iterator[QwenProject]:
    """A git repo with two lessons, wired with `lessons init --qwen`."""
    if not QWEN.exists():
        pytest.fail(f"the Qwen Code CLI is not installed at {QWEN}; run 'bash scripts/test'")
    yield from _served(make_qwen_project(tmp_path))
