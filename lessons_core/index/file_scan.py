"""The lesson files' names and stat data: the freshness check run before every recall.

One ``stat`` per lesson file is the price of never missing an in-place edit (a directory's
own times do not change when a file in it is rewritten). On a 2-core virtual machine a
``stat`` costs 1.5-2.5 µs from Python, so 50,000 files take ~130 ms, most of a hook's
budget. The loop is therefore written for speed (``listdir`` plus ``stat`` relative to the
open directory, five numbers a file in one flat list, packed into bytes that compare with
the cached bytes in one step; ``struct`` rather than ``array``, whose import pulls in
``collections``), and in large stores it is split across forked worker processes, one
per spare core: the system calls then run in parallel, which threads cannot do here (the
interpreter lock is taken back between calls far more often than a stat takes).
"""

from __future__ import annotations

import os
import struct
import sys

# A file's stat data: (mtime_ns, ctime_ns, size, inode, link count), as 64-bit numbers.
NUMBERS = 5
UNREADABLE = (-1,) * NUMBERS


class Listing:
    """A folder's names as listed, and its stat data from just before."""

    __slots__ = ("folder_stat", "names")

    def __init__(self, folder_stat: tuple[int, ...], names: list[str]) -> None:
        self.folder_stat, self.names = folder_stat, names


_MASK = (1 << 63) - 1
# Below this many files per process a worker costs more (fork, pipe) than it saves.
FILES_PER_WORKER = 4000
MAX_WORKERS = 4


class Scan:
    """Lesson file names in directory order, and their stat data, five numbers a file.

    ``folder_stat`` is the folder's own stat data, taken before its names are read. When
    it equals ``known``'s, no file was added, removed or renamed since ``known`` was
    listed, so its names are used instead of listing the folder again (50,000 names take
    ~18 ms to list here). The caller must not pass a ``known`` whose folder could have
    changed within one tick of the clock after it was listed: see index_cache.
    """

    __slots__ = ("folder_stat", "listed", "names", "stats")

    def __init__(self, folder: str, known: Listing | None = None) -> None:
        self.names: list[str] = []
        self.stats = b""  # packed: see pack
        self.folder_stat: tuple[int, ...] = UNREADABLE
        self.listed = False  # whether the names were read from the folder itself
        try:
            fd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY)
        except (FileNotFoundError, NotADirectoryError):
            return
        try:
            self.folder_stat = signature(os.fstat(fd))
            if known is not None and known.folder_stat == self.folder_stat:
                self.names = known.names
            else:
                # The store's own rule for what a lesson file is (temp files start with ".").
                self.names = [
                    name
                    for name in os.listdir(fd)
                    if name.endswith(".json") and not name.startswith(".")
                ]
                self.listed = True
            self.stats = stat_all(fd, self.names, workers_for(len(self.names)))
        finally:
            os.close(fd)

    def signature(self, number: int) -> tuple[int, ...]:
        return struct.unpack_from(f"{NUMBERS}q", self.stats, number * NUMBERS * 8)


def pack(values: list[int]) -> bytes:
    """``values`` as signed 64-bit numbers (masked if need be: some network file systems
    report inode numbers past 2**63)."""
    try:
        return struct.pack(f"{len(values)}q", *values)
    except struct.error:
        return struct.pack(
            f"{len(values)}q", *(v if -_MASK <= v <= _MASK else v & _MASK for v in values)
        )


def unpack(data: bytes) -> list[int]:
    return list(struct.unpack(f"{len(data) // 8}q", data[: len(data) - len(data) % 8]))


def signature(found: os.stat_result) -> tuple[int, ...]:
    """``(mtime_ns, ctime_ns, size, inode, links)`` as signed 64-bit numbers (masked if
    need be)."""
    values = (found.st_mtime_ns, found.st_ctime_ns, found.st_size, found.st_ino, found.st_nlink)
    if all(-_MASK <= value <= _MASK for value in values):
        return values
    return tuple(value & _MASK for value in values)


def stat_numbers(fd: int, names: list[str]) -> list[int]:
    """Stat data of ``names`` in the directory ``fd``, in this process."""
    stats: list[int] = []
    extend, stat = stats.extend, os.stat
    for name in names:
        try:
            found = stat(name, dir_fd=fd)
        except OSError:  # gone since listdir, or a dangling link: unreadable
            extend(UNREADABLE)
            continue
        extend((found.st_mtime_ns, found.st_ctime_ns, found.st_size, found.st_ino, found.st_nlink))
    return stats


def fork_is_safe() -> bool:
    """Whether this process may fork: not while it runs threads (a lock one of them holds
    would stay locked in the child forever)."""
    threading = sys.modules.get("threading")
    return not (threading and threading.active_count() > 1)


def workers_for(files: int) -> int:
    """Processes worth using for ``files`` stats: one per spare core, never in a process
    that runs threads (forking one is unsafe)."""
    if files < 2 * FILES_PER_WORKER or not fork_is_safe():
        return 1
    try:
        cores = len(os.sched_getaffinity(0))
    except AttributeError:  # not Linux
        cores = os.cpu_count() or 1
    return max(1, min(cores, MAX_WORKERS, files // FILES_PER_WORKER))


def stat_all(fd: int, names: list[str], workers: int) -> bytes:
    """Stat data of ``names``, packed, split over ``workers`` processes (this one included).

    A worker writes its packed numbers to a pipe and exits; if one fails in any way, this
    process stats its share itself, so the result never depends on a worker. The parts
    are joined as packed, never unpacked (~6 ms at 50,000 files).
    """
    if workers <= 1:
        return pack(stat_numbers(fd, names))
    size = -(-len(names) // workers)
    shares = [names[start : start + size] for start in range(size, len(names), size)]
    children = [_fork_worker(fd, share) for share in shares]
    parts = [pack(stat_numbers(fd, names[:size]))]
    for share, child in zip(shares, children, strict=True):
        data = b""
        if child is not None:
            pid, reader = child
            with os.fdopen(reader, "rb") as pipe:
                data = pipe.read()
            os.waitpid(pid, 0)
        whole = len(data) == NUMBERS * 8 * len(share)
        parts.append(data if whole else pack(stat_numbers(fd, share)))
    return b"".join(parts)


def _fork_worker(fd: int, names: list[str]) -> tuple[int, int] | None:
    """Start a process that writes the stat data of ``names`` to a pipe; None if none."""
    try:
        reader, writer = os.pipe()
    except OSError:
        return None
    try:
        pid = os.fork()
    except OSError:
        os.close(reader)
        os.close(writer)
        return None
    if pid:
        os.close(writer)
        return pid, reader
    try:  # the worker: never returns, never runs the parent's exit handlers
        os.close(reader)
        data = memoryview(pack(stat_numbers(fd, names)))
        while data:
            data = data[os.write(writer, data) :]
    finally:
        os._exit(0)
