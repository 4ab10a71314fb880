"""How much of a path or a command a trigger pins down: the first part of every rank key.

Each measure is a tuple of small integers, larger meaning more specific, compared
left to right. They depend on the trigger alone, so the index computes them once.

File globs (segments are the parts between slashes)::

    (exact, literal_segments, leaf, bounded, partial_segments, prefix_depth, literal_chars)

- ``exact``: 1 when the glob has no wildcard at all (it names one file).
- ``literal_segments``: whole segments without a wildcard (``src/*/cli.ts``: 2).
- ``leaf``: the last segment is a literal name (2), has literal text such as an
  extension (1, ``*.ts``), or is a bare wildcard (0, ``*`` or ``**``).
- ``bounded``: 1 when there is no ``**``, so the glob fixes the depth of the path.
- ``partial_segments``: segments mixing literal text and wildcards (``init*.ts``).
- ``prefix_depth``: literal segments before the first wildcard (``src/cli/**``: 2).
- ``literal_chars``: characters that are not wildcards (``*.test.ts`` beats ``*.ts``).

That order gives, for one directory ``dir``::

    exact path > dir/*/name.ext > dir/*.ext > dir/**/*.ext > dir/** > **/*.ext > **

and a deeper literal prefix beats a shallower one of the same form (``src/cli/**`` >
``src/**``), because each directory it fixes is one more literal segment. A literal file
name counts as much as a literal directory: for ``src/api/package.json``,
``**/package.json`` and ``src/**`` each fix one segment, and the named file wins on
``leaf``. ``tests/test_specificity.py`` checks every step of the chain.

Command patterns::

    (pinned_chars, anchored)

``pinned_chars`` is how many literal characters every match contains (``git push --force``
16 > ``git push`` 8 > ``git`` 3); ``anchored`` is 1 for a pattern tied to the start of a
command part with ``^``.

Keywords::

    (words, chars)

A phrase of more words is more specific than one word (``read only`` > ``only``).
"""

from __future__ import annotations

from lessons_core.matching.regex_literals import pinned_chars
from lessons_core.matching.words import tokens

_WILDCARDS = frozenset("*?[")
_CLASS_CHARS = frozenset("*?[]")


def _has_wildcard(segment: str) -> bool:
    return any(char in _WILDCARDS for char in segment)


def _literal_chars(segment: str) -> int:
    """Characters of ``segment`` outside wildcards and bracket expressions."""
    count, in_class = 0, False
    for char in segment:
        if char == "[":
            in_class = True
        elif char == "]" and in_class:
            in_class = False
        elif not in_class and char not in _CLASS_CHARS:
            count += 1
    return count


def glob_specificity(glob: str) -> tuple[int, int, int, int, int, int, int]:
    """The rank measure of a normalised glob (see the module docstring)."""
    segments = [segment for segment in glob.split("/") if segment]
    if not segments:
        return (0, 0, 0, 0, 0, 0, 0)
    literal = [not _has_wildcard(segment) for segment in segments]
    chars = [_literal_chars(segment) for segment in segments]
    leaf = segments[-1]
    if literal[-1]:
        leaf_kind = 2
    elif leaf != "**" and chars[-1] > 0:
        leaf_kind = 1
    else:
        leaf_kind = 0
    prefix_depth = 0
    for is_literal in literal:
        if not is_literal:
            break
        prefix_depth += 1
    return (
        1 if all(literal) else 0,
        sum(literal),
        leaf_kind,
        0 if "**" in segments else 1,
        sum(1 for is_literal, n in zip(literal, chars, strict=True) if not is_literal and n > 0),
        prefix_depth,
        sum(chars) + len(segments) - 1,
    )


def command_specificity(pattern: str) -> tuple[int, int]:
    """The rank measure of a command pattern (see the module docstring)."""

    return (pinned_chars(pattern), 1 if pattern.startswith("^") else 0)


def keyword_specificity(keyword: str) -> tuple[int, int]:
    words = tokens(keyword)
    return (len(words), sum(len(word) for word in words))


def glob_suffix(glob: str) -> str:
    """Literal text every matching path ends with ("" when the glob ends in a wildcard)."""
    leaf = glob.rstrip("/").rsplit("/", 1)[-1]
    cut = max(leaf.rfind(char) for char in "*?[]")
    return leaf[cut + 1 :]
