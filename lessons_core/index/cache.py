"""The recall index cached under ``.lessons/local/``: checked on every use.

Every recall first compares the lesson files with what the cache was built from: the list
of ``*.json`` names and, per file, ``(mtime_ns, ctime_ns, size, inode, links)``. Any difference
(a file added, deleted, renamed, rewritten, touched, edited in place) means a rebuild.

Stat data alone can miss one edit: a file rewritten in place with the same size within
one tick of the file system's clock after it was read keeps all four values (a tick is a
jiffy on Linux, a second or two on some file systems). As git does with its index ("racy
git"), the build first reads the file system's own clock (by touching its lock file) and
reads every lesson file after that; a file whose ctime is not older than that clock could
still change unseen, so its bytes are kept in the cache and compared on every check. Any
later edit of any other file gets a ctime after the clock, so its stat data differs.
ctime, unlike mtime, cannot be set back by a program.

The folder is listed again only when its own stat data changed: adding, removing or
renaming a file changes it, rewriting one does not, and every file is stat-ed anyway. A
folder changed at or after the clock is listed on every check, as a racy file is read.

A store of ``sampled_check_from`` files or more (config.json, default 5,000) is checked
in two parts per call: the folder's own stat data, which every added, removed or renamed
file changes (lessons, git and most editors write by renaming a new file into place), and
one window of ``WINDOW_FILES`` files, the next one on the next call. An edit in place of
a file is then seen within as many calls as the store has windows (50 at 50,000 files)
rather than on the next one; in exchange no call stats every file, and no process other
than the hook's own is needed.

A rebuild re-reads only files whose stat data changed: each file's compiled triggers are
kept in the cache too (``lessons_core.index.build.Digest``), so adding one lesson to
50,000 costs one parse plus the assembly, not 50,000 parses and glob compilations.

Writes are atomic (temp file, then rename), so a reader sees the old file or the new one.
Rebuilds take a lock, and a process that waited for it re-checks before building again.
A missing, damaged or foreign-version cache is rebuilt, never trusted; a store whose
``local/`` cannot be written is indexed in memory on every call. A damaged window piece,
read by a large store's check alone, is rewritten too, though every file is current, and
so is a cache whose folder stat changed for a file that is no lesson: else every later
call would fail its check on it and pay the full one.
"""

from __future__ import annotations

import errno
import os
import stat
import time
from typing import TYPE_CHECKING, Any, TypeAlias

from lessons_core.errors import InvalidLessonFile, LessonsError
from lessons_core.fsutil import (
    MAX_STORE_FILE_BYTES,
    atomic_write,
    locked,
    note,
    open_regular,
    read_regular,
    too_large,
)
from lessons_core.index.file_format import CorruptIndex, Reader, read_index
from lessons_core.index.file_scan import (
    NUMBERS,
    UNREADABLE,
    Listing,
    Scan,
    pack,
    stat_numbers,
    unpack,
)
from lessons_core.index.file_scan import signature as signature_of
from lessons_core.store.layout import CHECK_WINDOW, INDEX_CACHE, INDEX_LOCK

if TYPE_CHECKING:
    from collections.abc import Callable

    from lessons_core.errors import InvalidLessonFile
    from lessons_core.index.entries import RecallIndex
    from lessons_core.store.layout import Layout

    # A file's record in the cache: ("ok", digest fields) or ("broken", problem, key).
    FileRecord: TypeAlias = tuple[Any, ...]
    # An index and the lesson files that failed to parse.
    Found: TypeAlias = tuple[RecallIndex, list[InvalidLessonFile]]


class Meta:
    """What the cache was built from. The index file's header holds the counts, the
    folder's stat data and the broken files; the names and stat data of every lesson file
    (megabytes at 50,000 files) are parts of their own, read only by a check."""

    __slots__ = ("_parts", "_reader", "broken", "files", "folder_stat")

    def __init__(
        self, files: int, folder_stat: tuple[int, ...], broken: Any, reader: Reader | None = None
    ) -> None:
        self.files, self.folder_stat, self.broken = files, folder_stat, broken
        self._reader = reader
        self._parts: dict[str, Any] = {}

    @classmethod
    def built(cls, data: tuple[Any, ...]) -> Meta:
        """The metadata of a build (``_build``'s ``(names, stats, racy, broken, folder_stat)``)."""
        names, stats, racy, broken, folder_stat = data
        meta = cls(len(stats) // (NUMBERS * 8), tuple(folder_stat), broken)
        meta._parts.update(names=names, stats=stats, racy=racy)
        return meta

    @classmethod
    def read(cls, reader: Reader) -> Meta:
        """The metadata of the index file ``reader`` holds."""
        try:
            files, folder_stat, racy, broken = reader.meta
            meta = cls(int(files), tuple(folder_stat), tuple(broken), reader)
        except (TypeError, ValueError):
            raise CorruptIndex("index metadata malformed") from None
        if not racy:
            meta._parts["racy"] = ()
        return meta

    def _part(self, name: str, kind: type) -> Any:
        found = self._parts.get(name)
        if found is None:
            found = self._reader.value(name) if self._reader is not None else None
            if not isinstance(found, kind):
                raise CorruptIndex(f"index part {name!r} malformed")
            self._parts[name] = found
        return found

    @property
    def names(self) -> str:
        """The lesson files' names, in the order of their stat data, joined by NULs."""
        names: str = self._part("names", str)
        return names

    @property
    def stats(self) -> bytes:
        """Their stat data, packed (``file_scan.pack``)."""
        stats: bytes = self._part("stats", bytes)
        return stats

    @property
    def racy(self) -> tuple[tuple[str, bytes], ...]:
        """(name, bytes) of the files changed within the build's clock tick."""
        racy: tuple[tuple[str, bytes], ...] = self._part("racy", tuple)
        return racy

    def listing(self) -> Listing | None:
        """The folder listing the cache was built from; None when it may not be reused."""
        if tuple(self.folder_stat) == UNREADABLE:
            return None
        return Listing(tuple(self.folder_stat), self.names.split("\0") if self.names else [])

    def scan(self, folder: str) -> Scan:
        """The folder now, listed again only if its own stat data changed."""
        return Scan(folder, self.listing())

    def is_fresh(self, scan: Scan, folder: str) -> bool:
        """Whether the files are exactly those indexed (racy ones compared byte by byte)."""
        if self.stats != scan.stats:
            return False
        if scan.listed and self.names != "\0".join(scan.names):
            return False
        return racy_unchanged(folder, self.racy)

    def is_sampled_current(self, folder: str, window: int) -> bool:
        """Whether the folder is unchanged (no file added, removed or renamed: every write
        of lessons, git and most editors is a rename) and the files of ``window`` (a share
        of ``WINDOW_FILES``) have their indexed stat data. A folder changed within the
        build's clock tick, or racy files, fall back to ``is_current``. ``CorruptIndex``
        when the parts it reads are damaged: the caller must then rewrite the cache."""
        if tuple(self.folder_stat) == UNREADABLE or self.racy:
            return self.is_current(folder)
        try:
            fd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY)
        except OSError:
            return False
        try:
            if signature_of(os.fstat(fd)) != tuple(self.folder_stat):
                return False
            names, stats = self.window(window)
            return pack(stat_numbers(fd, names)) == stats
        finally:
            os.close(fd)

    def window(self, number: int) -> tuple[list[str], bytes]:
        """The names of the files of window ``number`` and their indexed stat data, from
        the part the build cut per window: reading every name and every file's stat data
        costs a large store more than the window's stats themselves."""
        if self._reader is not None and self._reader.value("window_files") == WINDOW_FILES:
            kept = self._reader.seq("windows")
            found = kept[number] if number < len(kept) else None
            if isinstance(found, tuple) and len(found) == 2:
                names, stats = found
                if isinstance(names, str) and isinstance(stats, bytes):
                    return names.split("\0"), stats
            raise CorruptIndex("index part 'windows' malformed")
        first, width = number * WINDOW_FILES, NUMBERS * 8
        names = self.names.split("\0")[first : first + WINDOW_FILES]
        return names, self.stats[first * width : (first + len(names)) * width]

    def is_current(self, folder: str, scan: Scan | None = None) -> bool:
        """``is_fresh`` against ``scan`` (by default the folder now); False when the parts
        it reads are damaged."""
        try:
            return self.is_fresh(scan or self.scan(folder), folder)
        except CorruptIndex:
            return False


def racy_unchanged(folder: str, racy: Any) -> bool:
    """Whether each racy file (name, bytes kept at the build) still holds those bytes: the
    one edit stat data can miss (see the module's docstring)."""
    if not racy:
        return True

    for name, raw in racy:
        try:  # never through a link, nor into a FIFO
            if read_regular(os.path.join(folder, name), MAX_STORE_FILE_BYTES) != raw:
                return False
        except OSError:
            return False
    return True


def cached_index(
    layout: Layout, *, sampled_from: int = 0
) -> tuple[RecallIndex, list[InvalidLessonFile]]:
    """The index of ``layout``'s lesson files, from the cache when it is fresh, and the
    files that failed to parse.

    From ``sampled_from`` lesson files on (0: never), a call checks the folder and one
    window of ``WINDOW_FILES`` files, the next window on the next call
    (``Meta.is_sampled_current``).
    """
    folder = layout.under("lessons")
    opened = _open(layout)
    damaged = None
    if opened is not None:
        reader, meta = opened
        try:
            if sampled_from and meta.files >= sampled_from:
                fresh = meta.is_sampled_current(folder, _next_window(layout, meta.files))
            else:
                fresh = meta.is_current(folder)
        except CorruptIndex:
            fresh = False
        if fresh:
            return read_index(reader), _broken(layout, meta)
        # The rebuild must write even where its full check passes: a piece only this
        # check reads (a window's) may be damaged, or the folder's own stat may have
        # changed for a file that is no lesson (an editor's swap file). Left as it is,
        # every later call would fail the same check and pay for the full one.
        damaged = reader.identity()
    return _rebuild(layout, trust=True, damaged=damaged)


# Files a call of a large store checks: a window's stats cost about what a small store's
# whole check does (docs/performance.md).
WINDOW_FILES = 1000


def windows(names: str, stats: bytes) -> tuple[tuple[str, bytes], ...]:
    """Each window of ``WINDOW_FILES`` files: their names joined by NULs (as ``names``
    joins every name) and their packed stat data, the last window short."""
    every = names.split("\0") if names else []
    width = NUMBERS * 8
    return tuple(
        (
            "\0".join(every[first : first + WINDOW_FILES]),
            stats[first * width : (first + WINDOW_FILES) * width],
        )
        for first in range(0, len(every), WINDOW_FILES)
    )


def _next_window(layout: Layout, files: int) -> int:
    """The window this call checks: the one after the last call's (kept in ``local/``), so
    every file is checked once in every ``ceil(files / WINDOW_FILES)`` calls. Where the
    number cannot be kept, a random window."""
    windows = -(-files // WINDOW_FILES)
    try:
        # Never through a link nor into a FIFO: the number is this clone's, in local/.
        flags = os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_NONBLOCK
        with os.fdopen(os.open(layout.local(CHECK_WINDOW), flags, 0o666), "r+b") as handle:
            if not stat.S_ISREG(os.fstat(handle.fileno()).st_mode):
                raise OSError("not a regular file")
            window = (int(handle.read(20) or b"-1") + 1) % windows
            handle.seek(0)
            handle.truncate()
            handle.write(b"%d" % window)
        return window
    except (OSError, ValueError):
        return int.from_bytes(os.urandom(4), "big") % windows


def cache_state(layout: Layout) -> str:
    """``fresh``, ``stale`` (a lesson file changed since the build) or ``missing``."""
    opened = _open(layout)
    if opened is None:
        return "missing"
    _reader, meta = opened
    return "fresh" if meta.is_current(layout.under("lessons")) else "stale"


def rebuilt_index(layout: Layout) -> tuple[RecallIndex, list[InvalidLessonFile]]:
    """Rebuild from the lesson files alone, whatever the cache holds (it was damaged)."""
    return _rebuild(layout, trust=False)


def _open(layout: Layout) -> tuple[Reader, Meta] | None:
    try:
        reader = Reader(layout.local(INDEX_CACHE))
        return reader, Meta.read(reader)
    except (OSError, CorruptIndex):
        return None


def _rebuild(layout: Layout, *, trust: bool, damaged: str | None = None) -> Found:
    """Rebuild unless the cache is current (with ``trust``); ``damaged``, the identity
    (``Reader.identity``) of a cache found damaged, is rewritten even then."""
    folder = layout.under("lessons")
    lock = layout.local(INDEX_LOCK)
    try:
        with locked(lock):
            return _rebuild_locked(layout, lock, trust, damaged)
    except (OSError, LessonsError) as err:
        # local/ cannot be written (a read-only checkout, a full disk, a link or a plain
        # file where the lock belongs) or the lock stayed taken: index in memory, keep
        # nothing, and say so in the hook's log.
        note(err)
        index, _records, meta = _build(folder, Scan(folder), None, None)
        return index, _broken(layout, Meta.built(meta))


def _rebuild_locked(layout: Layout, lock: str, trust: bool, damaged: str | None) -> Found:
    folder = layout.under("lessons")
    # Another process may have rebuilt while this one waited for the lock: a new file,
    # then, even where this one was found damaged.
    opened = _open(layout) if trust else None
    clock = _fs_clock(lock)
    scan = Scan(folder)  # after the clock: see the module docstring
    if (
        opened is not None
        and opened[0].identity() != damaged
        and opened[1].is_current(folder, scan)
    ):
        return read_index(opened[0]), _broken(layout, opened[1])
    # A cache found damaged is still ``previous``: its records are reused where its parts
    # are sound, so rewriting it for one damaged window reads no lesson file.
    index, records, meta = _build(folder, scan, opened, clock, lambda *done: _save(layout, *done))
    _save(layout, index, records, meta)
    return index, _broken(layout, Meta.built(meta))


def _save(
    layout: Layout, index: RecallIndex, records: dict[str, FileRecord], meta: tuple[Any, ...]
) -> None:
    """Write the cache: ``index``, built from ``records``, as ``meta`` describes."""
    from lessons_core.index.file_writer import Writer, add_index  # noqa: PLC0415 (heavy: the index build)

    names, stats, racy, broken, folder_stat = meta
    writer = Writer()
    add_index(writer, index)
    # Read by a rebuild only: larger shards, fewer pieces.
    writer.add_map("files", records, shard_bytes=FILES_SHARD_BYTES)
    writer.add_value("names", names)
    # A large store's check reads one window (``Meta.window``): a piece each.
    writer.add_value("window_files", WINDOW_FILES)
    writer.add_seq("windows", windows(names, stats), 1)
    writer.add_value("stats", stats)
    writer.add_value("racy", racy)
    header = (len(stats) // (NUMBERS * 8), tuple(folder_stat), len(racy), broken)
    # Not durable: a cache lost to a power cut fails its checks and is rebuilt.
    cache, data = layout.local(INDEX_CACHE), writer.finish(header)
    atomic_write(cache, data, durable=False, mode=layout.file_mode)


FILES_SHARD_BYTES = 1 << 16


def _fs_clock(lock: str) -> int:
    """The file system's current time, as it would stamp a file changed now."""
    os.utime(lock)
    return os.stat(lock).st_ctime_ns


# A build that has read lesson files this long saves what it read so far (``_build``).
CHECKPOINT_SECONDS = 1.0


def _build(
    folder: str,
    scan: Scan,
    previous: tuple[Reader, Meta] | None,
    clock: int | None,
    checkpoint: Callable[[RecallIndex, dict[str, FileRecord], tuple[Any, ...]], None] | None = None,
) -> tuple[RecallIndex, dict[str, FileRecord], tuple[Any, ...]]:
    """Index ``scan``'s files, reusing ``previous`` records whose stat data is unchanged.

    Every ``CHECKPOINT_SECONDS`` of reading, ``checkpoint`` gets the records read so far
    (with an empty index, and stat data of those files only, so it never passes for
    fresh): a build killed before its end (a harness's hook timeout) leaves them, and
    the next one reads only the rest.
    """

    # A rebuild's only: a hook reading a fresh cache loads neither the build nor BM25.
    from lessons_core.index.build import Digest, assemble  # noqa: PLC0415 (heavy: the index build)

    old_records: dict[str, FileRecord] = {}
    old_signatures: dict[str, tuple[int, ...]] = {}
    if previous is not None:
        reader, meta = previous
        try:
            old_scan = unpack(meta.stats)
            racy = {name for name, _raw in meta.racy}
            for number, name in enumerate(meta.names.split("\0") if meta.names else ()):
                if name not in racy:
                    where = number * NUMBERS
                    old_signatures[name] = tuple(old_scan[where : where + NUMBERS])
            old_records = dict(reader.map("files"))
        except (CorruptIndex, TypeError, ValueError):  # unusable: read every file again
            old_records, old_signatures = {}, {}
    records: dict[str, FileRecord] = {}
    stats: list[int] = []
    racy_files: list[tuple[str, bytes]] = []
    due = time.monotonic() + CHECKPOINT_SECONDS
    for number, name in enumerate(scan.names):
        signature = scan.signature(number)
        record = old_records.get(name)
        if record is None or old_signatures.get(name) != signature:
            record, signature, raw = _read(folder, name, signature)
            if clock is not None and signature[1] >= clock:
                racy_files.append((name, raw))
            if checkpoint is not None and time.monotonic() >= due:
                done = ("\0".join(records), pack(stats), tuple(racy_files), (), UNREADABLE)
                checkpoint(assemble(()), records, done)
                due = time.monotonic() + CHECKPOINT_SECONDS
        records[name] = record
        stats.extend(signature)
    index = assemble(Digest.from_plain(r[1]) for r in records.values() if r[0] == "ok")
    broken = tuple(sorted((name, r[1], r[2]) for name, r in records.items() if r[0] == "broken"))
    # The folder's listing may be reused (file_scan.Scan) only if any later change to it
    # must show in its stat data: it was last changed before the clock read above.
    folder_stat = scan.folder_stat
    if clock is None or folder_stat[1] >= clock:
        folder_stat = UNREADABLE
    names = "\0".join(scan.names)
    return index, records, (names, pack(stats), tuple(racy_files), broken, folder_stat)


def _read(
    folder: str, name: str, signature: tuple[int, ...]
) -> tuple[FileRecord, tuple[int, ...], bytes]:
    """Parse one lesson file: its record, the stat data of what was read, and its bytes.

    The stat data comes from the open file before it is read, so it never describes a
    newer version than the bytes parsed. A file that does not parse is noted for the
    hook's log (``fsutil.note``): once, when it is read after it changed.
    """

    from pathlib import Path  # noqa: PLC0415 (the rebuild's, as read_lesson takes a Path)

    from lessons_core.index.build import digest  # noqa: PLC0415 (heavy: the index build)
    from lessons_core.store.files import read_lesson  # noqa: PLC0415 (heavy: orjson)

    path = Path(folder, name)
    raw = b""
    try:
        # Never through a link (it could lead out of the repo) nor into a FIFO (it would
        # block the hook): either is reported as a broken file.
        with open_regular(path) as handle:
            status = os.fstat(handle.fileno())
            signature = signature_of(status)
            if status.st_size > MAX_STORE_FILE_BYTES:  # judged before a byte is read
                size = f"is {status.st_size:,} bytes, over {MAX_STORE_FILE_BYTES:,}"
                raise too_large(path, OSError(errno.EFBIG, size))
            raw = handle.read()
        lesson = read_lesson(path, raw)
    except OSError as err:
        problem = InvalidLessonFile(path, f"cannot be read ({err.strerror})", kind="unparsable")
    except InvalidLessonFile as err:
        problem = err
    else:
        return ("ok", digest(lesson).plain()), signature, raw
    note(problem)
    return ("broken", problem.problem, problem.key), signature, raw


def _broken(layout: Layout, meta: Meta) -> list[InvalidLessonFile]:
    if not meta.broken:
        return []

    return [
        InvalidLessonFile(layout.under("lessons", name), problem, key)
        for name, problem, key in meta.broken
    ]


def load_index(layout: Layout) -> tuple[RecallIndex, list[InvalidLessonFile]]:
    """The index of ``layout``'s graph (from the cache when it is fresh, see the module
    docstring), and the lesson files that failed to parse."""
    return cached_index(layout)
