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

from lessons_core.layout import DIR_NAME
from lessons_core.secrets import mask_secrets

MAX_LOG_BYTES = 256 * 1024
MAX_LINE_CHARS = 500


def log_path(root: Path) -> Path:
    return root / DIR_NAME / "local" / "hook.log"


def log_failure(root: Path, harness: str, event: str, error: BaseException) -> None:
    """Append ``time harness event ErrorType: message`` as one line; never raises."""
    message = " ".join(str(error).split())
    line = f"{time.strftime('%Y-%m-%dT%H:%M:%S')} {harness} {event or '-'} "
    line += mask_secrets(f"{type(error).__name__}: {message}")[:MAX_LINE_CHARS]
    path = log_path(root)
    with contextlib.suppress(OSError):
        path.parent.mkdir(parents=True, exist_ok=True)
        with contextlib.suppress(FileNotFoundError):
            if path.stat().st_size > MAX_LOG_BYTES:
                os.replace(path, path.with_name(path.name + ".1"))
        # O_APPEND writes of one short line are atomic, so parallel hooks never interleave.
        fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
        try:
            os.write(fd, (line + "\n").encode("utf-8", "replace"))
        finally:
            os.close(fd)
