"""The files of the repo: what git tracks, or a walk honouring .gitignore outside git."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pathspec

_SKIP_DIRS = frozenset({".git", ".lessons", "node_modules", ".venv", "__pycache__"})


def tracked_files(root: Path) -> list[str]:
    """Repo-relative POSIX paths: git's tracked and untracked-but-not-ignored files."""
    try:
        result = subprocess.run(
            ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
            cwd=root,
            capture_output=True,
            check=True,
            timeout=60,
        )
    except (OSError, subprocess.SubprocessError):
        return walked_files(root)
    names = result.stdout.decode("utf-8", "surrogateescape").split("\0")
    return sorted({name for name in names if name and not name.startswith(".lessons/")})


def walked_files(root: Path) -> list[str]:
    """Every file below ``root``, skipping what a top-level .gitignore excludes."""
    ignore_file = root / ".gitignore"
    lines = ignore_file.read_text(errors="replace").splitlines() if ignore_file.exists() else []
    spec = pathspec.PathSpec.from_lines("gitignore", lines)
    found: list[str] = []
    for dirpath, dirnames, filenames in os.walk(root):
        rel_dir = os.path.relpath(dirpath, root).replace(os.sep, "/")
        prefix = "" if rel_dir == "." else rel_dir + "/"
        dirnames[:] = sorted(
            d for d in dirnames if d not in _SKIP_DIRS and not spec.match_file(prefix + d + "/")
        )
        found.extend(prefix + name for name in filenames if not spec.match_file(prefix + name))
    return sorted(found)
