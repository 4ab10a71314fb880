"""Command triggers: RE2 patterns matched against each part of a shell command.

RE2 runs in time linear in the input whatever the pattern, so a pattern written by an
agent can never hang a hook; it refuses backreferences and lookarounds at compile time,
which is where ``lessons add`` reports them. A pattern that begins or ends with a word
character gets a word boundary there, so ``rm`` fires on ``rm -rf x`` but not on ``format``.
"""

from __future__ import annotations

import re
from functools import lru_cache  # re imports functools anyway

from lessons_core.records import NamedTuple

TYPE_CHECKING = False  # typing costs a hook ~8 ms: lessons_core.records
if TYPE_CHECKING:
    from collections.abc import Sequence
    from typing import Any

# Shell operators that start a new simple command. Quotes are not parsed: a false split
# inside a quoted string only adds a part, and every part is still matched as a whole too.
_SEPARATORS = re.compile(r"\|\||&&|[;|&\n]|\$\(|`|\(|\)")
_ASSIGNMENT = re.compile(r"^(?:[A-Za-z_][A-Za-z0-9_]*=(?:'[^']*'|\"[^\"]*\"|\S*)\s+)+")
_WORD_START = re.compile(r"^\w", re.UNICODE)
_WORD_END = re.compile(r"\w$", re.UNICODE)
# How much of a simple command ``shell_words`` reads (see there).
MAX_PARSED_CHARS = 4096


class CommandPatternError(ValueError):
    """A pattern RE2 rejects or that matches everything; the message says why."""


class CommandPattern(NamedTuple):
    pattern: str
    regex: str

    def matches(self, command: str) -> bool:
        """The command matcher, as recall runs it on the index (``fired_part``)."""
        return fired_part(self.regex, request_parts(command)) is not None


def compile_command(pattern: str) -> CommandPattern:
    """Compile ``pattern``; raise ``CommandPatternError`` when RE2 refuses it or it matches ''."""
    if not pattern.strip():
        raise CommandPatternError("is empty")
    if "\x00" in pattern:
        raise CommandPatternError("contains a NUL character, which no command holds")
    regex = bounded_regex(pattern)
    try:
        compiled = _compiled(regex)
        # Checked on the pattern as written too: `x*` would be rescued by the word boundary
        # added in front of it, but it still means "anything" to whoever wrote it.
        empty = compiled.search("") is not None or _compiled(pattern).search("") is not None
    except (_re2().error, ValueError) as err:  # ValueError: text RE2 cannot take as UTF-8
        reason = err.args[0].decode() if err.args and isinstance(err.args[0], bytes) else err
        raise CommandPatternError(
            f"is not a valid linear-time pattern ({reason}); backreferences and lookarounds "
            "are not supported, write the literal command instead"
        ) from None
    if empty:
        raise CommandPatternError("matches the empty string, so it would fire on every command")
    return CommandPattern(pattern=pattern, regex=regex)


def bounded_regex(pattern: str) -> str:
    """Add word boundaries where each alternative starts or ends with a word character.

    Boundaries go on each top-level alternative, so ``sed|cat`` fires on ``cat x`` but not
    on ``bobcat``, and ``git push| rm`` leaves the space-led alternative alone.
    """
    alternatives = [_bounded(alt) for alt in top_level_alternatives(pattern)]
    if len(alternatives) == 1:
        return alternatives[0]
    return "(?:" + "|".join(alternatives) + ")"


def _bounded(alternative: str) -> str:
    regex = alternative
    if _WORD_START.search(alternative):
        regex = r"\b" + regex
    if _WORD_END.search(alternative) and alternative[-2:-1] != "\\":
        regex = regex + r"\b"
    return regex


def top_level_alternatives(pattern: str) -> list[str]:
    """Split ``pattern`` at ``|`` outside groups, classes and escapes."""
    parts: list[str] = []
    depth = 0
    in_class = False
    start = 0
    index = 0
    while index < len(pattern):
        char = pattern[index]
        if char == "\\":
            index += 2
            continue
        if in_class:
            in_class = char != "]"
        elif char == "[":
            in_class = True
            # a ']' right after '[' or '[^' is a literal member, not the end of the class
            if pattern[index + 1 : index + 2] == "^":
                index += 1
            if pattern[index + 1 : index + 2] == "]":
                index += 1
        elif char == "(":
            depth += 1
        elif char == ")":
            depth = max(0, depth - 1)
        elif char == "|" and depth == 0:
            parts.append(pattern[start:index])
            start = index + 1
        index += 1
    parts.append(pattern[start:])
    return parts


def command_parts(command: str) -> list[str]:
    """The whole command plus each simple command in it, leading ``VAR=x`` removed."""
    # A dict keeps first-seen order and finds repeats in constant time: a heredoc of
    # thousands of lines is thousands of parts, and a list search made that quadratic.
    parts = {command.strip(): None}
    for piece in _SEPARATORS.split(command):
        stripped = _ASSIGNMENT.sub("", piece.strip()).strip()
        if stripped:
            parts.setdefault(stripped, None)
    return list(parts)


def shell_words(part: str, limit: int = MAX_PARSED_CHARS) -> list[str]:
    """The words of the first ``limit`` characters of a simple command, quotes removed.

    ``shlex`` grows each word one character at a time by string concatenation, so it is
    quadratic in a word's length: a 200 kB word took a second. No program name or option
    is that long, so only the head of the command is read. Unbalanced quotes (also what a
    cut can leave) fall back to splitting at white space.
    """
    import shlex

    head = part[:limit]
    try:
        return shlex.split(head)
    except ValueError:
        return head.split()


def request_parts(command: str) -> tuple[str, ...]:
    """What a command trigger is matched against: each simple command of ``command``, then
    the whole (``command_parts``), so the part a match reports is the smallest."""
    whole, *pieces = command_parts(command)
    return (*pieces, whole)


def fired_part(regex: str, parts: Sequence[str]) -> str | None:
    """The one command matcher: the first of ``parts`` (``request_parts``, split once by
    the caller) in which the pattern's RE2 ``regex`` matches, or None."""
    compiled = _compiled(regex)
    return next((part for part in parts if compiled.search(part) is not None), None)


@lru_cache(maxsize=4096)
def _compiled(regex: str) -> Any:
    re2 = _re2()
    options = re2.Options()
    options.log_errors = False  # errors are reported to the user, not logged to stderr
    return re2.compile(regex, options=options)


def _re2() -> Any:
    """The RE2 module, imported on first use: splitting a command into its parts (what a
    hook does for every shell call) needs only ``re``."""
    import re2

    return re2
