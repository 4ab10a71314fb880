"""``.lessons/run``, the committed launcher, and the hook commands that call it.

Harness settings are committed and shared, so a hook command cannot name one machine's
interpreter. It runs ``sh <project>/.lessons/run hook HARNESS`` instead; the launcher
(``launcher.sh`` beside this module, docs/hooks.md) finds the lessons installed on the
machine it runs on and runs it isolated, or stays silent where there is none.
"""

from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path

from lessons_core.fsutil import atomic_write
from lessons_core.store.layout import Layout

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
    Code's ``CLAUDE_PROJECT_DIR``). Without one, the hook runs in the project folder as a
    rule, so the launcher is looked for there first, and git is asked for the top level
    only when it is not (a session started in a subfolder): no process is started in the
    usual case. ``store`` is the store's folder relative to that project folder ("" at
    its top). ``|| true``: a launcher missing on some branch must not turn into a failed
    hook, which a harness may read as a refusal.
    """
    below = f"{_sh_quoted(store.strip('/'))}/" if store.strip("/") else ""
    launcher = f".lessons/{NAME}"
    if project_dir_var:
        return f'sh "${project_dir_var}/{below}{launcher}" hook {harness} || true'
    return (
        f'r=.; [ -f "{below}{launcher}" ] || r=$(git rev-parse --show-toplevel 2>/dev/null); '
        f'sh "$r/{below}{launcher}" hook {harness} || true'
    )


def _sh_quoted(text: str) -> str:
    """``text`` made literal inside a double-quoted shell word."""
    for special in ("\\", "$", "`", '"'):
        text = text.replace(special, "\\" + special)
    return text


def launcher_target(command: str, root: Path, project_dir_var: str | None) -> Path | None:
    """The launcher file a hook command of ours opens when the harness runs it in ``root``
    (None for a command that runs no launcher), found by the shell itself."""
    found = re.search(r'sh ("[^"]*/\.lessons/' + NAME + r'") hook ', command)
    if found is None:
        return None
    probe = command[: found.start()] + f"printf '%s' {found.group(1)}"
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin")}
    if project_dir_var:
        env[project_dir_var] = str(root)
    try:
        done = subprocess.run(
            ["sh", "-c", probe],
            cwd=root,
            env=env,
            capture_output=True,
            text=True,
            timeout=30,
            check=False,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    return root / done.stdout
