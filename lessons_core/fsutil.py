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
import time
from typing import TYPE_CHECKING, BinaryIO

from lessons_core.containment import LeavesRepo, is_within, leaving_part
from lessons_core.errors import InvalidLessonFile, LessonsError

if TYPE_CHECKING:
    from pathlib import Path
    from types import TracebackType

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


def _write_temp(
    path: StrPath, data: bytes, *, durable: bool = True, mode: int | None = None
) -> str:
    """``data`` in a new temp file beside ``path`` (on disk, unless not ``durable``), with
    ``mode`` (default ``FILE_MODE``); returns the temp file's name.

    The temp file shares the folder so that a rename or link stays on one file system.
    """
    try:
        fd, tmp = _temp_beside(path)
    except OSError as err:
        raise _naming(err, path) from None
    try:
        os.fchmod(fd, FILE_MODE if mode is None else mode)
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            if durable:
                handle.flush()
                os.fsync(handle.fileno())
    except BaseException as err:
        unlink_if_there(tmp)
        if isinstance(err, OSError):  # a full disk, say: named by the file being written
            raise _naming(err, path) from None
        raise
    return tmp


def _naming(err: OSError, path: StrPath) -> OSError:
    """``err`` (same errno, same class) naming ``path``, the file that was being written."""
    return OSError(err.errno, err.strerror, os.fspath(path))


def atomic_write(
    path: StrPath, data: bytes, *, durable: bool = True, mode: int | None = None
) -> None:
    """Write ``data`` to ``path`` via a temp file and ``os.replace``.

    Readers see the old file or the new one, never a mix, whenever a process dies. With
    ``durable`` the data also reaches the disk before the rename (an ``fsync``), so a power cut
    cannot leave an empty file under the name either; state that is rebuilt or harmlessly
    forgotten (sessions, the index cache) can skip that.
    """
    tmp = _write_temp(path, data, durable=durable, mode=mode)
    try:
        os.replace(tmp, path)
    except BaseException:
        unlink_if_there(tmp)
        raise


def create_exclusive(path: StrPath, data: bytes, mode: int | None = None) -> bool:
    """Create ``path`` with ``data`` only if nothing is there yet; False when it exists.

    The content is written to a temp file first and hard-linked into place, so the name
    appears complete or not at all, and two writers racing for one name cannot both win.
    """
    tmp = _write_temp(path, data, mode=mode)
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


def open_regular(path: StrPath, *, follow_links: bool = False) -> BinaryIO:
    """``path`` open for reading; it must be a regular file (``NotRegularFile``), and
    itself one unless ``follow_links``.

    Opened with ``O_NONBLOCK`` and checked with ``fstat`` on the open file, so a FIFO or a
    device is refused without waiting for a writer, and a file swapped in between a check
    and the open cannot slip through.
    """
    flags = os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC
    try:
        fd = os.open(path, flags if follow_links else flags | os.O_NOFOLLOW)
    except OSError as err:
        if err.errno == errno.ELOOP and not follow_links:
            raise NotRegularFile(errno.ELOOP, "is a symbolic link", str(path)) from None
        raise
    handle = os.fdopen(fd, "rb")
    if not stat.S_ISREG(os.fstat(fd).st_mode):
        handle.close()
        raise NotRegularFile(errno.EINVAL, "is not a regular file", str(path))
    return handle


class TooLarge(OSError):
    """A file over the size lessons reads of its kind."""


def read_regular(path: StrPath, limit: int | None = None) -> bytes:
    """The bytes of ``path``, which must itself be a regular file (``NotRegularFile``) of
    at most ``limit`` bytes (``TooLarge``, judged by ``fstat`` before anything is read)."""
    with open_regular(path) as handle:
        if limit is None:
            return handle.read()
        size = os.fstat(handle.fileno()).st_size
        if size > limit:
            raise TooLarge(errno.EFBIG, f"is {size:,} bytes, over {limit:,}", str(path))
        return handle.read(limit + 1)[:limit]


def read_repo_text(root: StrPath, path: str, limit: int) -> str | None:
    """The text of the repo file ``path`` (relative to ``root``), or None when a part of
    it leads out of the repo, it is not a regular file, is over ``limit`` bytes or cannot
    be read. What the project's own files say is read this way: a link out of the repo
    is nothing of the project's."""
    if leaving_part(path, root) is not None:
        return None
    try:
        return read_regular(os.path.join(root, path), limit).decode("utf-8", "replace")
    except (OSError, ValueError):
        return None


def open_payload_file(path: object) -> BinaryIO | None:
    """A file a hook payload names (a transcript), open for reading: a regular file,
    links followed, opened without blocking; None for anything else (no path, a FIFO, a
    device, a folder, a file that cannot be opened). Callers read it within a bound of
    their own (docs/security.md)."""
    if not isinstance(path, str) or not path:
        return None
    try:
        return open_regular(path, follow_links=True)
    except (OSError, ValueError):  # ValueError: a NUL in the path
        return None


def read_payload_tail(path: object, limit: int) -> tuple[bytes, bool]:
    """The last ``limit`` bytes at most of the file ``path`` names (``open_payload_file``),
    and whether that is the whole file; (b"", True) when there is no such file."""
    handle = open_payload_file(path)
    if handle is None:
        return b"", True
    with handle:
        try:
            size = os.fstat(handle.fileno()).st_size
            handle.seek(max(0, size - limit))
            return handle.read(limit), size <= limit
        except OSError:
            return b"", True


# The most a lesson, topic or config file may hold, judged by ``fstat`` before it is read:
# the longest valid lesson (a 300-character rule, a 2,000-character rationale and a few
# dozen triggers) takes a few kB, and one committed file of megabytes must not cost
# every index build its parse (docs/format.md).
MAX_STORE_FILE_BYTES = 64 * 1024


def read_store_file(path: StrPath, limit: int | None = MAX_STORE_FILE_BYTES) -> bytes:
    """``read_regular`` for a lesson, topic or config file: a link, a special file or a
    file over ``limit`` bytes is reported as a broken file of the store
    (``InvalidLessonFile``)."""
    try:
        return read_regular(path, limit)
    except NotRegularFile as err:
        raise InvalidLessonFile(
            path,
            f"{err.strerror}; keep lesson, topic and config files as plain files",
            kind="unparsable",
        ) from None
    except TooLarge as err:
        raise too_large(path, err) from None


def too_large(path: StrPath, err: OSError) -> InvalidLessonFile:
    """The error of a store file over ``MAX_STORE_FILE_BYTES`` (``TooLarge``)."""
    return InvalidLessonFile(
        path,
        f"{err.strerror} bytes, the most a lesson, topic or config file may hold; "
        "move long text into the evidence it links to",
        kind="too-large",
    )


def output_target(path: Path, root: Path) -> Path:
    """Where to write a file the user named (``export --output``, ``report --html``): one
    named in the repo goes where ``write_target`` says (every part of it inside the
    repo); one named outside the repo is the user's own choice and is written as named."""

    from pathlib import Path  # noqa: PLC0415 (the CLI's only: a hook keeps to strings)

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

    found = leaving_part(path, root)
    if found is not None:
        what = "file" if found[0] == os.path.abspath(path) else "folder"
        fix = f"edit that file by hand, or replace the link with a {what} of the repo"
        raise LeavesRepo(*found, fix=fix)
    if not path.is_symlink():
        return path
    from pathlib import Path  # noqa: PLC0415 (the CLI's only: a hook keeps to strings)

    return Path(os.path.realpath(path))


# How long a lock is waited for. Another process (another user's, even) can hold a flock
# as long as it likes, so no wait is unbounded: a command gives up after
# ``LOCK_WAIT_SECONDS`` with an error naming the lock file, and a hook sets a deadline for
# all its waits together (``set_deadline``), well under any harness's hook timeout: with
# ``MIN_LOCK_WAIT_SECONDS`` for each of its few locks.
LOCK_WAIT_SECONDS = 15.0
_deadline: list[float] = []  # the hook's deadline (time.monotonic), when one is set
# Past the deadline, each lock is still waited for this long: a session's lock is held
# briefly, and a hook that gave up on a slow index build (on a loaded machine) still
# records what it shows, so parallel hooks do not show one rule twice.
MIN_LOCK_WAIT_SECONDS = 0.5


def set_deadline(seconds: float | None) -> None:
    """Bound every lock wait of this process from now on to ``seconds`` in total (None:
    each to ``LOCK_WAIT_SECONDS`` again)."""

    _deadline[:] = [] if seconds is None else [time.monotonic() + seconds]


class LockBusy(LessonsError):
    """A lock another process held for longer than this one may wait."""

    def __init__(self, path: StrPath, waited: float) -> None:
        super().__init__(
            f"{path} stayed locked by another process for {waited:.1f} s; wait for it to "
            "finish, or find the process holding it (fuser on that file) and end it"
        )


# Problems a hook worked around (a session it could not write, a lock it could not get):
# what it served is still right, but a later call may repeat a rule; the hook logs them.
NOTED: list[BaseException] = []


NOTED_KEPT = 20  # a long-lived process (the MCP server) never logs them: keep a few


def note(problem: BaseException) -> None:
    """Keep ``problem`` for the hook's log (once per kind and message)."""
    if len(NOTED) < NOTED_KEPT and not any(
        type(p) is type(problem) and str(p) == str(problem) for p in NOTED
    ):
        NOTED.append(problem)


def _flock(fd: int, path: StrPath) -> None:
    """An exclusive ``flock`` on ``fd``, waited for within the bound (``LockBusy``)."""

    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        return
    except BlockingIOError:
        pass

    start = time.monotonic()
    until = start + LOCK_WAIT_SECONDS
    if _deadline:
        until = min(until, max(_deadline[0], start + MIN_LOCK_WAIT_SECONDS))
    pause = 0.001
    while True:
        now = time.monotonic()
        if now >= until:
            raise LockBusy(path, now - start)
        time.sleep(min(pause, until - now))
        pause = min(pause * 2, 0.05)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return
        except BlockingIOError:
            continue


class locked:  # used like the function it was: ``with locked(path):``
    """Hold an exclusive ``flock`` on ``lock_path`` for the duration of the block, waiting
    for it at most as long as ``LOCK_WAIT_SECONDS`` and the deadline allow (``LockBusy``).

    Lock files are 0600: anyone who can open one can flock it, and so stall every hook
    until it gives up; a file made readable to others earlier is made private again.
    """

    def __init__(self, lock_path: StrPath) -> None:
        self._path = lock_path
        self._fd = -1

    def __enter__(self) -> None:
        os.makedirs(os.path.dirname(os.fspath(self._path)) or ".", exist_ok=True)
        flags = os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC
        try:
            fd = os.open(self._path, flags, 0o600)
        except OSError as err:
            if err.errno != errno.ELOOP:
                raise
            raise LessonsError(
                f"{self._path} is a symbolic link; remove it (lessons creates its own lock files)"
            ) from None
        try:
            mode = os.fstat(fd).st_mode
            if not stat.S_ISREG(mode):
                raise LessonsError(
                    f"{self._path} is not a regular file; remove it "
                    "(lessons creates its own lock files)"
                )
            if mode & 0o077:
                # Another user's file cannot be changed: the wait is bounded anyway.
                with contextlib.suppress(PermissionError):
                    os.fchmod(fd, 0o600)
            _flock(fd, self._path)
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
        fd, self._fd = self._fd, -1
        try:
            fcntl.flock(fd, fcntl.LOCK_UN)
        finally:
            os.close(fd)
