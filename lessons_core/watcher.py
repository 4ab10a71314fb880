"""The background watcher of a lessons folder: ``python -I -m lessons_core.watcher FOLDER``.

See ``lessons_core.watch`` for what it is for and how hooks trust it. This process
watches FOLDER and every lesson file in it with inotify (through ctypes: the standard
library has no binding), binds the folder's abstract socket name, and answers each
connection with ``instance counter dev inode`` after reading every event the kernel has
queued. A watch on each file, not only on the folder, is what reports an edit made
through another name of the file (a hard link elsewhere) and a new link being made.

It never starts on a file system whose changes may not all pass through this kernel
(NFS, SMB, FUSE, 9p, virtiofs: an edit made by another machine or the host raises no
event here), nor when any watch cannot be set (the per-user limit). It exits at once if
another watcher holds the name, and later when the folder is deleted or moved, its file
system unmounted, a watch cannot be set for a new file, or nobody has asked for
``IDLE_SECONDS``.
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
FOLDER_EVENTS = (
    IN_MODIFY | IN_ATTRIB | IN_CLOSE_WRITE | IN_MOVED_FROM | IN_MOVED_TO | IN_CREATE
    | IN_DELETE | IN_DELETE_SELF | IN_MOVE_SELF | IN_ONLYDIR | IN_DONT_FOLLOW
)  # fmt: skip
FILE_EVENTS = IN_MODIFY | IN_ATTRIB | IN_CLOSE_WRITE | IN_DELETE_SELF | IN_MOVE_SELF
GONE = IN_DELETE_SELF | IN_MOVE_SELF | IN_UNMOUNT | IN_IGNORED
_EVENT = struct.Struct("iIII")  # wd, mask, cookie, name length

# File systems whose every change goes through the local kernel, so inotify sees it.
LOCAL_FILE_SYSTEMS = frozenset(
    {
        "ext2",
        "ext3",
        "ext4",
        "xfs",
        "btrfs",
        "tmpfs",
        "f2fs",
        "bcachefs",
        "jfs",
        "reiserfs",
        "overlay",
    }
)


class Gone(Exception):
    """The count can no longer vouch for the folder: it went, or a file went unwatched."""


def file_system(path: str, mountinfo: str = "/proc/self/mountinfo") -> str:
    """The type of the file system ``path`` (real, absolute) is on; '' if unknown."""
    best, kind = "", ""
    try:
        with open(mountinfo, encoding="utf-8", errors="replace") as lines:
            for line in lines:
                fields = line.split()
                if "-" not in fields[6:]:
                    continue
                point = fields[4].replace("\\040", " ").replace("\\011", "\t")
                inside = path == point or path.startswith(point.rstrip("/") + "/")
                if inside and len(point) >= len(best):
                    best, kind = point, fields[fields.index("-", 6) + 1]
    except (OSError, IndexError):
        return ""
    return kind


class Inotify:
    """An inotify descriptor on the folder and each ``*.json`` file in it."""

    def __init__(self, folder: str) -> None:
        self._libc = ctypes.CDLL(None, use_errno=True)
        fd: int = self._libc.inotify_init1(os.O_NONBLOCK | os.O_CLOEXEC)
        if fd < 0:
            raise OSError(ctypes.get_errno(), "inotify_init1 failed")
        self.fd, self.folder = fd, folder
        self.folder_wd = self._watch(folder, FOLDER_EVENTS)
        for name in os.listdir(folder):  # after the folder's watch: no file is missed
            self.add(name)

    def _watch(self, path: str, events: int) -> int:
        wd: int = self._libc.inotify_add_watch(self.fd, os.fsencode(path), events)
        if wd < 0:
            raise OSError(ctypes.get_errno(), f"inotify_add_watch failed for {path}")
        return wd

    def add(self, name: str) -> None:
        """Watch the lesson file ``name`` (a file gone already needs no watch)."""
        if not name.endswith(".json"):
            return
        try:
            self._watch(os.path.join(self.folder, name), FILE_EVENTS | IN_DONT_FOLLOW)
        except FileNotFoundError:
            return

    def drain(self) -> int:
        """Read every queued event; how many there were (``Gone``: stop vouching)."""
        count = 0
        while True:
            try:
                data = os.read(self.fd, 65536)
            except BlockingIOError:
                return count
            offset = 0
            while offset + _EVENT.size <= len(data):
                wd, mask, _cookie, length = _EVENT.unpack_from(data, offset)
                name = data[offset + _EVENT.size : offset + _EVENT.size + length]
                offset += _EVENT.size + length
                count += 1  # every event counts, an overflow (wd -1) too
                if wd == self.folder_wd and mask & GONE:
                    raise Gone
                if wd == self.folder_wd and mask & (IN_CREATE | IN_MOVED_TO):
                    try:
                        self.add(os.fsdecode(name.rstrip(b"\0")))
                    except OSError:
                        raise Gone from None  # a file nobody watches: stop vouching


def serve(folder: str) -> None:
    """Watch ``folder`` and answer until it goes or nobody asks any more."""
    if file_system(os.path.realpath(folder)) not in LOCAL_FILE_SYSTEMS:
        return
    watched = Inotify(folder)
    found = os.stat(folder)  # after the watches are set: the folder they watch
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
        ready, _, _ = select.select([watched.fd, server.fileno()], [], [], left)
        try:
            counter += watched.drain()
        except Gone:
            return
        if server.fileno() in ready:
            connection, _ = server.accept()
            with connection:
                try:
                    counter += watched.drain()  # what happened before this question
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
            sys.exit(0)  # no inotify, a watch limit, a folder gone: hooks check every file
