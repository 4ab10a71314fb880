"""Writing the recall index file: the side of ``lessons_core.index.file_format`` a
rebuild needs and a query never does.

``Writer`` collects the parts and gives the whole file's bytes in the layout
``file_format`` describes and reads; ``add_index`` stores every part of a
``RecallIndex``. Only a rebuild imports this module, so a hook that reads a fresh cache
never loads it.
"""

from __future__ import annotations

import marshal
import sys
import zlib
from typing import TYPE_CHECKING, Any

from lessons_core.index import file_format
from lessons_core.index.entries import LESSON_COLUMNS
from lessons_core.index.file_format import (
    ITEMS_PER_CHUNK,
    LARGE_BYTES,
    MAGIC,
    SHARD_BYTES,
    SMALL_BYTES,
)

if TYPE_CHECKING:
    from collections.abc import Iterable, Mapping, Sequence

    from lessons_core.index.entries import RecallIndex
    from lessons_core.index.file_format import Piece


def _packed(pieces: Iterable[Piece]) -> bytes:
    return b"".join(
        o.to_bytes(8, "little") + n.to_bytes(4, "little") + c.to_bytes(4, "little")
        for o, n, c in pieces
    )


class Writer:
    """Collects parts, then ``finish`` gives the whole file's bytes."""

    def __init__(self) -> None:
        self._pieces: list[bytes] = []
        self._offset = 0
        self._table: dict[str, tuple[Any, ...]] = {}

    def _piece(self, value: Any) -> Piece:
        return self._raw(marshal.dumps(value))

    def _raw(self, data: bytes) -> Piece:
        piece = (self._offset, len(data), zlib.crc32(data))
        self._pieces.append(data)
        self._offset += len(data)
        return piece

    def add_map(
        self, name: str, mapping: Mapping[str, Any], shard_bytes: int = SHARD_BYTES
    ) -> None:
        """Store ``mapping`` in shards of consecutive keys (sorted), each cut once its
        values pass ``shard_bytes``; a value over ``LARGE_BYTES`` gets a piece of its own
        so it never weighs on its neighbours (a shard keeps only where it is)."""
        firsts: list[str] = []
        pieces: list[Piece] = []
        inline: dict[str, Any] = {}
        large: dict[str, Piece] = {}
        size = 0
        for key in sorted(mapping):
            if not inline and not large:
                firsts.append(key)
            data = marshal.dumps(mapping[key])
            if len(data) > LARGE_BYTES:
                large[key] = self._raw(data)
                size += 32
            else:
                inline[key] = mapping[key]
                size += len(data) + len(key)
            if size >= shard_bytes:
                pieces.append(self._piece((inline, large)))
                inline, large, size = {}, {}, 0
        if inline or large or not pieces:
            if not firsts:
                firsts.append("")
            pieces.append(self._piece((inline, large)))
        directory = self._piece((tuple(firsts), _packed(pieces)))
        self._table[name] = ("map", len(mapping), directory)

    def add_seq(self, name: str, items: Sequence[Any], per_chunk: int = ITEMS_PER_CHUNK) -> None:
        values = tuple(items)
        chunks = [
            self._piece(values[start : start + per_chunk])
            for start in range(0, len(values), per_chunk)
        ]
        directory = self._piece((per_chunk, _packed(chunks)))
        self._table[name] = ("seq", len(values), directory)

    def add_value(self, name: str, value: Any) -> None:
        """One value, read whole when it is asked for (``Reader.value``); a small one is
        kept in the header itself."""
        data = marshal.dumps(value)
        if len(data) <= SMALL_BYTES:
            self._table[name] = ("value", 0, None, value)
        else:
            self._table[name] = ("value", 0, self._raw(data))

    def finish(self, meta: Any) -> bytes:
        """The file; ``meta`` (``Reader.meta``) is read on every open, so keep it small:
        anything that grows with the store goes into a part."""
        # The version the reader expects, looked up when the file is written.
        version = file_format.FORMAT_VERSION
        header = marshal.dumps(
            (version, sys.implementation.cache_tag, meta, self._table, self._offset)
        )
        prefix = (
            MAGIC + len(header).to_bytes(8, "little") + zlib.crc32(header).to_bytes(4, "little")
        )
        return b"".join([prefix, header, *self._pieces])


# Rows of the lessons part per chunk: a query fetches the rows of its candidates, spread
# over the whole store, so a chunk is kept to a few rules. Command entries likewise: a
# command's runs name entries all over the part.
ROWS_PER_CHUNK = 4
COMMANDS_PER_CHUNK = 8


def add_index(writer: Writer, index: RecallIndex) -> None:
    """Store every part of ``index``; ``read_index`` gives it back, lazily."""
    rows = zip(*(getattr(index, column) for column in LESSON_COLUMNS), strict=True)
    writer.add_seq("lessons", tuple(rows), ROWS_PER_CHUNK)
    writer.add_seq("commands", tuple(map(tuple, index.commands)), COMMANDS_PER_CHUNK)
    writer.add_value("command_runs", tuple(index.command_runs))
    writer.add_seq("skipped", index.skipped)
    writer.add_seq("always", index.always)
    writer.add_seq("topics", index.topics)
    for name in ("exact", "by_prefix", "keywords"):
        entries = getattr(index, name)
        writer.add_map(name, {key: tuple(map(tuple, found)) for key, found in entries.items()})
    writer.add_map("idf", index.bm25.idf)
    writer.add_map("postings", index.bm25.postings)
    writer.add_seq("doc_len", index.bm25.doc_len)  # for completeness: scores need none of it
    writer.add_value("avgdl", index.bm25.avgdl)
