"""The background watcher of a lessons folder: ``python -m lessons_core.watcher FOLDER``.

See ``lessons_core.watch`` for what it is for and how hooks trust it. This process
watches FOLDER with inotify (through ctypes: the standard library has no binding), binds
the folder's abstract socket name, and answers each connection with ``instance counter
dev inode`` after reading every event the kernel has queued. It exits at once if another
watcher holds the name, and later when the folder is deleted or moved, its file system
unmounted, or nobody has asked for ``IDLE_SECONDS``.
"""

from __future__ import annotations

import ctypes
import os
import select
import socket
import struct
import sys
import time

from lessons_core.watch import IDLE_SECONDS, address

IN_MODIFY, IN_ATTRIB, IN_CLOSE_WRITE = 0x2, 0x4, 0x8
IN_MOVED_FROM, IN_MOVED_TO, IN_CREATE, IN_DELETE = 0x40, 0x80, 0x100, 0x200
IN_DELETE_SELF, IN_MOVE_SELF, IN_UNMOUNT, IN_IGNORED = 0x400, 0x800, 0x2000, 0x8000
IN_ONLYDIR, IN_DONT_FOLLOW = 0x01000000, 0x02000000
WATCHED = (
    IN_MODIFY | IN_ATTRIB | IN_CLOSE_WRITE | IN_MOVED_FROM | IN_MOVED_TO | IN_CREATE
    | IN_DELETE | IN_DELETE_SELF | IN_MOVE_SELF | IN_ONLYDIR | IN_DONT_FOLLOW
)  # fmt: skip
GONE = IN_DELETE_SELF | IN_MOVE_SELF | IN_UNMOUNT | IN_IGNORED
_EVENT = struct.Struct("iIII")  # wd, mask, cookie, name length


class Gone(Exception):
    """The watched folder was deleted, moved or unmounted: the count means nothing now."""


def open_inotify(folder: str) -> int:
    """An inotify descriptor watching ``folder`` (non-blocking); OSError if none."""
    libc = ctypes.CDLL(None, use_errno=True)
    fd: int = libc.inotify_init1(os.O_NONBLOCK | os.O_CLOEXEC)
    if fd < 0:
        raise OSError(ctypes.get_errno(), "inotify_init1 failed")
    if libc.inotify_add_watch(fd, os.fsencode(folder), WATCHED) < 0:
        os.close(fd)
        raise OSError(ctypes.get_errno(), "inotify_add_watch failed")
    return fd


def drain(fd: int) -> int:
    """Read every queued event; how many there were (``Gone`` if the folder went)."""
    count = 0
    while True:
        try:
            data = os.read(fd, 65536)
        except BlockingIOError:
            return count
        offset = 0
        while offset + _EVENT.size <= len(data):
            _wd, mask, _cookie, length = _EVENT.unpack_from(data, offset)
            if mask & GONE:
                raise Gone
            count += 1  # an overflow (IN_Q_OVERFLOW) counts too: something changed
            offset += _EVENT.size + length


def serve(folder: str) -> None:
    """Watch ``folder`` and answer until it goes or nobody asks any more."""
    fd = open_inotify(folder)
    found = os.stat(folder)  # after the watch is set: the folder it watches
    server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        server.bind(address(found.st_dev, found.st_ino))
    except OSError:
        return  # another watcher has the folder
    server.listen(64)
    instance, counter = os.urandom(8).hex(), 0
    asked = time.monotonic()
    while True:
        left = IDLE_SECONDS - (time.monotonic() - asked)
        if left <= 0:
            return
        ready, _, _ = select.select([fd, server.fileno()], [], [], left)
        try:
            counter += drain(fd)
        except Gone:
            return
        if server.fileno() in ready:
            connection, _ = server.accept()
            with connection:
                try:
                    counter += drain(fd)  # what happened before this question
                except Gone:
                    return
                answer = f"{instance} {counter} {found.st_dev} {found.st_ino}\n"
                try:
                    connection.sendall(answer.encode())
                except OSError:
                    continue
            asked = time.monotonic()


if __name__ == "__main__":
    if len(sys.argv) == 2:
        try:
            serve(sys.argv[1])
        except OSError:
            sys.exit(0)  # no inotify, a folder gone already: hooks check every file
