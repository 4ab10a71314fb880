"""Atomic writes and an advisory lock: a crash never leaves half a file behind.

Reads and locks never follow a symbolic link in the last step of a path: a repo can commit
a link where a lesson, config or lock file belongs, and lessons must not read or create
what it points at (outside the repo, or a FIFO that would block a hook forever).
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import os
import stat
from collections.abc import Iterator
from pathlib import Path
from typing import BinaryIO

from lessons_core.errors import InvalidLessonFile, LessonsError

# mkstemp creates files 0600; lesson files are committed and shared, so give them the
# mode a plain open() would (0666 less the umask).
_UMASK = os.umask(0)
os.umask(_UMASK)
FILE_MODE = 0o666 & ~_UMASK


def _write_temp(path: Path, data: bytes) -> str:
    """``data`` durably in a new temp file beside ``path``; returns the temp file's name.

    The temp file shares the folder so that a rename or link stays on one file system.
    """
    fd, tmp = _temp_beside(path)
    try:
        os.fchmod(fd, FILE_MODE)
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        raise
    return tmp


def atomic_write(path: Path, data: bytes) -> None:
    """Write ``data`` to ``path`` via a temp file and ``os.replace``.

    Readers see the old file or the new one, never a mix.
    """
    tmp = _write_temp(path, data)
    try:
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        raise


def create_exclusive(path: Path, data: bytes) -> bool:
    """Create ``path`` with ``data`` only if nothing is there yet; False when it exists.

    The content is written to a temp file first and hard-linked into place, so the name
    appears complete or not at all, and two writers racing for one name cannot both win.
    """
    tmp = _write_temp(path, data)
    try:
        os.link(tmp, path)
    except FileExistsError:
        return False
    finally:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
    return True


def _temp_beside(path: Path) -> tuple[int, str]:
    """A new, empty ``.NAME.RANDOM.tmp`` file in ``path``'s folder, open for writing.

    What ``tempfile.mkstemp`` does, without importing tempfile (and random, and hashlib's
    OpenSSL bindings) into every hook that writes a session file.
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC
    while True:
        tmp = str(path.parent / f".{path.name}.{os.urandom(6).hex()}.tmp")
        try:
            return os.open(tmp, flags, 0o600), tmp
        except FileExistsError:
            continue


class NotRegularFile(OSError):
    """A path that is a symbolic link, a FIFO, a device or a folder, not a plain file."""


def open_regular(path: Path) -> BinaryIO:
    """``path`` open for reading; it must itself be a regular file (``NotRegularFile``)."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError as err:
        if err.errno == errno.ELOOP:
            raise NotRegularFile(errno.ELOOP, "is a symbolic link", str(path)) from None
        raise
    handle = os.fdopen(fd, "rb")
    if not stat.S_ISREG(os.fstat(fd).st_mode):
        handle.close()
        raise NotRegularFile(errno.EINVAL, "is not a regular file", str(path))
    return handle


def read_regular(path: Path) -> bytes:
    """The bytes of ``path``, which must itself be a regular file (``NotRegularFile``)."""
    with open_regular(path) as handle:
        return handle.read()


def read_store_file(path: Path) -> bytes:
    """``read_regular`` for a lesson, topic or config file: a link or a special file is
    reported as a broken file of the store (``InvalidLessonFile``)."""
    try:
        return read_regular(path)
    except NotRegularFile as err:
        raise InvalidLessonFile(
            path,
            f"{err.strerror}; keep lesson, topic and config files as plain files",
            kind="unparsable",
        ) from None


def write_target(path: Path, root: Path) -> Path:
    """Where writing ``path`` must go: ``path``, or the file its symbolic link leads to.

    Replacing a link would quietly cut it (``CLAUDE.md -> AGENTS.md`` would become a
    copy), so the write goes through to the target; a target outside ``root`` is refused.
    """
    if not path.is_symlink():
        return path
    target = Path(os.path.realpath(path))
    if not target.is_relative_to(Path(os.path.realpath(root))):
        raise LessonsError(
            f"{path} is a symbolic link to {target}, outside {root}; lessons only writes "
            "inside the repo: edit that file by hand, or replace the link with a file"
        )
    return target


@contextlib.contextmanager
def locked(lock_path: Path) -> Iterator[None]:
    """Hold an exclusive ``flock`` on ``lock_path`` for the duration of the block."""
    lock_path.parent.mkdir(parents=True, exist_ok=True)
    try:
        fd = os.open(lock_path, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC, 0o644)
    except OSError as err:
        if err.errno != errno.ELOOP:
            raise
        raise LessonsError(
            f"{lock_path} is a symbolic link; remove it (lessons creates its own lock files)"
        ) from None
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        fcntl.flock(fd, fcntl.LOCK_UN)
        os.close(fd)
