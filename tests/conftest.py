"""Shared fixtures: every test runs in its own temp dirs, never the real home or repo."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result

from bench.graphs import CORPUS
from lessons_cli.app import cli
from lessons_core.store.files import create_lesson
from lessons_core.store.layout import Layout
from lessons_core.store.model import Lesson, Status, Triggers
from lessons_core.store.project import init_project


@pytest.fixture(autouse=True)
def isolated_env(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    """No test reads or writes the real home, git config or working directory."""
    home = tmp_path_factory.mktemp("home")
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(home / ".config"))
    monkeypatch.setenv("XDG_DATA_HOME", str(home / ".local" / "share"))
    monkeypatch.delenv("LESSONS_PERSONAL", raising=False)
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    for name, value in {
        "GIT_AUTHOR_NAME": "Test",
        "GIT_AUTHOR_EMAIL": "test@example.com",
        "GIT_COMMITTER_NAME": "Test",
        "GIT_COMMITTER_EMAIL": "test@example.com",
    }.items():
        monkeypatch.setenv(name, value)


def git(root: Path, *args: str) -> str:
    """Run git in ``root`` and return its stdout; fail the test on a non-zero exit."""
    return subprocess.run(
        ["git", *args], cwd=root, check=True, capture_output=True, text=True
    ).stdout


def make_repo(root: Path, files: dict[str, str] | None = None) -> Path:
    """A real git repo with ``files`` committed."""
    root.mkdir(parents=True, exist_ok=True)
    git(root, "init", "-q", "-b", "main")
    for rel, content in (files or {}).items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(content)
    git(root, "add", "-A")
    git(root, "commit", "-q", "--allow-empty", "-m", "initial")
    return root


DEFAULT_FILES = {
    "README.md": "# demo\n",
    "src/app.py": "print('app')\n",
    "src/util/paths.py": "def base(p): return p\n",
    "src/db/models.py": "class Model: ...\n",
    "tests/test_app.py": "def test(): ...\n",
    "docs/guide.md": "guide\n",
}


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Layout:
    """A git repo with a few files and an initialised .lessons/, as the working directory."""
    return lessons_repo(tmp_path / "repo", DEFAULT_FILES, monkeypatch)


def lessons_repo(root: Path, files: dict[str, str], monkeypatch: pytest.MonkeyPatch) -> Layout:
    """A git repo at ``root`` with ``files`` and an initialised .lessons/, as the working
    directory."""
    layout, _ = init_project(make_repo(root, files))
    monkeypatch.chdir(layout.root)
    return layout


def write_tracked(root: Path, name: str, text: str) -> None:
    """Write ``text`` to ``name`` in the git repo at ``root`` and stage it (git tracks it)."""
    path = root / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    git(root, "add", name)


def import_instructions(*args: str) -> dict[str, Any]:
    """`lessons import instructions ARGS --json`, which must succeed, as its report."""
    result = run("import", "instructions", *args, "--json")
    assert result.exit_code == 0, result.output
    data: dict[str, Any] = json.loads(result.stdout)
    return data


def run(*args: str) -> Result:
    """Invoke the CLI in-process with separate stdout and stderr."""
    return CliRunner().invoke(cli, list(args), catch_exceptions=False)


def init_in(root: Path, *flags: str, monkeypatch: pytest.MonkeyPatch) -> tuple[int, str, str]:
    """`lessons init FLAGS` run in ``root``: exit code, stdout, stderr."""
    monkeypatch.chdir(root)
    result = CliRunner().invoke(cli, ["init", *flags])
    return result.exit_code, result.stdout, result.stderr


@pytest.fixture
def plain_repo(tmp_path: Path) -> Path:
    """A git repo without .lessons/ yet."""
    return make_repo(tmp_path / "repo", {"src/a.py": "x = 1\n"})


def lesson_count(layout: Layout) -> int:
    return len([n for n in os.listdir(layout.lessons_dir) if n.endswith(".json")])


def save_lesson(
    layout: Layout,
    lesson_id: str,
    rule: str,
    *,
    files: tuple[str, ...] = (),
    commands: tuple[str, ...] = (),
    keywords: tuple[str, ...] = (),
    topics: tuple[str, ...] = ("general",),
    created: str = "2026-01-01",
    rationale: str | None = None,
    status: Status = Status.ACTIVE,
    gate: bool = False,
    always: bool = False,
    enforce: bool = False,
    forbid: str | None = None,
) -> Lesson:
    """Write a lesson file directly (no capture guards), so any trigger can be tested."""
    lesson = Lesson(
        id=lesson_id,
        rule=rule,
        topics=topics,
        triggers=Triggers(files=files, commands=commands, keywords=keywords),
        created=created,
        status=status,
        rationale=rationale,
        superseded_by="other" if status is Status.SUPERSEDED else None,
        gate=gate,
        always=always,
        enforce=enforce,
        forbid=forbid,
    )
    assert create_lesson(layout, lesson)
    return lesson


def corpus_dir() -> Path:
    """The real agentsmesh corpus: the project's own copy under bench/corpus/."""
    return CORPUS


# The bin folder of the interpreter running the tests: the install a harness's hook finds
# through `lessons` on PATH, as on a machine where lessons was installed with pipx.
INSTALL_BIN = Path(sys.executable).parent


# Variables through which a host's own harness or lessons settings would reach a test.
HOST_SETTINGS = ("LESSONS_", "GEMINI_", "CODEX_", "COPILOT_", "QWEN_", "CLAUDE_")


def harness_env(root: Path, path_dirs: tuple[Path, ...] = (INSTALL_BIN,)) -> dict[str, str]:
    """The environment a harness gives a hook in ``root``: its project-dir variables, and a
    PATH of ``path_dirs`` and the folders of ``sh`` and ``git`` only, so that no lessons
    installed elsewhere on the machine is found. No harness settings of the host leak in."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(HOST_SETTINGS)}
    tools = {str(Path(found).parent) for name in ("sh", "git") if (found := shutil.which(name))}
    env["PATH"] = os.pathsep.join([*map(str, path_dirs), *sorted(tools)])
    for name in ("CLAUDE", "GEMINI", "COPILOT", "QWEN"):
        env[f"{name}_PROJECT_DIR"] = str(root)
    return env


def wired_here(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, *flags: str) -> Path:
    """A repo wired with `lessons init FLAGS` as the working directory, in the environment
    a harness gives a hook (``harness_env``), with a temp home and no harness variable of
    the host that would change where a client keeps its settings."""
    root = make_repo(tmp_path / "repo", {"src/a.py": "x = 1\n"})
    monkeypatch.chdir(root)
    for key in os.environ:
        if key.startswith(HOST_SETTINGS):
            monkeypatch.delenv(key)
    for key, value in harness_env(root).items():
        monkeypatch.setenv(key, value)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert run("init", *flags).exit_code == 0
    return root


def run_wired(
    command: str, root: Path, payload: str, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    """Run a hook command from a harness settings file the way harnesses do: ``sh -c``."""
    return subprocess.run(
        ["sh", "-c", command],
        input=payload,
        cwd=root,
        env=env if env is not None else harness_env(root),
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


@pytest.fixture(scope="session")
def lessons_wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A wheel built from this checkout, as a user's pip or pipx would build it."""
    folder = tmp_path_factory.mktemp("wheel")
    root = Path(__file__).resolve().parents[1]
    pip = (sys.executable, "-m", "pip", "--disable-pip-version-check", "-q")
    done = subprocess.run(
        [*pip, "wheel", "--no-deps", "-w", str(folder), str(root)],
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    (wheel,) = folder.glob("lessons-*.whl")
    return wheel
