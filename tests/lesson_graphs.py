"""Real projects for the maintainer commands: a git repo with files, .lessons/, lessons.

Lessons are written straight to disk (not through capture), because validate, review and
report exist to judge files people edited by hand.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Any

from lessons_core.jsonio import dumps
from lessons_core.store.config import Config
from lessons_core.store.layout import Layout
from lessons_core.store.project import init_project
from lessons_core.telemetry.log import record_failure, record_recall
from tests.conftest import make_repo

# Enough files that share-based checks (broad globs) have something to judge.
DEFAULT_FILES = (
    "README.md",
    "pyproject.toml",
    "src/app.py",
    "src/cli/main.py",
    "src/cli/args.py",
    "src/db/models.py",
    "src/db/session.py",
    "src/db/migrations/001_init.sql",
    "src/db/migrations/002_users.sql",
    "docs/guide.md",
    "docs/api.md",
    "tests/test_app.py",
)


def make_project(root: Path, files: Iterable[str] = DEFAULT_FILES, **config: Any) -> Layout:
    """A git repo with ``files`` and an initialised .lessons/ (config overrides applied)."""
    make_repo(root, {name: f"# {name}\n" for name in files})
    layout, _ = init_project(root)
    if config:
        layout.config_path.write_bytes(dumps(Config(**config).to_dict()))
    return layout


def lesson_data(
    lesson_id: str,
    rule: str,
    *,
    files: Iterable[str] = (),
    commands: Iterable[str] = (),
    keywords: Iterable[str] = (),
    status: str = "active",
    created: str = "2026-01-01",
    **extra: Any,
) -> dict[str, Any]:
    data: dict[str, Any] = {
        "id": lesson_id,
        "rule": rule,
        "topics": [lesson_id.split("-", maxsplit=1)[0]],
        "triggers": {
            "files": list(files),
            "commands": list(commands),
            "keywords": list(keywords),
        },
        "evidence": [],
        "status": status,
        "created": created,
    }
    data.update(extra)
    return data


def write_lesson(layout: Layout, lesson_id: str, rule: str, **fields: Any) -> Path:
    """Write one lesson file as a person would (no capture guards)."""
    path = layout.lesson_path(lesson_id)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(dumps(lesson_data(lesson_id, rule, **fields)))
    return path


def write_raw(layout: Layout, name: str, text: str) -> Path:
    path = layout.lessons_dir / name
    path.write_text(text)
    return path


def log_recall(
    layout: Layout, key: str, delivered: list[str], session: str = "s1", tokens: int = 40
) -> None:
    """Log one PreToolUse recall through the real telemetry API (telemetry on)."""
    record_recall(
        layout,
        Config(telemetry=True),
        event="PreToolUse",
        key=key,
        candidates=delivered,
        delivered=delivered,
        tokens=tokens if delivered else 0,
        session=session,
    )


def log_failure(layout: Layout, key: str, session: str = "s1") -> bool:
    """Log a PostToolUseFailure on ``key`` (written only after a delivery for it)."""
    return record_failure(
        layout, Config(telemetry=True), event="PostToolUseFailure", key=key, session=session
    )
