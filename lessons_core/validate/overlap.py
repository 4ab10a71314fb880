"""Whether two sets of triggers can fire on the same call: a file both globs match, a
command both patterns match, a keyword both carry.

Judged without listing every path or command there could be:

- globs: the same glob; or one matches a path the other stands for (``src/**/*.py``
  stands for ``src/x/x.py``, which ``src/db/*.py``... does not match, but ``src/db/x.py``,
  the path ``src/db/*.py`` stands for, matches ``src/**/*.py``); or both match one of the
  repo's files;
- command patterns: one matches a command the other stands for (the shortest text it
  matches: ``git push.*--force`` stands for ``git push--force``), either way round;
- keywords: the same words (``read only`` and ``read-only`` are one keyword).
"""

from __future__ import annotations

from collections.abc import Callable
from functools import lru_cache
from typing import Protocol, TypeVar

from lessons_core.matching.commands import CommandPatternError, compile_command
from lessons_core.matching.glob_counts import FileIndex
from lessons_core.matching.globs import GlobError, compile_glob
from lessons_core.matching.regex_literals import example_texts
from lessons_core.matching.words import fold, tokens
from lessons_core.store.model import Triggers

_EMPTY = FileIndex(())


def shared_trigger(first: Triggers, second: Triggers, files: FileIndex = _EMPTY) -> str | None:
    """How both can fire on one call ("file 'src/db/**'", "command 'git push'",
    "keyword 'alembic'"), or None when they cannot (as far as these checks see)."""
    for glob in first.files:
        for other in second.files:
            if _globs_meet(glob, other, files):
                return f"file '{glob}'" if glob == other else f"files '{glob}' and '{other}'"
    for pattern in first.commands:
        for other in second.commands:
            if _commands_meet(pattern, other):
                return (
                    f"command '{pattern}'"
                    if pattern == other
                    else f"commands '{pattern}' and '{other}'"
                )
    keywords = {_keyword(word): word for word in second.keywords}
    for word in first.keywords:
        if _keyword(word) in keywords:
            return f"keyword '{word}'"
    return None


def _keyword(word: str) -> str:
    return " ".join(tokens(word)) or fold(word)


def _globs_meet(first: str, second: str, files: FileIndex) -> bool:
    one = _compiled(compile_glob, GlobError, first)
    two = _compiled(compile_glob, GlobError, second)
    if one is None or two is None:
        return False
    if _stand_ins_meet(first, second):
        return True
    if not len(files):
        return False
    return not set(files.matching(one)).isdisjoint(files.matching(two))


@lru_cache(maxsize=65536)
def _stand_ins_meet(first: str, second: str) -> bool:
    """The same glob, or one matching the path the other stands for."""
    return _meet(
        _compiled(compile_glob, GlobError, first),
        _compiled(compile_glob, GlobError, second),
        lambda one, two: two.matches(_stand_in(one.glob)) or one.matches(_stand_in(two.glob)),
    )


class _Compiled(Protocol):
    regex: str

    def matches(self, text: str, /) -> bool: ...


_C = TypeVar("_C", bound=_Compiled)


def _meet(one: _C | None, two: _C | None, test: Callable[[_C, _C], bool]) -> bool:
    """Two compiled triggers meet: both valid, and the same regex or ``test`` says so."""
    if one is None or two is None:
        return False
    return one.regex == two.regex or test(one, two)


@lru_cache(maxsize=16384)
def _compiled(compile_it: Callable[[str], _C], error: type[ValueError], text: str) -> _C | None:
    """``compile_it(text)``, or None for a trigger validate reports as invalid."""
    try:
        return compile_it(text)
    except error:
        return None


@lru_cache(maxsize=8192)
def _stand_in(glob: str) -> str:
    """A path the glob matches: each wildcard as the shortest name it takes."""
    parts = []
    for part in glob.strip("/").split("/"):
        if part == "**":
            continue  # any depth: the shortest is none
        out: list[str] = []
        index = 0
        while index < len(part):
            char = part[index]
            if char in "*?":
                out.append("x" if char == "?" or not out else "")
            elif char == "[":
                end = part.find("]", index + 2)
                body = part[index + 1 : end] if end > 0 else ""
                out.append(body.lstrip("!^")[:1] or "x")
                index = end if end > 0 else index
            elif char == "\\" and index + 1 < len(part):
                index += 1
                out.append(part[index])
            else:
                out.append(char)
            index += 1
        parts.append("".join(out) or "x")
    if glob.rstrip("/").endswith("**"):
        parts.append("x")  # `src/**` matches what is below src/, not src itself
    return "/".join(parts)


@lru_cache(maxsize=65536)
def _commands_meet(first: str, second: str) -> bool:
    return _meet(
        _compiled(compile_command, CommandPatternError, first),
        _compiled(compile_command, CommandPatternError, second),
        lambda one, two: (
            any(two.matches(text) for text in _examples(one.pattern))
            or any(one.matches(text) for text in _examples(two.pattern))
        ),
    )


@lru_cache(maxsize=8192)
def _examples(pattern: str) -> tuple[str, ...]:
    return tuple(example_texts(pattern))
