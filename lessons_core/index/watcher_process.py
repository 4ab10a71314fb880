"""The background watcher of a lessons folder:
``python -I -m lessons_core.index.watcher_process FOLDER``.

See ``lessons_core.index.watcher_client`` for what it is for and how hooks trust it. This process
watches FOLDER and every lesson file in it with inotify (through ctypes: the standard
library has no binding), binds the folder's abstract socket name, and answers each
connection with ``instance counter dev inode`` after reading every event the kernel has
queued. A watch on each file, not only on the folder, is what reports an edit made
through another name of the file (a hard link elsewhere) and a new link being made.

It never starts on a file system whose changes may not all pass through this kernel
(NFS, SMB, FUSE, 9p, virtiofs: an edit made by another machine or the host raises no
event here; overlay: an edit to a lower layer raises none either), nor when the files
would take more than half of the user's inotify watches or any watch cannot be
set; it then leaves a note so hooks do not try again for a while. It exits at once if
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

from lessons_core.fsutil import atomic_write
from lessons_core.index.watcher_client import IDLE_SECONDS, address
from lessons_core.store.layout import LOCAL, WATCH_REFUSED

IN_MODIFY, IN_ATTRIB, IN_CLOSE_WRITE = 0x2, 0x4, 0x8
IN_MOVED_FROM, IN_MOVED_TO, IN_CREATE, IN_DELETE = 0x40, 0x80, 0x100, 0x200
IN_DELETE_SELF, IN_MOVE_SELF, IN_UNMOUNT, IN_IGNORED = 0x400, 0x800, 0x2000, 0x8000
IN_Q_OVERFLOW, IN_ONLYDIR, IN_DONT_FOLLOW = 0x4000, 0x01000000, 0x02000000
FOLDER_EVENTS = (
    IN_MODIFY
    | IN_ATTRIB
    | IN_CLOSE_WRITE
    | IN_MOVED_FROM
    | IN_MOVED_TO
    | IN_CREATE
    | IN_DELETE
    | IN_DELETE_SELF
    | IN_MOVE_SELF
    | IN_ONLYDIR
)  # fmt: skip (the folder is named by /proc/self/fd/N, a link that must be followed)
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
    }
)


class Gone(Exception):
    """The count can no longer vouch for the folder: it went, or a file went unwatched."""


def file_system(device: int, mountinfo: str = "/proc/self/mountinfo") -> str:
    """The type of the file system on ``device`` (a ``st_dev``); '' if unknown or if its
    mounts disagree. Matched by device number, not by path: mount points may hold any
    character, escaped in the table."""
    wanted = f"{os.major(device)}:{os.minor(device)}"
    kinds: set[str] = set()
    try:
        with open(mountinfo, encoding="utf-8", errors="replace") as lines:
            for line in lines:
                fields = line.split()
                if len(fields) > 2 and fields[2] == wanted and "-" in fields[6:]:
                    kinds.add(fields[fields.index("-", 6) + 1])
    except (OSError, IndexError):
        return ""
    return kinds.pop() if len(kinds) == 1 else ""


def watch_budget(files: int, limits: str = "/proc/sys/fs/inotify/max_user_watches") -> bool:
    """Whether watching ``files`` files leaves at least half of the user's inotify watches
    to other programs (editors, build tools): the limit is 8,192 on kernels before 5.11,
    where a 6,000-lesson store is not watched, and scales with memory after."""
    try:
        with open(limits, encoding="ascii") as handle:
            limit = int(handle.read().strip())
    except (OSError, ValueError):
        return False
    return files + 1 <= limit // 2


class Inotify:
    """An inotify descriptor on the folder and each ``*.json`` file in it."""

    def __init__(self, folder: str) -> None:
        self._libc = ctypes.CDLL(None, use_errno=True)
        fd: int = self._libc.inotify_init1(os.O_NONBLOCK | os.O_CLOEXEC)
        if fd < 0:
            raise OSError(ctypes.get_errno(), "inotify_init1 failed")
        self.fd = fd
        # Files are named through a descriptor of the folder itself, so they stay the
        # folder's files when the repo (or any folder above) is moved or renamed.
        self.folder_fd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
        self.folder = f"/proc/self/fd/{self.folder_fd}"
        self.folder_wd = self._watch(self.folder, FOLDER_EVENTS)
        for name in os.listdir(self.folder_fd):  # after the folder's watch: none missed
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
                # The folder's descriptor keeps a deleted folder's inode alive, and with
                # it the watch (no IN_DELETE_SELF): a folder without links is gone.
                if os.fstat(self.folder_fd).st_nlink == 0:
                    raise Gone from None
                return count
            offset = 0
            while offset + _EVENT.size <= len(data):
                wd, mask, _cookie, length = _EVENT.unpack_from(data, offset)
                name = data[offset + _EVENT.size : offset + _EVENT.size + length]
                offset += _EVENT.size + length
                count += 1  # every event counts
                if wd == -1 or mask & IN_Q_OVERFLOW:
                    raise Gone  # events were lost: a new file may have gone unwatched
                if wd == self.folder_wd and mask & GONE:
                    raise Gone
                if wd == self.folder_wd and mask & (IN_CREATE | IN_MOVED_TO):
                    try:
                        self.add(os.fsdecode(name.rstrip(b"\0")))
                    except OSError:
                        raise Gone from None  # a file nobody watches: stop vouching


def serve(folder: str) -> None:
    """Watch ``folder`` and answer until it goes or nobody asks any more."""
    if file_system(os.stat(folder).st_dev) not in LOCAL_FILE_SYSTEMS:
        refuse(folder, "not a local file system")
        return
    if not watch_budget(len(os.listdir(folder))):
        refuse(folder, "too many files for the inotify watch limit")
        return
    try:
        watched = Inotify(folder)
    except OSError as err:
        refuse(folder, f"cannot watch ({err.strerror})")
        return
    found = os.fstat(watched.folder_fd)  # the folder the watches are on
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
        # Woken every few seconds at least: a deleted folder raises no event while the
        # watcher holds it open (see drain), so its link count is looked at then.
        ready, _, _ = select.select([watched.fd, server.fileno()], [], [], min(left, 5))
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


def refuse(folder: str, why: str) -> None:
    """Leave a note beside the store so that hooks stop starting watchers for a while
    (``lessons_core.store.layout.WATCH_REFUSED``)."""
    local = os.path.join(os.path.dirname(folder), LOCAL)
    try:
        atomic_write(os.path.join(local, WATCH_REFUSED), f"{why}\n".encode(), durable=False)
    except OSError:
        return


if __name__ == "__main__":
    if len(sys.argv) == 2:
        try:
            serve(sys.argv[1])
        except OSError:
            sys.exit(0)  # no inotify, a watch limit, a folder gone: hooks check every file
