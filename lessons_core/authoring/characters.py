"""Characters capture refuses: they can hide or rewrite what a terminal or an editor shows.

A terminal runs ESC sequences (colour, cursor moves, window titles) and rings on BEL; a
lone carriage return lets later text overwrite earlier text on the same line; U+2028 and
U+2029 end a line for some readers and not others; bidirectional overrides show text in
another order than it is stored in, so what a reviewer reads is not what the agent gets.
None of them belongs in a one-line rule, a trigger, a topic or a reference.
"""

from __future__ import annotations

from typing import NamedTuple

_LINE_SEPARATORS = frozenset("\u2028\u2029")
_BIDI_CONTROLS = frozenset("\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")


class BadCharacter(NamedTuple):
    position: int  # 1-based, as a person counts
    escape: str  # how to write it: \x1b, \u2028
    kind: str


def bad_character(text: str, multiline: bool = False) -> BadCharacter | None:
    """The first character of ``text`` capture refuses, or None. C0 controls (but tab,
    line feed and a carriage return before a line feed, in a ``multiline`` field), DEL,
    C1 controls, line and paragraph separators and bidirectional controls."""
    for index, char in enumerate(text):
        kind = _kind(char)
        if kind is None:
            continue
        if multiline and (char in "\t\n" or (char == "\r" and text[index + 1 : index + 2] == "\n")):
            continue
        return BadCharacter(index + 1, escaped(char), kind)
    return None


# The C0 controls by their names in ASCII, as a person searching for one would know it.
_C0_NAMES = (
    "NUL SOH STX ETX EOT ENQ ACK BEL BS TAB LF VT FF CR SO SI "
    "DLE DC1 DC2 DC3 DC4 NAK SYN ETB CAN EM SUB ESC FS GS RS US"
).split()


def _kind(char: str) -> str | None:
    code = ord(char)
    if code < 0x20:
        return f"a control character ({_C0_NAMES[code]})"
    if code == 0x7F:
        return "a control character (DEL)"
    if 0x80 <= code < 0xA0:
        return "a C1 control character"
    if char in _LINE_SEPARATORS:
        return "a line separator"
    if char in _BIDI_CONTROLS:
        return "a bidirectional control"
    return None


def escaped(char: str) -> str:
    """``char`` written as an escape: ``\\x1b`` below U+0100, ``\\u2028`` above."""
    code = ord(char)
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"
