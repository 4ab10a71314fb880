"""Atomic writes and an advisory lock: a crash never leaves half a file behind.

Reads and locks never follow a symbolic link in the last step of a path: a repo can commit
a link where a lesson, config or lock file belongs, and lessons must not read or create
what it points at (outside the repo, or a FIFO that would block a hook forever).
"""

from __future__ import annotations

import errno
import os
import stat

from lessons_core.containment import LeavesRepo, is_within, leaving_part
from lessons_core.errors import InvalidLessonFile, LessonsError

# The hook writes session files and takes locks through this module on every call, so it
# imports neither pathlib nor typing nor contextlib (~8 ms each, with what they pull in):
# paths are strings or path objects, used through os.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from pathlib import Path
    from types import TracebackType
    from typing import BinaryIO

    from lessons_core.errors import StrPath

# mkstemp creates files 0600; lesson files are committed and shared, so give them the
# mode a plain open() would (0666 less the umask).
_UMASK = os.umask(0)
os.umask(_UMASK)
FILE_MODE = 0o666 & ~_UMASK


def unlink_if_there(path: StrPath) -> None:
    """Remove ``path``; one already gone is fine."""
    try:
        os.unlink(path)
    except FileNotFoundError:
        return


def _write_temp(path: StrPath, data: bytes, *, durable: bool = True) -> str:
    """``data`` in a new temp file beside ``path`` (on disk, unless not ``durable``);
    returns the temp file's name.

    The temp file shares the folder so that a rename or link stays on one file system.
    """
    fd, tmp = _temp_beside(path)
    try:
        os.fchmod(fd, FILE_MODE)
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            if durable:
                handle.flush()
                os.fsync(handle.fileno())
    except BaseException:
        unlink_if_there(tmp)
        raise
    return tmp


def atomic_write(path: StrPath, data: bytes, *, durable: bool = True) -> None:
    """Write ``data`` to ``path`` via a temp file and ``os.replace``.

    Readers see the old file or the new one, never a mix, whenever a process dies. With
    ``durable`` the data also reaches the disk before the rename (an ``fsync``, ~5 ms on
    a VM), so a power cut cannot leave an empty file under the name either; state that is
    rebuilt or harmlessly forgotten (sessions, the index cache) can skip that.
    """
    tmp = _write_temp(path, data, durable=durable)
    try:
        os.replace(tmp, path)
    except BaseException:
        unlink_if_there(tmp)
        raise


def create_exclusive(path: StrPath, data: bytes) -> bool:
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
        unlink_if_there(tmp)
    return True


def _temp_beside(path: StrPath) -> tuple[int, str]:
    """A new, empty ``.NAME.RANDOM.tmp`` file in ``path``'s folder, open for writing.

    What ``tempfile.mkstemp`` does, without importing tempfile (and random, and hashlib's
    OpenSSL bindings) into every hook that writes a session file.
    """
    folder, name = os.path.split(os.fspath(path))
    os.makedirs(folder or ".", exist_ok=True)
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC
    while True:
        tmp = os.path.join(folder, f".{name}.{os.urandom(6).hex()}.tmp")
        try:
            return os.open(tmp, flags, 0o600), tmp
        except FileExistsError:
            continue


class NotRegularFile(OSError):
    """A path that is a symbolic link, a FIFO, a device or a folder, not a plain file."""


def open_regular(path: StrPath) -> BinaryIO:
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


def read_regular(path: StrPath) -> bytes:
    """The bytes of ``path``, which must itself be a regular file (``NotRegularFile``)."""
    with open_regular(path) as handle:
        return handle.read()


def read_store_file(path: StrPath) -> bytes:
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


def output_target(path: Path, root: Path) -> Path:
    """Where to write a file the user named (``export --output``, ``report --html``): one
    named in the repo goes where ``write_target`` says (every part of it inside the
    repo); one named outside the repo is the user's own choice and is written as named."""
    from pathlib import Path  # writes outside the hook path only

    absolute = Path(os.path.abspath(path))
    if is_within(str(absolute), os.path.abspath(root)):
        return write_target(absolute, root)
    return path


def write_target(path: Path, root: Path) -> Path:
    """Where writing ``path`` must go: ``path``, or the file its symbolic link leads to.

    Replacing a link would quietly cut it (``CLAUDE.md -> AGENTS.md`` would become a
    copy), so the write goes through to the target. A path any part of which leads out of
    ``root`` (``.claude -> ~/.claude``, or the file itself) is refused (``LeavesRepo``).
    """
    from pathlib import Path  # writes outside the hook path only

    found = leaving_part(path, root)
    if found is not None:
        what = "file" if found[0] == os.path.abspath(path) else "folder"
        fix = f"edit that file by hand, or replace the link with a {what} of the repo"
        raise LeavesRepo(*found, fix=fix)
    if not path.is_symlink():
        return path
    return Path(os.path.realpath(path))


class locked:  # used like the function it was: ``with locked(path):``
    """Hold an exclusive ``flock`` on ``lock_path`` for the duration of the block."""

    def __init__(self, lock_path: StrPath) -> None:
        self._path = lock_path
        self._fd = -1

    def __enter__(self) -> None:
        import fcntl

        os.makedirs(os.path.dirname(os.fspath(self._path)) or ".", exist_ok=True)
        flags = os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC
        try:
            fd = os.open(self._path, flags, 0o644)
        except OSError as err:
            if err.errno != errno.ELOOP:
                raise
            raise LessonsError(
                f"{self._path} is a symbolic link; remove it (lessons creates its own lock files)"
            ) from None
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)
        except BaseException:
            os.close(fd)
            raise
        self._fd = fd

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        import fcntl

        fd, self._fd = self._fd, -1
        try:
            fcntl.flock(fd, fcntl.LOCK_UN)
        finally:
            os.close(fd)
