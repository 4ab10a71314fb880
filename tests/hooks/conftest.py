"""Fixtures for hook tests: a project with .lessons/, lessons on disk, harness payloads."""

from __future__ import annotations

import io
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from lessons_cli.hook_runner import run_hook
from lessons_core.store.layout import Layout
from lessons_core.store.model import Lesson
from lessons_core.store.project import init_project
from tests.conftest import make_repo, save_lesson

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"


@pytest.fixture
def project(tmp_path: Path) -> Layout:
    """A git repo with src/a.py and an initialised .lessons/ (the cwd is left alone)."""
    layout, _ = init_project(make_repo(tmp_path / "repo", {"src/a.py": "x = 1\n"}))
    return layout


RELEASE_RULE = "Bump VERSION before running scripts/release.sh."
APP_RULE = "Keep src/app.py free of import-time side effects."


@pytest.fixture
def two_lessons(project: Layout) -> Layout:
    """The project with a command lesson on scripts/release.sh and a file lesson on
    src/app.py, the two the recorded Copilot and Qwen payloads touch."""
    write_lesson(project, "release-bump", RELEASE_RULE, commands=(r"scripts/release\.sh",))
    write_lesson(project, "code-app-import", APP_RULE, files=("src/app.py",))
    return project


def file_rules_as_context(layout: Layout) -> None:
    """``delivery_file: "context"``: a change whose rules no read brought runs, with them
    beside its result (the mode a test of the context path runs in)."""
    layout.config_path.write_text('{"delivery_file": "context"}\n')


def write_lesson(layout: Layout, lesson_id: str, rule: str, **fields: Any) -> Lesson:
    """Write a lesson file directly (no capture guards)."""
    return save_lesson(layout, lesson_id, rule, topics=("testing",), **fields)


def payload(harness: str, name: str, root: Path, **changes: Any) -> dict[str, Any]:
    """A stored payload with ``$PROJECT`` pointing at ``root``, top-level keys changed."""
    text = (FIXTURES / harness.replace("-", "_") / f"{name}.json").read_text()
    text = text.replace("$PROJECT", str(root)).replace("$HOME", str(root.parent / "home"))
    data: dict[str, Any] = json.loads(text)
    data.update(changes)
    return data


def hook_process(root: Path, data: dict[str, Any], harness: str = "claude-code") -> str:
    """The hook run as its own process, as the harness runs it; its stdout."""
    done = subprocess.run(
        [sys.executable, "-m", "lessons_cli", "hook", harness],
        input=json.dumps(data).encode(),
        capture_output=True,
        cwd=root,
        timeout=60,
        check=True,
    )
    return done.stdout.decode()


def call_hook(harness: str, data: dict[str, Any] | bytes) -> bytes:
    """Run the hook in-process; return what it wrote to stdout."""
    raw = data if isinstance(data, bytes) else json.dumps(data).encode()
    out = io.BytesIO()
    assert run_hook(harness, io.BytesIO(raw), out) == 0
    return out.getvalue()


def answer(harness: str, data: dict[str, Any]) -> dict[str, Any] | None:
    """The hook's parsed JSON answer, or None when it stayed silent."""
    out = call_hook(harness, data)
    return json.loads(out) if out else None
