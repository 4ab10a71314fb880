"""Where a repo's past Claude Code and Codex CLI sessions are kept, newest first.

Claude Code writes one JSONL file per session under
``$CLAUDE_CONFIG_DIR/projects/<folder>/`` (``~/.claude`` by default), where ``<folder>`` is
the folder the session ran in with every character that is not an ASCII letter or digit
replaced by ``-``; a name longer than 200 characters is cut there and a hash appended
(read from the client's bundle, 2.1.x). Only sessions started at the repo's root are
found this way; others can be passed as files.

Codex CLI writes ``$CODEX_HOME/sessions/YYYY/MM/DD/rollout-*.jsonl`` (``~/.codex`` by
default) for every project alike; a file is this repo's when the folder its first line
names is the repo's root or inside it.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

from lessons_core.harvest.codex_rollouts import rollout_folder

MAX_FOLDER_CHARS = 200
DEFAULT_RECENT = 10


def claude_projects_dir() -> Path:
    config = os.environ.get("CLAUDE_CONFIG_DIR")
    return (Path(config) if config else Path.home() / ".claude") / "projects"


def project_folder_name(root: Path) -> str:
    return re.sub(r"[^a-zA-Z0-9]", "-", str(root))


def recent_sessions(root: Path, limit: int = DEFAULT_RECENT) -> list[Path]:
    """The ``limit`` newest session files of ``root``, of either client."""
    found = claude_sessions(root, limit) + codex_sessions(root, limit)
    found.sort(key=_modified, reverse=True)
    return found[:limit]


def codex_sessions_dir() -> Path:
    home = os.environ.get("CODEX_HOME")
    return (Path(home) if home else Path.home() / ".codex") / "sessions"


def codex_sessions(root: Path, limit: int) -> list[Path]:
    """The ``limit`` newest Codex session files that ran in ``root`` or below it."""
    files = sorted(codex_sessions_dir().glob("*/*/*/rollout-*.jsonl"), key=_modified, reverse=True)
    inside = str(root).rstrip("/") + "/"
    kept: list[Path] = []
    for path in files:
        folder = rollout_folder(path)
        if folder is not None and (folder == str(root) or folder.startswith(inside)):
            kept.append(path)
            if len(kept) == limit:
                break
    return kept


def _modified(path: Path) -> float:
    return path.stat().st_mtime


def claude_sessions(root: Path, limit: int) -> list[Path]:
    """The ``limit`` newest session files Claude Code kept for ``root``."""
    projects = claude_projects_dir()
    name = project_folder_name(root)
    if len(name) <= MAX_FOLDER_CHARS:
        folders = [projects / name]
    else:
        folders = sorted(projects.glob(f"{name[:MAX_FOLDER_CHARS]}-*"))
    files = [path for folder in folders if folder.is_dir() for path in folder.glob("*.jsonl")]
    files.sort(key=_modified, reverse=True)
    return files[:limit]
