"""Where a repo's past Claude Code sessions are kept, newest first.

Claude Code writes one JSONL file per session under
``$CLAUDE_CONFIG_DIR/projects/<folder>/`` (``~/.claude`` by default), where ``<folder>`` is
the folder the session ran in with every character that is not an ASCII letter or digit
replaced by ``-``; a name longer than 200 characters is cut there and a hash appended
(read from the client's bundle, 2.1.x). Only sessions started at the repo's root are
found this way; others can be passed as files.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

MAX_FOLDER_CHARS = 200
DEFAULT_RECENT = 10


def claude_projects_dir() -> Path:
    config = os.environ.get("CLAUDE_CONFIG_DIR")
    return (Path(config) if config else Path.home() / ".claude") / "projects"


def project_folder_name(root: Path) -> str:
    return re.sub(r"[^a-zA-Z0-9]", "-", str(root))


def recent_sessions(root: Path, limit: int = DEFAULT_RECENT) -> list[Path]:
    """The ``limit`` newest session files Claude Code kept for ``root``."""
    projects = claude_projects_dir()
    name = project_folder_name(root)
    if len(name) <= MAX_FOLDER_CHARS:
        folders = [projects / name]
    else:
        folders = sorted(projects.glob(f"{name[:MAX_FOLDER_CHARS]}-*"))
    files = [path for folder in folders if folder.is_dir() for path in folder.glob("*.jsonl")]
    files.sort(key=lambda path: path.stat().st_mtime, reverse=True)
    return files[:limit]
