"""What a command pattern pins down: the literal text every match must contain.

Two measures, both taken when the recall index is built, never per query:

- ``pinned_chars``: how many literal characters any match must contain (an alternation
  counts its shortest branch, an optional part counts nothing). ``git push --force`` pins
  16, ``git push`` 8, ``git\\s+\\w+`` 3. Command triggers rank by it.
- ``required_run``: one run of literal text that every match contains (the longest such
  run at the top level of the pattern). A command without it cannot match, so recall skips
  compiling that pattern at all.

Patterns are RE2 syntax; they are read with Python's own regex parser, which accepts the
syntax both engines share. A pattern it cannot read (RE2-only escapes such as ``\\pL``)
gets the cautious answer: no required run, and its letters and digits outside escapes and
repeat counts taken as pinned.
"""

from __future__ import annotations

import re
import warnings
from importlib import import_module
from typing import Any

_ESCAPES_AND_COUNTS = re.compile(r"\\[pP]\{[^}]*\}|\\[pP].|\\.|\{[\d,]*\}")
# A repeat with a huge minimum ({1000}) must not make one pattern outrank all others.
_MAX_COUNTED_REPEAT = 16


def _parser() -> Any:
    try:
        return import_module("re._parser")  # Python 3.11+
    except ImportError:  # pragma: no cover - Python 3.10
        return import_module("sre_parse")


def _parse(pattern: str) -> Any | None:
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return _parser().parse(pattern)
    except Exception:  # any parser complaint means "cannot read it", never a crash
        return None


def _name(op: Any) -> str:
    return str(getattr(op, "name", op))


def _pinned(nodes: Any) -> int:
    total = 0
    for op, arg in nodes:
        kind = _name(op)
        if kind == "LITERAL":
            total += 1
        elif kind == "SUBPATTERN":
            total += _pinned(arg[-1])
        elif kind == "ATOMIC_GROUP":
            total += _pinned(arg)
        elif kind == "BRANCH":
            total += min((_pinned(branch) for branch in arg[1]), default=0)
        elif kind in {"MAX_REPEAT", "MIN_REPEAT", "POSSESSIVE_REPEAT"}:
            total += min(arg[0], _MAX_COUNTED_REPEAT) * _pinned(arg[2])
    return total


def pinned_chars(pattern: str) -> int:
    """Literal characters every match of ``pattern`` contains (see the module docstring)."""
    parsed = _parse(pattern)
    if parsed is None:
        plain = _ESCAPES_AND_COUNTS.sub("", pattern)
        return sum(1 for char in plain if char.isalnum())
    return _pinned(parsed.data)


def required_run(pattern: str) -> str:
    """A literal substring of every match, or "" when none is known."""
    parsed = _parse(pattern)
    if parsed is None or parsed.state.flags & re.IGNORECASE:
        return ""
    best, run = "", []
    for op, arg in [*parsed.data, (None, None)]:
        if op is not None and _name(op) == "LITERAL":
            run.append(chr(arg))
            continue
        if len(run) > len(best):
            best = "".join(run)
        run = []
    return best
