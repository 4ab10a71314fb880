"""Fixtures: repos wired for the real Claude Code, Codex, Gemini, Copilot and Qwen Code
CLIs and the Pi coding agent, each with its fake model. A missing client is a failure,
never a skip: `bash scripts/test` installs each one."""

from __future__ import annotations

from collections.abc import Callable, Generator, Iterator
from pathlib import Path
from typing import Any, TypeVar

import pytest

from tests.e2e import codex_project, gemini_project
from tests.e2e.claude_project import CLAUDE, Project, make_project
from tests.e2e.cline_project import CLINE, ClineProject, make_cline_project
from tests.e2e.copilot_project import COPILOT, COPILOT_CACHE, CopilotProject, make_copilot_project
from tests.e2e.pi_project import PI, PiProject, make_pi_project
from tests.e2e.qwen_project import QWEN, QwenProject, make_qwen_project
from tests.e2e.sample_repo import ClientProject

P = TypeVar("P", bound=ClientProject[Any])


def _served(client: Path, name: str, make: Callable[[], P]) -> Generator[P, None, P]:
    """Yield the project ``make`` builds, close its fake model, return the project; fail
    without the client."""
    if not client.exists():
        pytest.fail(f"the {name} is not installed at {client}; run 'bash scripts/test'")
    project = make()
    try:
        yield project
    finally:
        project.server.close()
    return project


@pytest.fixture
def project(tmp_path: Path) -> Iterator[Project]:
    """A git repo with two lessons, wired with `lessons init --claude-code`."""
    yield from _served(CLAUDE, "Claude Code CLI", lambda: make_project(tmp_path))


@pytest.fixture
def codex_repo(tmp_path: Path) -> Iterator[codex_project.Project]:
    """A git repo with two lessons, wired with `lessons init --codex`; nothing trusted yet."""
    make = lambda: codex_project.make_project(tmp_path)  # noqa: E731
    yield from _served(codex_project.CODEX, "Codex CLI", make)


@pytest.fixture
def codex(codex_repo: codex_project.Project) -> codex_project.Project:
    """The same repo after the documented trust steps (project, then its hooks)."""
    codex_repo.trust()
    return codex_repo


@pytest.fixture
def gemini(tmp_path: Path) -> Iterator[gemini_project.Project]:
    """A git repo with two lessons, wired with `lessons init --gemini`.

    Afterwards every run of our hook the client logged must have exited 0 with nothing on
    stderr, and the hook must have logged no failure of its own.
    """
    make = lambda: gemini_project.make_project(tmp_path)  # noqa: E731
    project = yield from _served(gemini_project.GEMINI, "Gemini CLI", make)
    failed = [c for c in project.hook_calls() if c.exit_code or not c.success or c.stderr]
    assert not failed, failed
    assert not (project.root / ".lessons" / "local" / "hook.log").exists()


@pytest.fixture
def copilot_project(tmp_path: Path) -> Iterator[CopilotProject]:
    """A git repo with two lessons, wired with `lessons init --copilot`."""
    if not COPILOT_CACHE.exists():
        pytest.fail(f"the Copilot CLI is not unpacked in {COPILOT_CACHE}; run 'bash scripts/test'")
    yield from _served(COPILOT, "Copilot CLI", lambda: make_copilot_project(tmp_path))


@pytest.fixture
def qwen_project(tmp_path: Path) -> Iterator[QwenProject]:
    """A git repo with two lessons, wired with `lessons init --qwen`."""
    yield from _served(QWEN, "Qwen Code CLI", lambda: make_qwen_project(tmp_path))


@pytest.fixture
def pi_project(tmp_path: Path) -> Iterator[PiProject]:
    """A git repo with two lessons, wired with `lessons init --pi`."""
    yield from _served(PI, "Pi coding agent", lambda: make_pi_project(tmp_path))


@pytest.fixture
def cline_project(tmp_path: Path) -> Iterator[ClineProject]:
    """A git repo with two lessons, wired with `lessons init --cline`."""
    yield from _served(CLINE, "Cline CLI", lambda: make_cline_project(tmp_path))
