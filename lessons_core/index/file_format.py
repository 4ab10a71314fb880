"""The recall index on disk: one file, read a part at a time.

Layout::

    MAGIC (8 bytes) | header length (8, little-endian) | header CRC-32 (4) | header | parts

The header (``marshal``) holds the format version, the interpreter's tag (marshal's format
may change between Python versions), the caller's metadata and a table of parts. A part
is a mapping cut into shards by a CRC-32 of the key, or a sequence cut into chunks; each
shard and chunk is marshalled on its own and listed with its offset, length and CRC-32.

A reader unmarshals a shard only when a key in it is asked for, so a
query against 50,000 lessons reads a few kilobytes of index instead of twenty megabytes.
Every shard's CRC is checked when it is loaded: a damaged or foreign file raises
``CorruptIndex`` (at open or at first use), and the caller rebuilds rather than trust it.
"""

from __future__ import annotations

import marshal
import os
import stat
import sys
import zlib

from lessons_core.index.build import CommandEntry, GlobEntry, KeywordEntry, RecallIndex
from lessons_core.matching.bm25 import TermStats
from lessons_core.records import overload

# The hook reads the index through this module on every call; typing and collections cost
# it ~8 ms to import (lessons_core.records). The abstract base classes themselves live in
# _collections_abc, which every Python start has already loaded.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterable, Iterator, Mapping, Sequence
    from typing import Any, TypeAlias, TypeVar

    V = TypeVar("V")
    # One marshalled piece: (offset from the start of the parts, length, CRC-32).
    Piece: TypeAlias = tuple[int, int, int]
else:
    try:
        from _collections_abc import Mapping, Sequence
    except ImportError:  # an interpreter without CPython's private module
        from collections.abc import Mapping, Sequence

    V = object  # run time only subscripts base classes with it

MAGIC = b"LSNINDEX"
# 5: a glob entry holds its matching plan in place of the regex; 6: trigger entries and
# digests carry breadth flags; 7: stat data carries each file's link count; 8: digests
# hold only triggers the one judgement accepts (lessons_core.matching.trigger_checks),
# keywords included; 9: a part of the commands' required runs, so a query reads a command
# entry only when its run is in the command (entries are read back as named records);
# 10: always-on lessons and topic counts (read at session start); 11: each lesson's row
# carries its enforce flag and forbid pattern
FORMAT_VERSION = 11
KEYS_PER_SHARD = 32
ITEMS_PER_CHUNK = 64
LARGE_VALUE = 64  # items in a tuple value that earn it a piece of its own
_PREFIX = len(MAGIC) + 8 + 4


class CorruptIndex(ValueError):
    """The index file is damaged, truncated, or written by another version."""


def shard_of(key: str, shards: int) -> int:
    """Which shard holds ``key``: stable across processes, unlike ``hash``."""
    return zlib.crc32(key.encode("utf-8", "surrogatepass")) % shards


class Writer:
    """Collects parts, then ``finish`` gives the whole file's bytes."""

    def __init__(self) -> None:
        self._pieces: list[bytes] = []
        self._offset = 0
        self._table: dict[str, tuple[Any, ...]] = {}

    def _piece(self, value: Any) -> Piece:
        data = marshal.dumps(value)
        piece = (self._offset, len(data), zlib.crc32(data))
        self._pieces.append(data)
        self._offset += len(data)
        return piece

    def add_map(self, name: str, mapping: Mapping[str, Any]) -> None:
        """Store ``mapping`` in shards; a large value (a common term's postings, the globs
        under ``src``) gets a piece of its own so it never weighs on its neighbours."""
        count = max(1, len(mapping) // KEYS_PER_SHARD)
        shards: list[dict[str, Any]] = [{} for _ in range(count)]
        large: dict[str, Piece] = {}
        for key, value in mapping.items():
            if isinstance(value, tuple) and len(value) > LARGE_VALUE:
                large[key] = self._piece(value)
            else:
                shards[shard_of(key, count)][key] = value
        pieces = tuple(self._piece(shard) for shard in shards)
        self._table[name] = ("map", len(mapping), pieces, large)

    def add_seq(self, name: str, items: Sequence[Any]) -> None:
        values = tuple(items)
        chunks = tuple(
            self._piece(values[start : start + ITEMS_PER_CHUNK])
            for start in range(0, len(values), ITEMS_PER_CHUNK)
        )
        self._table[name] = ("seq", len(values), chunks)

    def finish(self, meta: Any) -> bytes:
        header = marshal.dumps(
            (FORMAT_VERSION, sys.implementation.cache_tag, meta, self._table, self._offset)
        )
        prefix = (
            MAGIC + len(header).to_bytes(8, "little") + zlib.crc32(header).to_bytes(4, "little")
        )
        return b"".join([prefix, header, *self._pieces])


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
        if not stat.S_ISREG(os.fstat(self._fd).st_mode):
            raise CorruptIndex("not a regular file")
        prefix = os.pread(self._fd, _PREFIX, 0)
        if len(prefix) < _PREFIX or prefix[: len(MAGIC)] != MAGIC:
            raise CorruptIndex("not a lessons index file")
        size = int.from_bytes(prefix[len(MAGIC) : len(MAGIC) + 8], "little")
        header = os.pread(self._fd, size, _PREFIX)
        if len(header) != size or zlib.crc32(header) != int.from_bytes(prefix[16:], "little"):
            raise CorruptIndex("index header damaged")
        try:
            version, tag, meta, table, body = marshal.loads(header)
        except (EOFError, ValueError, TypeError) as err:
            raise CorruptIndex(f"index header unreadable ({err})") from None
        if version != FORMAT_VERSION or tag != sys.implementation.cache_tag:
            raise CorruptIndex("index written by another version")
        self._base = _PREFIX + size
        if os.fstat(self._fd).st_size != self._base + body:
            raise CorruptIndex("index file truncated")
        self.meta: Any = meta
        self._table: dict[str, tuple[Any, ...]] = table

    def identity(self) -> str:
        """Which file this is: every write makes a new one (a temp file renamed in)."""
        found = os.fstat(self._fd)
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

    def part(self, name: str, kind: str) -> tuple[Any, ...]:
        try:
            found = self._table[name]
        except KeyError:
            raise CorruptIndex(f"index has no part {name!r}") from None
        if found[0] != kind:
            raise CorruptIndex(f"index part {name!r} is not a {kind}")
        return tuple(found[1:])

    def map(self, name: str, record: type | None = None) -> LazyMap[Any]:
        """Part ``name``, a mapping; with ``record``, each value is a tuple of records of
        that type (stored as plain tuples: ``marshal`` takes no other)."""
        size, shards, large = self.part(name, "map")
        return LazyMap(self, size, shards, large, record)

    def seq(self, name: str, record: type | None = None) -> LazySeq[Any]:
        """Part ``name``, a sequence; with ``record``, of records of that type."""
        size, chunks = self.part(name, "seq")
        return LazySeq(self, size, chunks, record)


class LazyMap(Mapping[str, V]):
    """A read-only mapping whose shards are unmarshalled when first touched."""

    def __init__(
        self,
        reader: Reader,
        size: int,
        shards: tuple[Piece, ...],
        large: dict[str, Piece],
        record: type | None = None,
    ) -> None:
        self._reader, self._size, self._shards, self._large = reader, size, shards, large
        self._record = record
        self._loaded: dict[int, dict[str, V]] = {}

    def _shard(self, number: int) -> dict[str, V]:
        shard = self._loaded.get(number)
        if shard is None:
            shard = self._loaded[number] = self._reader.load(self._shards[number])
        return shard

    def __getitem__(self, key: str) -> V:
        piece = self._large.get(key)
        if piece is not None:
            value: V = self._reader.load(piece)
        else:
            value = self._shard(shard_of(key, len(self._shards)))[key]
        if self._record is None:
            return value
        typed: V = _records(self._record, value)  # type: ignore[arg-type]  # a tuple part
        return typed

    def __iter__(self) -> Iterator[str]:
        yield from self._large
        for number in range(len(self._shards)):
            yield from self._shard(number)

    def __len__(self) -> int:
        return self._size


class _ReadOnlySeq(Sequence[V]):
    """A sequence answering ``seq[i]`` through ``_item`` (slices built from it)."""

    def _item(self, index: int) -> V:
        raise NotImplementedError

    @overload
    def __getitem__(self, index: int) -> V: ...

    @overload
    def __getitem__(self, index: slice) -> Sequence[V]: ...  # noqa: F811 (records.overload)

    def __getitem__(self, index: int | slice) -> V | Sequence[V]:  # noqa: F811 (records.overload)
        if isinstance(index, slice):
            return tuple(self._item(i) for i in range(*index.indices(len(self))))
        if index < 0:
            index += len(self)
        if not 0 <= index < len(self):
            raise IndexError(index)
        return self._item(index)


class LazySeq(_ReadOnlySeq[V]):
    """A read-only sequence whose chunks are unmarshalled when first touched."""

    def __init__(
        self, reader: Reader, size: int, chunks: tuple[Piece, ...], record: type | None = None
    ) -> None:
        self._reader, self._size, self._chunks, self._record = reader, size, chunks, record
        self._loaded: dict[int, tuple[V, ...]] = {}

    def _chunk(self, number: int) -> tuple[V, ...]:
        chunk = self._loaded.get(number)
        if chunk is None:
            chunk = self._reader.load(self._chunks[number])
            if self._record is not None:
                chunk = _records(self._record, chunk)
            self._loaded[number] = chunk
        return chunk

    def _item(self, index: int) -> V:
        return self._chunk(index // ITEMS_PER_CHUNK)[index % ITEMS_PER_CHUNK]

    def __iter__(self) -> Iterator[V]:
        for number in range(len(self._chunks)):
            yield from self._chunk(number)

    def items(self, numbers: Iterable[int]) -> dict[int, V]:
        """``{n: self[n]}`` for valid ``numbers``, without a method call per item."""
        loaded, chunk = self._loaded, self._chunk
        found: dict[int, V] = {}
        for n in numbers:
            where, offset = divmod(n, ITEMS_PER_CHUNK)
            part = loaded.get(where)
            found[n] = (part if part is not None else chunk(where))[offset]
        return found

    def __len__(self) -> int:
        return self._size


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


def add_index(writer: Writer, index: RecallIndex) -> None:
    """Store every part of ``index``; ``read_index`` gives it back, lazily."""
    rows = zip(
        index.ids,
        index.rules,
        index.created,
        index.gates,
        index.enforces,
        index.forbids,
        strict=True,
    )
    writer.add_seq("lessons", tuple(rows))
    writer.add_seq("commands", tuple(map(tuple, index.commands)))
    writer.add_seq("command_runs", index.command_runs)
    writer.add_seq("skipped", index.skipped)
    writer.add_seq("always", index.always)
    writer.add_seq("topics", index.topics)
    for name in ("exact", "by_prefix", "keywords"):
        entries = getattr(index, name)
        writer.add_map(name, {key: tuple(map(tuple, found)) for key, found in entries.items()})
    writer.add_map("idf", index.bm25.idf)
    writer.add_map("postings", index.bm25.postings)
    writer.add_seq("doc_len", index.bm25.doc_len)  # for completeness: postings carry it
    writer.add_seq("avgdl", (index.bm25.avgdl,))


def read_index(reader: Reader) -> RecallIndex:
    """The index stored by ``add_index``; nothing is unmarshalled until it is used."""
    lessons = reader.seq("lessons")
    return RecallIndex(
        ids=Column(lessons, 0),
        rules=Column(lessons, 1),
        created=Column(lessons, 2),
        gates=Column(lessons, 3),
        exact=reader.map("exact", GlobEntry),
        by_prefix=reader.map("by_prefix", GlobEntry),
        commands=reader.seq("commands", CommandEntry),
        command_runs=reader.seq("command_runs"),
        keywords=reader.map("keywords", KeywordEntry),
        bm25=TermStats(
            idf=reader.map("idf"),
            postings=reader.map("postings"),
            doc_len=reader.seq("doc_len"),
            avgdl=float(reader.seq("avgdl")[0]),
        ),
        skipped=reader.seq("skipped"),
        always=reader.seq("always"),
        topics=reader.seq("topics"),
        enforces=Column(lessons, 4),
        forbids=Column(lessons, 5),
    )
