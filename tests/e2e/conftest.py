"""Fixtures: repos wired for the real Claude Code, Codex, Copilot and Qwen Code CLIs, each
with its fake model."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from tests.e2e import codex_project
from tests.e2e.claude_project import CLAUDE, Project, make_project
from tests.e2e.copilot_project import COPILOT, COPILOT_CACHE, CopilotProject, make_copilot_project
from tests.e2e.qwen_project import QWEN, QwenProject, make_qwen_project
from tests.e2e.sample_repo import Wired


def _served(make: Callable[[Path], Wired], tmp_path: Path, *installed: Path) -> Iterator[Wired]:
    """The project ``make`` builds in ``tmp_path``, its fake model's server closed after
    the test; a failure that names scripts/test when the client is not installed."""
    for path in installed:
        if not path.exists():
            pytest.fail(f"the agent client is not installed at {path}; run 'bash scripts/test'")
    project = make(tmp_path)
    try:
        yield project
    finally:
        project.server.close()


@pytest.fixture
def project(tmp_path: Path) -> Iterator[Project]:
    """A git repo with two lessons, wired with `lessons init --claude-code`."""
    yield from _served(make_project, tmp_path, CLAUDE)


@pytest.fixture
def codex_repo(tmp_path: Path) -> Iterator[codex_project.Project]:
    """A git repo with two lessons, wired with `lessons init --codex`; nothing trusted yet."""
    yield from _served(codex_project.make_project, tmp_path, codex_project.CODEX)


@pytest.fixture
def codex(codex_repo: codex_project.Project) -> codex_project.Project:
    """The same repo after the documented trust steps (project, then its hooks)."""
    codex_repo.trust()
    return codex_repo


@pytest.fixture
def copilot_project(tmp_path: Path) -> Iterator[CopilotProject]:
    """A git repo with two lessons, wired with `lessons init --copilot`."""
    yield from _served(make_copilot_project, tmp_path, COPILOT, COPILOT_CACHE)


@pytest.fixture
def qwen_project(tmp_path: Path) -> Iterator[QwenProject]:
    """A git repo with two lessons, wired with `lessons init --qwen`."""
    yield from _served(make_qwen_project, tmp_path, QWEN)
