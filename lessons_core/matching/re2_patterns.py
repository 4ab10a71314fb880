"""RE2, compiled once per pattern: what command triggers and ``forbid`` patterns run.

The RE2 module (a C++ extension, costly to load) is imported on the first compile, so a
call that compiles nothing never loads it. No ``re`` and no ``functools`` here: the cache
is a plain dict, emptied when it is full.
"""

from __future__ import annotations

from typing import Any

# More distinct patterns than a store carries in a long session's worth of calls.
MAX_CACHED = 4096
_cache: dict[str, Any] = {}


def compiled(regex: str) -> Any:
    """``regex`` compiled by RE2, errors not logged to stderr (they are reported to the
    user). Raises ``re2_module().error`` (or ``ValueError`` for text RE2 cannot take as
    UTF-8) when RE2 refuses it."""
    found = _cache.get(regex)
    if found is None:
        re2 = re2_module()
        options = re2.Options()
        options.log_errors = False
        found = re2.compile(regex, options=options)
        if len(_cache) >= MAX_CACHED:
            _cache.clear()
        _cache[regex] = found
    return found


def re2_module() -> Any:
    """The RE2 module, imported on first use."""
    import re2  # noqa: PLC0415 (heavy: RE2)

    return re2
