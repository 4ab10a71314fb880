"""The recall index on disk: one file, read a part at a time.

Layout::

    MAGIC (8 bytes) | header length (8, little-endian) | header CRC-32 (4) | header | parts

The header (``marshal``) holds the format version, the interpreter's tag (marshal's format
may change between Python versions), the caller's small metadata and a table of parts: per
part its kind and the piece that is its directory. A part is a mapping cut into shards of
consecutive keys in sorted order, a sequence cut into chunks, or one value; every shard,
chunk and value is marshalled on its own and listed in its part's directory with its
offset, length and CRC-32, packed into bytes.

A reader loads a part's directory when the part is first used and unmarshals a shard only
when a key in it is asked for. Shards are cut by size, a few kilobytes, and a value too
large for one (a common term's postings, the globs under ``src``) is a piece of its own,
read only when its key is asked for: a query against 50,000 lessons reads a few kilobytes
of a 40 MB index, whichever keys it misses. The header stays small whatever the store's
size (what the caller keeps per lesson file goes into parts of its own), so opening the
file costs the same for 50 lessons or 50,000.

This module is the reading side, which every hook loads; ``lessons_core.index.file_writer``
writes the file, on a rebuild only.

Every piece's CRC is checked when it is loaded: a damaged or foreign file raises
``CorruptIndex`` (at open or at first use), and the caller rebuilds rather than trust it.
"""

from __future__ import annotations

import marshal
import os
import stat
import sys
import zlib
from collections.abc import Iterable, Iterator, Mapping, Sequence
from typing import TYPE_CHECKING, Any, TypeAlias, TypeVar, overload

from lessons_core.index.entries import (
    LESSON_COLUMNS,
    CommandEntry,
    GlobEntry,
    KeywordEntry,
    RecallIndex,
    TermStats,
)

V = TypeVar("V")
if TYPE_CHECKING:
    # One marshalled piece: (offset from the start of the parts, length, CRC-32).
    Piece: TypeAlias = tuple[int, int, int]

MAGIC = b"LSNINDEX"
# 5: a glob entry holds its matching plan in place of the regex; 6: trigger entries and
# digests carry breadth flags; 7: stat data carries each file's link count; 8: digests
# hold only triggers the one judgement accepts (lessons_core.matching.trigger_checks),
# keywords included; 9: a part of the commands' required runs, so a query reads a command
# entry only when its run is in the command (entries are read back as named records);
# 10: always-on lessons and topic counts (read at session start); 11: parts list their
# pieces in directories of their own, maps are cut by size in key order with large
# values apart, globs are filed by prefix and the end of their suffix, command runs are
# grouped, and the per-file stat data is a part, not header metadata; 12: each lesson's
# row carries its enforce flag and forbid pattern; 13: command entries and digests carry
# the pattern's plan (literals with anchors, matched without RE2); 14: BM25 postings hold
# each document's part of the score in place of its term frequency and length, and a large
# store's check windows are parts of their own
FORMAT_VERSION = 14
SHARD_BYTES = 4096  # a map's shard is cut after this many marshalled bytes of values
LARGE_BYTES = 1024  # a value marshalling to more is a piece of its own
SMALL_BYTES = 64  # a value part marshalling to no more is kept in the header
ITEMS_PER_CHUNK = 64
_PREFIX = len(MAGIC) + 8 + 4
_ENTRY = 16  # a piece in a directory: offset (8 bytes), length (4), CRC-32 (4)


class CorruptIndex(ValueError):
    """The index file is damaged, truncated, or written by another version."""


def _entry(pieces: bytes, number: int) -> Piece:
    """Piece ``number`` of a directory's packed ``pieces``."""
    at = number * _ENTRY
    entry = pieces[at : at + _ENTRY]
    if len(entry) != _ENTRY:
        raise CorruptIndex("index directory damaged")
    return (
        int.from_bytes(entry[:8], "little"),
        int.from_bytes(entry[8:12], "little"),
        int.from_bytes(entry[12:], "little"),
    )


class Reader:
    """An index file opened for reading; parts load on first use.

    Pieces are read with ``pread`` rather than through a memory map: a file truncated
    under a map kills the process with SIGBUS, while a short read only fails a CRC.
    """

    def __init__(self, path: str) -> None:
        """Open ``path``: ``FileNotFoundError`` when there is none, ``CorruptIndex`` when bad."""
        self._fd = -1
        # Never through a link nor into a FIFO (a repo can commit either where the cache
        # belongs): opened without blocking, and only a regular file is read.
        flags = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC
        self._fd = os.open(path, flags)  # closed by __del__: parts load lazily
        found = os.fstat(self._fd)
        if not stat.S_ISREG(found.st_mode):
            raise CorruptIndex("not a regular file")
        self._stat = found
        # The prefix and, in one read, a header of the usual size.
        head = os.pread(self._fd, 4096, 0)
        if len(head) < _PREFIX or head[: len(MAGIC)] != MAGIC:
            raise CorruptIndex("not a lessons index file")
        size = int.from_bytes(head[len(MAGIC) : len(MAGIC) + 8], "little")
        header = head[_PREFIX : _PREFIX + size]
        if len(header) < size:
            header = os.pread(self._fd, size, _PREFIX)
        if len(header) != size or zlib.crc32(header) != int.from_bytes(head[16:20], "little"):
            raise CorruptIndex("index header damaged")
        try:
            version, tag, meta, table, body = marshal.loads(header)
        except (EOFError, ValueError, TypeError) as err:
            raise CorruptIndex(f"index header unreadable ({err})") from None
        if version != FORMAT_VERSION or tag != sys.implementation.cache_tag:
            raise CorruptIndex("index written by another version")
        self._base = _PREFIX + size
        if found.st_size != self._base + body:
            raise CorruptIndex("index file truncated")
        self.meta: Any = meta
        self._table: dict[str, tuple[Any, ...]] = table

    def identity(self) -> str:
        """Which file this is: every write makes a new one (a temp file renamed in)."""
        found = self._stat
        times = f"{found.st_mtime_ns}:{found.st_ctime_ns}"
        return f"{found.st_dev}:{found.st_ino}:{found.st_size}:{times}"

    def __del__(self) -> None:
        if self._fd >= 0:
            os.close(self._fd)
            self._fd = -1

    def load(self, piece: Piece) -> Any:
        offset, length, crc = piece
        data = os.pread(self._fd, length, self._base + offset)
        if len(data) != length or zlib.crc32(data) != crc:
            raise CorruptIndex("index part damaged")
        try:
            return marshal.loads(data)
        except (EOFError, ValueError, TypeError) as err:
            raise CorruptIndex(f"index part unreadable ({err})") from None

    def part(self, name: str, kind: str) -> tuple[int, Piece]:
        """Part ``name``'s size and the piece holding its directory (its value, for a
        ``value`` part)."""
        try:
            found = self._table[name]
        except KeyError:
            raise CorruptIndex(f"index has no part {name!r}") from None
        if found[0] != kind:
            raise CorruptIndex(f"index part {name!r} is not a {kind}")
        return found[1], found[2]

    def directory(self, name: str, kind: str) -> tuple[int, Any, bytes]:
        """Part ``name``'s size, the first field of its directory and its packed pieces."""
        size, piece = self.part(name, kind)
        try:
            first, pieces = self.load(piece)
        except (TypeError, ValueError):
            raise CorruptIndex(f"index part {name!r} has a malformed directory") from None
        return size, first, pieces

    def map(self, name: str, record: type | None = None) -> LazyMap[Any]:
        """Part ``name``, a mapping; with ``record``, each value is a tuple of records of
        that type (stored as plain tuples: ``marshal`` takes no other). Its directory is
        read when a key is first asked for."""
        return LazyMap(self, name, self.part(name, "map")[0], record)

    def seq(self, name: str, record: type | None = None) -> LazySeq[Any]:
        """Part ``name``, a sequence; with ``record``, of records of that type."""
        return LazySeq(self, name, self.part(name, "seq")[0], record)

    def value(self, name: str) -> Any:
        """Part ``name``, one value (``file_writer.Writer.add_value``)."""
        _size, piece = self.part(name, "value")
        return self._table[name][3] if piece is None else self.load(piece)


class LazyMap(Mapping[str, V]):
    """A read-only mapping whose directory and shards are unmarshalled when first touched."""

    def __init__(self, reader: Reader, name: str, size: int, record: type | None = None) -> None:
        self._reader, self._name, self._size, self._record = reader, name, size, record
        self._firsts: tuple[str, ...] | None = None
        self._pieces = b""
        self._loaded: dict[int, tuple[dict[str, V], dict[str, Piece]]] = {}

    def _shard(self, number: int) -> tuple[dict[str, V], dict[str, Piece]]:
        shard = self._loaded.get(number)
        if shard is None:
            shard = self._reader.load(_entry(self._pieces, number))
            if not isinstance(shard, tuple) or len(shard) != 2:
                raise CorruptIndex(f"index part {self._name!r} has a malformed shard")
            self._loaded[number] = shard
        return shard

    def _shard_of(self, key: str) -> int:
        """The number of the shard that would hold ``key``: the last whose first key is
        not after it (a binary search: importing bisect would cost more than it saves)."""
        firsts = self._firsts
        if firsts is None:
            _size, firsts, self._pieces = self._reader.directory(self._name, "map")
            self._firsts = firsts
        low, high = 0, len(firsts)
        while low < high:
            middle = (low + high) // 2
            if key < firsts[middle]:
                high = middle
            else:
                low = middle + 1
        return max(low - 1, 0)

    def __getitem__(self, key: str) -> V:
        inline, large = self._shard(self._shard_of(key))
        piece = large.get(key)
        value: V = self._reader.load(piece) if piece is not None else inline[key]
        if self._record is None:
            return value
        typed: V = _records(self._record, value)  # type: ignore[arg-type]  # a tuple part
        return typed

    def __iter__(self) -> Iterator[str]:
        if self._firsts is None:
            self._shard_of("")
        for number in range(len(self._pieces) // _ENTRY):
            inline, large = self._shard(number)
            yield from inline
            yield from large

    def __len__(self) -> int:
        return self._size


class _ReadOnlySeq(Sequence[V]):
    """A sequence answering ``seq[i]`` through ``_item`` (slices built from it)."""

    def _item(self, index: int) -> V:
        raise NotImplementedError

    @overload
    def __getitem__(self, index: int) -> V: ...

    @overload
    def __getitem__(self, index: slice) -> Sequence[V]: ...

    def __getitem__(self, index: int | slice) -> V | Sequence[V]:
        if isinstance(index, slice):
            return tuple(self._item(i) for i in range(*index.indices(len(self))))
        if index < 0:
            index += len(self)
        if not 0 <= index < len(self):
            raise IndexError(index)
        return self._item(index)


class LazySeq(_ReadOnlySeq[V]):
    """A read-only sequence whose directory and chunks are unmarshalled when first touched."""

    def __init__(self, reader: Reader, name: str, size: int, record: type | None = None) -> None:
        self._reader, self._name, self._size, self._record = reader, name, size, record
        self._per_chunk = 0  # until the directory is read
        self._pieces = b""
        self._loaded: dict[int, tuple[V, ...]] = {}

    def _chunk(self, number: int) -> tuple[V, ...]:
        chunk = self._loaded.get(number)
        if chunk is None:
            chunk = self._reader.load(_entry(self._pieces, number))
            if self._record is not None:
                chunk = _records(self._record, chunk)
            self._loaded[number] = chunk
        return chunk

    def _chunk_size(self) -> int:
        if not self._per_chunk:
            _size, per_chunk, self._pieces = self._reader.directory(self._name, "seq")
            if not isinstance(per_chunk, int) or per_chunk < 1:
                raise CorruptIndex(f"index part {self._name!r} has a malformed directory")
            self._per_chunk = per_chunk
        return self._per_chunk

    def _item(self, index: int) -> V:
        where, offset = divmod(index, self._chunk_size())
        return self._chunk(where)[offset]

    def __iter__(self) -> Iterator[V]:
        if self._size:
            self._chunk_size()
        for number in range(len(self._pieces) // _ENTRY):
            yield from self._chunk(number)

    def items(self, numbers: Iterable[int]) -> dict[int, V]:
        """``{n: self[n]}`` for valid ``numbers``, without a method call per item."""
        loaded, chunk = self._loaded, self._chunk
        per_chunk = self._chunk_size() if self._size else 1
        found: dict[int, V] = {}
        for n in numbers:
            where, offset = divmod(n, per_chunk)
            part = loaded.get(where)
            found[n] = (part if part is not None else chunk(where))[offset]
        return found

    def __len__(self) -> int:
        return self._size


class LazyValue(_ReadOnlySeq[V]):
    """A sequence stored as one value part, read whole when first used."""

    def __init__(self, reader: Reader, name: str) -> None:
        self._reader, self._name = reader, name
        self._value: tuple[V, ...] | None = None

    def _whole(self) -> tuple[V, ...]:
        if self._value is None:
            value = self._reader.value(self._name)
            if not isinstance(value, tuple):
                raise CorruptIndex(f"index part {self._name!r} is not a sequence")
            self._value = value
        return self._value

    def _item(self, index: int) -> V:
        return self._whole()[index]

    def __iter__(self) -> Iterator[V]:
        return iter(self._whole())

    def __len__(self) -> int:
        return len(self._whole())


class Column(_ReadOnlySeq[V]):
    """One field of a sequence of rows: a candidate's id, rule, date and gate come from
    one chunk load instead of four."""

    def __init__(self, rows: LazySeq[tuple[Any, ...]], field: int) -> None:
        self._rows, self._field = rows, field

    def _item(self, index: int) -> V:
        value: V = self._rows[index][self._field]
        return value

    def __iter__(self) -> Iterator[V]:
        return (row[self._field] for row in self._rows)

    def __len__(self) -> int:
        return len(self._rows)

    def rows(self, numbers: Iterable[int]) -> dict[int, tuple[Any, ...]]:
        """Whole rows, for ``RecallIndex.rows``: each chunk is loaded once."""
        return self._rows.items(numbers)


def _records(record: type, values: tuple[Any, ...]) -> Any:
    """``values``, plain tuples as ``marshal`` gave them, as records of type ``record``
    (``tuple.__new__`` is what a record's own constructor calls, minus its checks)."""
    new = tuple.__new__
    return tuple([new(record, value) for value in values])


def read_index(reader: Reader) -> RecallIndex:
    """The index stored by ``file_writer.add_index``; nothing is unmarshalled until it is used, but
    for the handful of bytes in the header."""
    lessons = reader.seq("lessons")
    columns: dict[str, Any] = {c: Column(lessons, n) for n, c in enumerate(LESSON_COLUMNS)}
    return RecallIndex(
        **columns,
        exact=reader.map("exact", GlobEntry),
        by_prefix=reader.map("by_prefix", GlobEntry),
        commands=reader.seq("commands", CommandEntry),
        command_runs=LazyValue(reader, "command_runs"),
        keywords=reader.map("keywords", KeywordEntry),
        bm25=TermStats(
            idf=reader.map("idf"),
            postings=reader.map("postings"),
            doc_len=reader.seq("doc_len"),
            avgdl=float(reader.value("avgdl")),
        ),
        skipped=reader.seq("skipped"),
        always=reader.seq("always"),
        topics=reader.seq("topics"),
    )
