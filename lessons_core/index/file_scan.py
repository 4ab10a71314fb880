"""The lesson files' names and stat data: the freshness check run before a recall.

One ``stat`` per lesson file is the price of never missing an in-place edit (a directory's
own times do not change when a file in it is rewritten). The loop is written for speed
(``listdir`` plus ``stat`` relative to the open directory, five numbers a file in one
flat list, packed into bytes that compare with the cached bytes in one step). Large
stores check a rotating window of their files per call instead
(``lessons_core.index.cache``); docs/performance.md has the costs.
"""

from __future__ import annotations

import os
import struct

# A file's stat data: (mtime_ns, ctime_ns, size, inode, link count), as 64-bit numbers.
NUMBERS = 5
UNREADABLE = (-1,) * NUMBERS


class Listing:
    """A folder's names as listed, and its stat data from just before."""

    __slots__ = ("folder_stat", "names")

    def __init__(self, folder_stat: tuple[int, ...], names: list[str]) -> None:
        self.folder_stat, self.names = folder_stat, names


_MASK = (1 << 63) - 1


class Scan:
    """Lesson file names in directory order, and their stat data, five numbers a file.

    ``folder_stat`` is the folder's own stat data, taken before its names are read. When
    it equals ``known``'s, no file was added, removed or renamed since ``known`` was
    listed, so its names are used instead of listing the folder again (listing a large
    folder costs more than a stat of it). The caller must not pass a ``known`` whose
    folder could have changed within one tick of the clock after it was listed: see
    lessons_core.index.cache.
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
            self.stats = pack(stat_numbers(fd, self.names))
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
