"""The hook's local log: one line per failure, so a hook can fail open and still be debugged.

A hook never shows its own errors to the agent (a crash must not block or distract it);
it appends one line here instead. The log is per clone (under ``.lessons/local/``), masked
for secrets, and kept small by rolling over to ``hook.log.1``.
"""

from __future__ import annotations

import contextlib
import os
import time
from pathlib import Path

from lessons_core.authoring.secrets import mask_secrets
from lessons_core.containment import leaving_part
from lessons_core.store.layout import HOOK_LOG, Layout

MAX_LOG_BYTES = 256 * 1024
MAX_LINE_CHARS = 500
MAX_EVENT_CHARS = 40


def log_path(root: str | os.PathLike[str]) -> Path:
    return Path(Layout(os.fspath(root)).local(HOOK_LOG))


def log_failure(
    root: str | os.PathLike[str], harness: str, event: str, error: BaseException
) -> None:
    """Append ``time harness event ErrorType: message`` as one line; never raises.

    The event name and the message come from the harness's input, so the whole line is
    made printable (no newline can forge a second entry, no escape sequence reaches a
    terminal), masked for secrets and only then cut to length.
    """
    name = _clean(event or "-")[:MAX_EVENT_CHARS]
    line = time.strftime("%Y-%m-%dT%H:%M:%S") + " "
    line += f"{harness} {name} {_clean(f'{type(error).__name__}: {error}')}"[:MAX_LINE_CHARS]
    path = log_path(root)
    if leaving_part(path.parent, root) is not None:
        return  # .lessons or local/ leads out of the repo: nowhere to log that stays inside
    with contextlib.suppress(OSError):
        path.parent.mkdir(parents=True, exist_ok=True)
        with contextlib.suppress(FileNotFoundError):
            if path.lstat().st_size > MAX_LOG_BYTES:
                os.replace(path, path.with_name(path.name + ".1"))
        # O_APPEND writes of one short line are atomic, so parallel hooks never interleave.
        # O_NOFOLLOW: a hook.log that is a symbolic link (committed by a hostile repo, say)
        # is not written through to whatever it points at.
        flags = os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_NOFOLLOW
        fd = os.open(path, flags, 0o644)
        try:
            os.write(fd, (line + "\n").encode("utf-8", "replace"))
        finally:
            os.close(fd)


def _clean(text: str) -> str:
    """``text`` on one printable line with secrets masked (masked before any cut, so no
    part of a token survives)."""
    printable = "".join(char if char.isprintable() else " " for char in text)
    return mask_secrets(" ".join(printable.split()))
