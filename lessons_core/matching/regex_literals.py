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


def required_runs(pattern: str) -> tuple[str, ...]:
    """Every run of literal text at the top level of ``pattern`` (inside one group that
    is the whole pattern, when it is): a text lacking any of them cannot match. Empty
    when none is known."""
    parsed = _parse(pattern)
    if parsed is None or parsed.state.flags & re.IGNORECASE:
        return ()
    nodes = list(parsed.data)
    while len(nodes) == 1 and _name(nodes[0][0]) == "SUBPATTERN" and not any(nodes[0][1][1:3]):
        nodes = list(nodes[0][1][-1])
    runs, run = [], []
    for op, arg in [*nodes, (None, None)]:
        if op is not None and _name(op) == "LITERAL":
            run.append(chr(arg))
            continue
        if run:
            runs.append("".join(run))
        run = []
    return tuple(dict.fromkeys(runs))


def example_texts(pattern: str) -> list[str]:
    """Short texts ``pattern`` matches: for each branch of a top-level alternation, each
    part at its fewest repeats and each class as its first character (``git push.*-f``
    gives ``git push-f``). Empty when the pattern cannot be read; a caller checks a
    text against the pattern's own matcher before relying on it."""
    parsed = _parse(pattern)
    if parsed is None:
        return []
    nodes = list(parsed.data)
    if len(nodes) == 1 and _name(nodes[0][0]) == "SUBPATTERN":
        nodes = list(nodes[0][1][-1])
    if len(nodes) == 1 and _name(nodes[0][0]) == "BRANCH":
        return [_example(branch) for branch in nodes[0][1][1]]
    return [_example(nodes)]


def _example(nodes: Any) -> str:
    out: list[str] = []
    for op, arg in nodes:
        kind = _name(op)
        if kind == "LITERAL":
            out.append(chr(arg))
        elif kind == "ANY":
            out.append("x")
        elif kind == "IN":
            out.append(_class_member(arg))
        elif kind == "SUBPATTERN":
            out.append(_example(arg[-1]))
        elif kind == "ATOMIC_GROUP":
            out.append(_example(arg))
        elif kind == "BRANCH":
            out.append(_example(arg[1][0]) if arg[1] else "")
        elif kind in {"MAX_REPEAT", "MIN_REPEAT", "POSSESSIVE_REPEAT"}:
            out.append(_example(arg[2]) * min(arg[0], _MAX_COUNTED_REPEAT))
    return "".join(out)


def _class_member(items: Any) -> str:
    """A character of a class: its first literal or range start; a space for ``\\s``, a
    letter for ``\\w`` and negated classes, a digit for ``\\d``."""
    for op, arg in items:
        kind = _name(op)
        if kind == "LITERAL":
            return chr(arg)
        if kind == "RANGE":
            return chr(arg[0])
        if kind == "CATEGORY":
            name = _name(arg)
            return " " if "SPACE" in name and "NOT" not in name else "0" if "DIGIT" in name else "x"
        if kind == "NEGATE":
            return "x"
    return "x"
