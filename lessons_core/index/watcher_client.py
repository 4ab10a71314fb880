"""A watcher that spares large stores the per-file freshness check (Linux only).

Checking the cached index against 50,000 lesson files takes 50,000 ``stat`` calls, ~60 ms
on two cores. For a store of ``watch_from`` files or more (config.json, default 5,000)
the hook starts a small background process instead (``lessons_core.index.watcher_process``): it
watches the lessons folder with inotify, counts every change the kernel reports, and
answers on a local socket with ``instance counter dev inode``. The kernel queues an
event before the write that caused it returns, and the watcher reads every queued event
before it answers, so a change made before a hook asks is always in the count.

How a hook uses it (``lessons_core.index.cache``):

1. ask the watcher first, before the cache is opened: ``state`` (None: no watcher);
2. if ``state`` and the cache file it opened equal what ``verified`` holds, no file
   changed since that very cache file was last checked against every file: use it, no
   stat;
3. otherwise check every file as before; when the cache proves fresh, ``record`` the
   state asked for in step 1 with the cache file's identity (device, inode, size,
   times). A change after step 1 raised the count, so the next hook checks every file
   again; a cache written since (a rebuild that finished late) is another file.

A watcher is trusted only if it runs as the same user (``SO_PEERCRED``) and watches the
very folder (device and inode) the hook sees; anything else, a missing watcher or a slow
one (50 ms), means the full check. It watches each lesson file as well as the folder,
so an edit through another name of a file (a hard link elsewhere) is counted too, and
it does not run where inotify cannot see every change (network and FUSE file systems;
see ``lessons_core.index.watcher_process``). The socket is in Linux's abstract namespace
(no file, no path length limit), named after the folder's device and inode. A watcher exits when the
folder is removed or moved, or after 30 minutes without a question.

Not seen: writes through a shared memory map of a lesson file until it is unmapped.
"""

from __future__ import annotations

import os
import sys

from lessons_core import local_service
from lessons_core.store.layout import WATCH_REFUSED, WATCH_STARTED, WATCH_VERIFIED

TYPE_CHECKING = False  # typing costs a hook ~8 ms: lessons_core.records
if TYPE_CHECKING:
    from lessons_core.store.layout import Layout

SPAWN_EVERY_SECONDS = 10  # a watcher takes ~0.1 s to start; hooks meanwhile do not pile up
# Written by a watcher that cannot watch this store
# (lessons_core.index.watcher_process.refuse); hooks then start none for this long.
REFUSED_SECONDS = 600
ANSWER_SECONDS = 0.05
IDLE_SECONDS = 30 * 60


def address(dev: int, ino: int) -> bytes:
    """The watcher's socket name for the folder ``(dev, ino)`` (abstract namespace)."""
    return f"\0lessons-watch-{dev:x}-{ino:x}".encode()


def state(folder: str) -> str | None:
    """``"instance counter"`` from the watcher of ``folder``; None when there is none we
    can trust (see the module docstring)."""
    if not local_service.available():
        return None
    try:
        found = os.stat(folder)
    except OSError:
        return None
    connection = local_service.connect(address(found.st_dev, found.st_ino), ANSWER_SECONDS)
    if connection is None:
        return None
    sock, _pid = connection
    try:
        data = local_service.read_all(sock, 256)
    except (OSError, ValueError):
        return None
    finally:
        sock.close()
    parts = data.decode("ascii", "replace").split()
    if len(parts) != 4 or parts[2:] != [str(found.st_dev), str(found.st_ino)]:
        return None
    return f"{parts[0]} {parts[1]}"


def verified(layout: Layout) -> str | None:
    """The watcher state recorded when the cache last passed the full check."""
    from lessons_core.fsutil import read_regular

    try:
        return read_regular(layout.local(WATCH_VERIFIED)).decode("ascii").strip()
    except (OSError, UnicodeDecodeError):
        return None


def record(layout: Layout, seen: str) -> None:
    """Note that the cache passed the full check after the watcher said ``seen``; a record
    that cannot be written only means the next hook checks every file again."""
    from lessons_core.fsutil import atomic_write

    try:
        atomic_write(layout.local(WATCH_VERIFIED), f"{seen}\n".encode(), durable=False)
    except OSError:
        return


def watcher_command(python: str, folder: str) -> list[str]:
    """The watcher's command line. -I: not the working directory (the repo) first on
    sys.path, as -m alone would do, nor PYTHON* variables. The folder lessons_core was
    imported from goes last on the path, so an install that isolated mode cannot see by
    itself (pip --user) starts too."""
    import lessons_core

    above = os.path.dirname(os.path.dirname(os.path.abspath(lessons_core.__file__)))
    start = (
        f"import runpy, sys; {above!r} in sys.path or sys.path.append({above!r}); "
        "runpy.run_module('lessons_core.index.watcher_process', run_name='__main__', "
        "alter_sys=True)"
    )
    return [python, "-I", "-c", start, os.path.abspath(folder)]


def start(layout: Layout, folder: str) -> None:
    """Start a watcher for ``folder`` in the background, at most once every few seconds;
    never raises (a hook without a watcher checks every file).

    The process gets a session of its own, ``/`` for its working directory, /dev/null for
    its standard streams and no other descriptor of the hook's, so the harness, which
    waits for the hook's output to close, never waits for it.
    """
    if not local_service.available():
        return
    from lessons_core.index.file_scan import fork_is_safe

    if not fork_is_safe():
        return
    try:
        _start(layout, folder)
    except Exception:  # fail open: the full check still runs
        return


def _start(layout: Layout, folder: str) -> None:
    started = local_service.age(layout.local(WATCH_STARTED))
    refused = local_service.age(layout.local(WATCH_REFUSED))
    if started is not None and started < SPAWN_EVERY_SECONDS:
        return
    if refused is not None and refused < REFUSED_SECONDS:
        return
    command = watcher_command(sys.executable, folder)
    local_service.spawn(layout.local(WATCH_STARTED), command, os.environ)
