"""Deterministic JSON on disk, so a lesson diff shows only what changed."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import orjson

from lessons_core.errors import InvalidLessonFile
from lessons_core.fsutil import MAX_STORE_FILE_BYTES, read_store_file

_DUMP_OPTIONS = orjson.OPT_INDENT_2 | orjson.OPT_SORT_KEYS


def dumps(data: Any) -> bytes:
    """Pretty JSON with sorted keys and a trailing newline."""
    return orjson.dumps(data, option=_DUMP_OPTIONS) + b"\n"


def load_object(
    path: Path, raw: bytes | None = None, limit: int | None = MAX_STORE_FILE_BYTES
) -> dict[str, Any]:
    """Read a JSON object from ``path`` (or parse ``raw``, its bytes when the caller has
    already read them); a parse failure names the file. A symbolic link is not followed
    (it could lead out of the repo) and is reported like a broken file, and so is a file
    over ``limit`` bytes (None: a file the user named, of any size)."""
    try:
        data = orjson.loads(read_store_file(path, limit) if raw is None else raw)
    except orjson.JSONDecodeError as err:
        raise InvalidLessonFile(
            path, f"not valid JSON ({err}); fix or remove the file", kind="unparsable"
        ) from None
    if not isinstance(data, dict):
        raise InvalidLessonFile(path, "must hold a JSON object", kind="unparsable")
    return data
