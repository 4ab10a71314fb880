"""Which operating systems lessons runs on, and the message for the others.

Stores are shared by parallel hooks and writers through POSIX advisory locks (``fcntl``),
and the committed launcher ``.lessons/run`` is a POSIX shell script, so lessons runs on
Linux and macOS. Native Windows is refused up front, with the way that works there (WSL),
rather than failing on the first lock.
"""

from __future__ import annotations

import sys

SUPPORTED = "Linux and macOS"


def unsupported_platform(platform: str | None = None) -> str | None:
    """Why lessons cannot run on ``platform`` (default: this one), or None where it can."""
    name = sys.platform if platform is None else platform
    if name.startswith(("win", "cygwin", "msys")):
        return (
            f"lessons runs on {SUPPORTED}; native Windows is not supported (it needs POSIX "
            "file locks and a POSIX shell for its hooks): run it inside WSL"
        )
    return None
