"""``.lessons/run``, the committed launcher, and the hook commands that call it.

Harness settings are committed and shared, so a hook command cannot name one machine's
interpreter. It runs ``sh <project>/.lessons/run hook HARNESS`` instead; the launcher
(``launcher.sh`` beside this module, docs/hooks.md) finds the lessons installed on the
machine it runs on and runs it isolated, or stays silent where there is none.
"""

from __future__ import annotations

import os
from pathlib import Path

from lessons_core.fsutil import atomic_write
from lessons_core.layout import Layout

NAME = "run"
_TEXT = Path(__file__).with_name("launcher.sh")


def launcher_text() -> bytes:
    return _TEXT.read_bytes()


def write_launcher(layout: Layout) -> bool:
    """Put the launcher at ``.lessons/run`` (executable); True if it was missing or stale.

    The file is the same for every clone and machine, so a second person's ``lessons
    init`` leaves it untouched.
    """
    path = layout.base / NAME
    text = launcher_text()
    if path.is_file() and not path.is_symlink() and path.read_bytes() == text:
        return False
    atomic_write(path, text)
    os.chmod(path, 0o755)
    return True


def hook_command(harness: str, project_dir_var: str | None, store: str = "") -> str:
    """The command a harness runs for ``lessons hook HARNESS``.

    ``project_dir_var`` is the variable the harness sets to the project folder (Claude
    Code's ``CLAUDE_PROJECT_DIR``); without one the git top level is asked, so the hook
    works from any folder of the repo. ``store`` is the store's folder relative to that
    project folder ("" at its top). ``|| true``: a launcher missing on some branch must
    not turn into a failed hook, which a harness may read as a refusal.
    """
    base = (
        f"${project_dir_var}"
        if project_dir_var
        else "$(git rev-parse --show-toplevel 2>/dev/null || pwd)"
    )
    folder = f"{base}/{store.strip('/')}" if store.strip("/") else base
    return f'sh "{folder}/.lessons/{NAME}" hook {harness} || true'
