"""A file lesson's ``forbid`` pattern: text that must not appear in a change to its files.

The pattern is RE2, like a command trigger, so a pattern a person writes can never hang
the hook that checks an agent's change or the ``lessons check`` that checks a diff: RE2 is
linear in the text whatever the pattern. It is searched in the text a change adds, never in
what the file already holds, so a rule can be made to hold from now on in code that still
breaks it (validate names those places).
"""

from __future__ import annotations

from typing import NamedTuple

from lessons_core.matching.re2_patterns import compiled, re2_module

# A forbid pattern names one construct; a longer one is a program, not a rule.
MAX_FORBID_CHARS = 500
# How much of a match a refusal quotes.
MAX_QUOTED_CHARS = 120


class ForbidPatternError(ValueError):
    """A pattern RE2 rejects, or one that matches everything; the message says why."""


class Forbidden(NamedTuple):
    """Where a change breaks a ``forbid`` pattern: the matched text (shortened for quoting)
    and its 1-based line within the text checked."""

    text: str
    line: int


def check_forbid(pattern: str) -> str:
    """``pattern`` when it is usable as a ``forbid`` pattern; raise ``ForbidPatternError``
    saying why not."""
    if not pattern.strip():
        raise ForbidPatternError("is empty")
    if "\x00" in pattern:
        raise ForbidPatternError("contains a NUL character, which no source text holds")
    if len(pattern) > MAX_FORBID_CHARS:
        raise ForbidPatternError(
            f"is {len(pattern):,} characters; the limit is {MAX_FORBID_CHARS}: name the one "
            "construct the rule forbids"
        )
    try:
        empty = compiled(pattern).search("") is not None
    except (re2_module().error, ValueError) as err:  # ValueError: text RE2 cannot take as UTF-8
        reason = err.args[0].decode() if err.args and isinstance(err.args[0], bytes) else err
        raise ForbidPatternError(
            f"is not a valid linear-time pattern ({reason}); backreferences and lookarounds "
            "are not supported"
        ) from None
    if empty:
        raise ForbidPatternError("matches the empty string, so it would refuse every change")
    return pattern


def first_forbidden(pattern: str, added: str) -> Forbidden | None:
    """The first match of ``pattern`` in ``added`` (the text a change adds), or None. A
    pattern that no longer compiles matches nothing: one broken lesson never blocks a
    change (the loader and validate report it)."""
    try:
        found = compiled(pattern).search(added)
    except (re2_module().error, ValueError):
        return None
    if found is None:
        return None
    text = found.group(0)
    if len(text) > MAX_QUOTED_CHARS:
        text = text[: MAX_QUOTED_CHARS - 1] + "…"
    return Forbidden(text=text, line=added.count("\n", 0, found.start()) + 1)
