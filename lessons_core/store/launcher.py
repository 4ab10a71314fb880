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
    below = _below(store)
    launcher = f".lessons/{NAME}"
    if project_dir_var:
        return f'sh "${project_dir_var}/{below}{launcher}" hook {harness} || true'
    return f'{_find_top(below)}; sh "$r/{below}{launcher}" hook {harness} || true'


def server_command(project_dir_var: str | None, store: str = "") -> str:
    """The shell command a harness starts for ``lessons mcp``, the same way as the hooks.

    The project folder is ``project_dir_var`` when the harness sets it for its servers,
    else the folder the server starts in, else git's top level (other clients read the
    same file: Copilot CLI reads ``.mcp.json`` too). It runs in the store's folder, so
    the server finds the store and reads relative paths in a tool call from there.
    ``exec``: the client's signals and its closing of stdin reach the server itself, not
    a shell waiting on it.
    """
    below = _below(store)
    start = f"${{{project_dir_var}:-.}}" if project_dir_var else "."
    return f'{_find_top(below, start)}; cd "$r/{below}" && exec sh .lessons/{NAME} mcp'


def _below(store: str) -> str:
    return f"{_sh_quoted(store.strip('/'))}/" if store.strip("/") else ""


def _find_top(below: str, start: str = ".") -> str:
    """Sets ``r`` to the project folder: ``start`` when the launcher is there (no process
    started), else git's top level."""
    here = "" if start == "." else "$r/"
    return (
        f'r={start}; [ -f "{here}{below}.lessons/{NAME}" ] '
        "|| r=$(git rev-parse --show-toplevel 2>/dev/null)"
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
    said = _shell_says(probe, root, project_dir_var)
    return None if said is None else root / said


def server_launcher(command: str, root: Path, project_dir_var: str | None) -> Path | None:
    """The launcher file a ``server_command`` of ours runs when a harness starts it in
    ``root`` (None for a command of another form), found by the shell itself."""
    tail = f"exec sh .lessons/{NAME} mcp"
    if not command.endswith(tail):
        return None
    folder = (_shell_says(command[: -len(tail)] + "pwd", root, project_dir_var) or "").strip()
    return Path(folder) / ".lessons" / NAME if folder else None


def _shell_says(probe: str, root: Path, project_dir_var: str | None) -> str | None:
    """What ``sh -c PROBE`` prints in ``root``, with ``project_dir_var`` set to it."""
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
    return done.stdout
