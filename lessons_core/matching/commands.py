"""Command triggers: RE2 patterns matched against each part of a shell command.

RE2 runs in time linear in the input whatever the pattern, so a pattern written by an
agent can never hang a hook; it refuses backreferences and lookarounds at compile time,
which is where ``lessons add`` reports them. A pattern that begins or ends with a word
character gets a word boundary there, so ``rm`` fires on ``rm -rf x`` but not on ``format``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, NamedTuple

from lessons_core.matching.command_plans import plan_matches, top_level_alternatives
from lessons_core.matching.re2_patterns import compiled as _compiled
from lessons_core.matching.re2_patterns import re2_module

if TYPE_CHECKING:
    from collections.abc import Sequence

    from lessons_core.matching.command_plans import Plan

# Shell operators that start a new simple command. Quotes are not parsed: a false split
# inside a quoted string only adds a part, and every part is still matched as a whole too.
# Each becomes NUL and the text is split there (``$(`` first, so its ``(`` is not left
# behind); a command that holds a NUL itself takes the character loop instead.
_SEPARATOR_CHARS = ";|&\n`()"
_TO_NUL = str.maketrans(dict.fromkeys(_SEPARATOR_CHARS, "\0"))
# What ``shlex`` (POSIX mode, as ``shlex.split``) treats specially beyond its white space:
# a command without any of them is split at white space alone (``_posix_words`` reads the
# others).
_SHLEX_SPECIALS = frozenset("'\"\\")
_SHLEX_BLANKS = str.maketrans(dict.fromkeys("\t\r\n", " "))
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
    except (re2_module().error, ValueError) as err:  # ValueError: text RE2 cannot take as UTF-8
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
    if _word(alternative[:1]):
        regex = r"\b" + regex
    # What Python's ``\w$`` finds: a word character last, or before a final newline.
    last = alternative[-2:-1] if alternative.endswith("\n") else alternative[-1:]
    if (_word(alternative[-1:]) or _word(last)) and alternative[-2:-1] != "\\":
        regex = regex + r"\b"
    return regex


def _word(char: str) -> bool:
    r"""Python's ``\w`` (Unicode) on one character."""
    return char.isalnum() or char == "_"


def command_parts(command: str) -> list[str]:
    """The whole command plus each simple command in it, leading ``VAR=x`` removed."""
    # A dict keeps first-seen order and finds repeats in constant time: a heredoc of
    # thousands of lines is thousands of parts, and a list search made that quadratic.
    parts = {command.strip(): None}
    for piece in _pieces(command):
        stripped = _without_assignments(piece.strip()).strip()
        if stripped:
            parts.setdefault(stripped, None)
    return list(parts)


def _pieces(command: str) -> list[str]:
    """``command`` split at every shell operator that starts a simple command (``||``,
    ``&&``, ``;``, ``|``, ``&``, a newline, ``$(``, a backtick, a parenthesis); a piece
    between two operators is empty."""
    if "\0" not in command:
        return command.replace("$(", "\0").translate(_TO_NUL).split("\0")
    pieces, start, index, size = [], 0, 0, len(command)
    while index < size:
        char = command[index]
        if char in _SEPARATOR_CHARS or command.startswith("$(", index):
            pieces.append(command[start:index])
            index += 2 if char == "$" else 1
            start = index
        else:
            index += 1
    pieces.append(command[start:])
    return pieces


def _without_assignments(piece: str) -> str:
    """``piece`` without its leading ``VAR=value`` words (each followed by white space): a
    value is a single-quoted string, a double-quoted one, or a run of non-space, tried in
    that order, as the regular expression
    ``^(?:[A-Za-z_][A-Za-z0-9_]*=(?:'[^']*'|"[^"]*"|\\S*)\\s+)+`` removes them."""
    at, size = 0, len(piece)
    while True:
        name_end = at
        while name_end < size and _name_char(piece[name_end], name_end == at):
            name_end += 1
        if name_end == at or piece[name_end : name_end + 1] != "=":
            return piece[at:]
        value = name_end + 1
        after = -1
        quote = piece[value : value + 1]
        if quote in ("'", '"'):
            close = piece.find(quote, value + 1)
            if close >= 0 and piece[close + 1 : close + 2].isspace():
                after = close + 1
        if after < 0:  # a run of non-space, which must be followed by white space
            after = value
            while after < size and not piece[after].isspace():
                after += 1
            if after == size:
                return piece[at:]
        while after < size and piece[after].isspace():
            after += 1
        at = after


def _name_char(char: str, first: bool) -> bool:
    ascii_letter = "a" <= char <= "z" or "A" <= char <= "Z" or char == "_"
    return ascii_letter or (not first and "0" <= char <= "9")


def shell_words(part: str, limit: int = MAX_PARSED_CHARS) -> list[str]:
    """The words of the first ``limit`` characters of a simple command, quotes removed,
    as ``shlex.split`` reads them (``_posix_words``; ``shlex`` itself imports ``re``).

    shlex grew each word one character at a time, quadratic in a word's length (a 200 kB
    word took a second); no program name or option is that long, so only the head of the
    command is read. Unbalanced quotes (also what a cut can leave) fall back to splitting
    at white space.
    """
    head = part[:limit]
    if _SHLEX_SPECIALS.isdisjoint(head):
        return [word for word in head.translate(_SHLEX_BLANKS).split(" ") if word]
    try:
        return _posix_words(head)
    except ValueError:
        return head.split()


def _posix_words(text: str) -> list[str]:
    """``shlex.split(text)`` without importing ``shlex`` (it imports ``re``): words split
    at its white space, single quotes taken literally, a backslash escaping the next
    character outside quotes and only ``\\`` or ``"`` inside double quotes; a ``ValueError``
    where shlex raises one (an unclosed quote, a backslash at the end)."""
    words: list[str] = []
    token: list[str] = []
    state = " "  # between words, "a" in one, or the quote a quoted string is in
    index, size = 0, len(text)
    while index < size:
        char = text[index]
        index += 1
        if state in ("'", '"'):
            if char == state:
                state = "a"
            elif char == "\\" and state == '"':
                if index == size:
                    raise ValueError("No escaped character")
                escaped = text[index]
                index += 1
                token.append(escaped if escaped in '\\"' else "\\" + escaped)
            else:
                token.append(char)
        elif char in " \t\r\n":
            if state == "a":
                words.append("".join(token))
                token, state = [], " "
        elif char == "\\":
            if index == size:
                raise ValueError("No escaped character")
            token.append(text[index])
            index += 1
            state = "a"
        elif char in "'\"":
            state = char
        else:
            token.append(char)
            state = "a"
    if state in ("'", '"'):
        raise ValueError("No closing quotation")
    if state == "a":
        words.append("".join(token))
    return words


def request_parts(command: str) -> tuple[str, ...]:
    """What a command trigger is matched against: each simple command of ``command``, then
    the whole (``command_parts``), so the part a match reports is the smallest."""
    whole, *pieces = command_parts(command)
    return (*pieces, whole)


def fired_part(
    regex: str, parts: Sequence[str], plan: Plan | None = None, needs: Sequence[str] = ()
) -> str | None:
    """The one command matcher: the first of ``parts`` (``request_parts``, split once by
    the caller) in which the pattern's RE2 ``regex`` matches, or None. With the regex's
    ``plan`` (``command_plans.command_plan``, made when the index is built) the match is
    found with string methods and RE2 is not loaded; without one, RE2 runs only on the
    parts holding every literal run the regex ``needs`` (``regex_literals.required_runs``)."""
    if plan is not None:
        return next((part for part in parts if plan_matches(plan, part)), None)
    candidates = [part for part in parts if all(run in part for run in needs)]
    if not candidates:
        return None
    compiled = _compiled(regex)
    return next((part for part in candidates if compiled.search(part) is not None), None)
