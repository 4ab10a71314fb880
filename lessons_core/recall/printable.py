"""Lesson text made safe to print: every character that is not plain printable text is
written as its escape.

A lesson file is data from a commit, and so are topics, trigger text and the telemetry
log. Printed raw, a character in them could act on whatever shows it instead of being
read: an escape sequence (``\\x1b]0;…\\x07`` retitles a terminal, ``\\x1b[2J`` clears it,
``\\x1b[8m`` hides what follows), another C0 or C1 control, DEL, a line or paragraph
separator (U+2028, U+2029, line breaks to a JSON or JavaScript reader) or a bidi control
(U+202E turns the rest of a line around, so a reviewer reads something else than what
runs). ``visible`` writes each as its Python escape (``\\x1b``, ``\\u2028``): a reader sees
that it is there, and nothing acts on it. Printable text, the common case, is returned as
it is.

Lesson text an agent may read also has its tags and role markers made inert, as the
hooks do (``inert``: ``lessons_core.recall.render.neutralise`` after ``visible``).
"""

from __future__ import annotations

from lessons_core.recall.render import whole


def inert(text: str) -> str:
    """``text`` whole, as it goes in a fenced block or an answer an agent reads: escapes
    written out, then tags, role markers and fences defused, on one line."""
    return whole(visible(text))


def visible(text: str) -> str:
    """``text`` with each unprintable character (``str.isprintable``: controls, format
    and separator characters, unassigned code points) written as its escape."""
    if text.isprintable():
        return text
    return "".join(char if char.isprintable() else _escape(char) for char in text)


def visible_lines(text: str) -> str:
    """``visible`` for each line of ``text``: its line breaks are kept, every other
    unprintable character is escaped."""
    return "\n".join(visible(line) for line in text.split("\n"))


def visible_json(text: str) -> str:
    """JSON text with each unprintable character inside its strings written as a
    ``\\uXXXX`` escape: the same JSON value, but no raw DEL, C1 control, U+2028 or bidi
    control for the terminal that shows it (a JSON encoder escapes only C0 controls).
    The encoder's own line breaks and spaces are left as they are."""
    if text.replace("\n", "").isprintable():
        return text
    return "".join(
        char if char.isprintable() or char == "\n" else _json_escape(char) for char in text
    )


def _escape(char: str) -> str:
    return char.encode("unicode_escape").decode("ascii")


def _json_escape(char: str) -> str:
    code = ord(char)
    if code < 0x10000:
        return f"\\u{code:04x}"
    code -= 0x10000  # a UTF-16 surrogate pair, as JSON writes characters past the BMP
    return f"\\u{0xD800 + (code >> 10):04x}\\u{0xDC00 + (code & 0x3FF):04x}"
