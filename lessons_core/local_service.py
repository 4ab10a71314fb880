"""Background processes a hook talks to over a local socket (Linux): the index watcher
(``lessons_core.index.watcher_client``) and the hook server (``lessons_cli.hook_client``).

Both listen on a name in Linux's abstract socket namespace: no file to leave behind or
to check, no path length limit, gone when the process is. Any user may connect to or
bind such a name, so each side trusts the other only when the kernel says it runs as
the same user (``SO_PEERCRED``): a hook never reads text from another user's process,
and a server never works for another user.

Each is started from a hook in the background, at most once every few seconds (a
marker file in ``.lessons/local/`` holds when), in a session of its own, with ``/`` for
its working directory, /dev/null for its standard streams and no other descriptor of
the hook's: the harness waits for the hook's output to close, never for them.

Only ``os`` and ``sys`` are imported here, and ``_socket`` (not ``socket``, which imports
``enum`` and more) when a socket is needed: a hook that finds its server warm pays for
little else, and one with the server turned off (or not on Linux) does not load even
``_socket``, a shared library that takes 0.6-1 ms to load.
"""

from __future__ import annotations

import os
import sys

TYPE_CHECKING = False  # typing costs a hook ~8 ms: lessons_core.records
if TYPE_CHECKING:
    from collections.abc import Callable, Mapping, Sequence
    from socket import socket
    from types import ModuleType
    from typing import TypeAlias

    Connection: TypeAlias = "tuple[socket, int]"  # a socket, the pid at its end


def _sockets() -> ModuleType | None:
    """CPython's socket module, loaded on first use; None where there is none."""
    try:
        import _socket
    except ImportError:
        return None
    return _socket


def available() -> bool:
    """Whether this system has abstract socket names and ``SO_PEERCRED``, and this
    interpreter CPython's socket module."""
    return sys.platform.startswith("linux") and _sockets() is not None


def peer(sock: socket) -> tuple[int, int]:
    """``(pid, uid)`` of the process at the other end of the connected ``sock``."""
    sockets = _sockets()
    if sockets is None:
        raise OSError("no socket module")
    credentials = sock.getsockopt(sockets.SOL_SOCKET, sockets.SO_PEERCRED, 12)
    return (
        int.from_bytes(credentials[0:4], sys.byteorder, signed=True),
        int.from_bytes(credentials[4:8], sys.byteorder),
    )


def connect(address: bytes, timeout: float) -> Connection | None:
    """A connection to ``address`` and the pid of the process there, if one of this
    user's processes listens there; None otherwise (``OSError`` is never raised)."""
    sockets = _sockets()
    if sockets is None or not available():
        return None
    try:
        sock: socket = sockets.socket(sockets.AF_UNIX, sockets.SOCK_STREAM)
    except OSError:
        return None
    try:
        sock.settimeout(timeout)
        sock.connect(address)
        pid, uid = peer(sock)
    except OSError:
        sock.close()
        return None
    if uid != os.getuid():
        sock.close()
        return None
    return sock, pid


def read_up_to(read: Callable[[int], bytes], limit: int) -> bytes:
    """What ``read`` (a stream's ``read``, a socket's ``recv``) gives, a block at a time
    (``read(n)`` with a large ``n`` would allocate ``n`` bytes up front), until it gives
    nothing or more than ``limit`` bytes have come: then the caller refuses them all.
    The hook's input is read this way too, in the hook client and the hook runner."""
    blocks: list[bytes] = []
    size = 0
    while size <= limit:
        block = read(1 << 16)
        if not block:
            break
        blocks.append(block)
        size += len(block)
    return b"".join(blocks)


def read_all(sock: socket, limit: int) -> bytes:
    """What ``sock`` sends until it closes, at most ``limit`` bytes (more: ``ValueError``)."""
    data = read_up_to(sock.recv, limit)
    if len(data) > limit:
        raise ValueError(f"more than {limit:,} bytes")
    return data


def age(path: str) -> float | None:
    """Seconds since ``path`` (a marker) was last touched; None if there is none."""
    import time

    try:
        return time.time() - os.lstat(path).st_mtime
    except FileNotFoundError:
        return None


def spawn(marker: str, command: Sequence[str], env: Mapping[str, str]) -> None:
    """Touch ``marker`` (never through a link), then start ``command`` in the background
    (see the module docstring); ``OSError`` if the marker cannot be touched."""
    fd = os.open(marker, os.O_WRONLY | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC, 0o644)
    try:
        os.utime(fd)
    finally:
        os.close(fd)
    streams = [
        (os.POSIX_SPAWN_OPEN, number, os.devnull, flags, 0)
        for number, flags in ((0, os.O_RDONLY), (1, os.O_WRONLY), (2, os.O_WRONLY))
    ]
    # Spawned from a short-lived child that is waited for at once, so the process is
    # nobody's child once it runs and never lingers as a zombie of a long-lived caller.
    pid = os.fork()
    if pid == 0:
        try:
            os.chdir("/")  # never keeps a file system busy
            os.closerange(3, os.sysconf("SC_OPEN_MAX"))
            os.posix_spawn(command[0], list(command), dict(env), file_actions=streams, setsid=True)
        finally:
            os._exit(0)
    os.waitpid(pid, 0)
