"""JavaScript regular expressions (no flags) rewritten as RE2 patterns with the same matches.

RE2 shares most of JavaScript's syntax. The differences handled here: JavaScript's
``\\uXXXX``, ``\\cX`` and ``\\0`` escapes, identity escapes of plain letters (``\\e`` is
``e``), ``{`` that is not a quantifier (literal in JavaScript, an error or a repeat in RE2),
``[^]`` (any character) and ``[\\b]`` (backspace). Lookarounds and backreferences have
no linear-time equivalent and are reported, never approximated. JavaScript's ``\\s``
also matches Unicode spaces where RE2's does not; shell commands do not contain them.
"""

from __future__ import annotations

import re

# Escapes RE2 reads the way JavaScript does (classes, anchors, control characters).
_SAME_ESCAPES = frozenset("dDwWsSbBtnrfv")
_QUANTIFIER = re.compile(r"\{\d+(?:,\d*)?\}")
_HEX = frozenset("0123456789abcdefABCDEF")


class UntranslatableRegex(ValueError):
    """The pattern uses a construct RE2 cannot express; the message names it."""


def translate_js_regex(pattern: str) -> str:
    """Rewrite ``pattern`` for RE2; raise ``UntranslatableRegex`` when that is impossible."""
    out: list[str] = []
    i, in_class = 0, False
    while i < len(pattern):
        char = pattern[i]
        if char == "\\":
            text, i = _escape(pattern, i + 1, in_class)
            out.append(text)
            continue
        if in_class:
            if char == "]":
                in_class = False
            elif char == "[":
                char = r"\["  # literal in a JavaScript class; RE2 would read "[:" as POSIX
            out.append(char)
            i += 1
            continue
        if char == "[":
            text, i, in_class = _class_start(pattern, i)
            out.append(text)
            continue
        if char == "(" and pattern.startswith("(?", i):
            out.append(_group_start(pattern, i))
            i += 3 if pattern.startswith(("(?<", "(?:"), i) else 2
            continue
        if char == "{" and not _QUANTIFIER.match(pattern, i):
            char = r"\{"
        elif char == "}" and not _closes_quantifier(pattern, i):
            char = r"\}"
        out.append(char)
        i += 1
    return "".join(out)


def _escape(pattern: str, i: int, in_class: bool) -> tuple[str, int]:
    """Translate the escape whose letter is at ``i``; return the text and the next index."""
    if i >= len(pattern):
        raise UntranslatableRegex("ends with a lone backslash")
    char = pattern[i]
    if char.isdigit() and char != "0":
        if not in_class:
            raise UntranslatableRegex(f"uses a backreference (\\{char}), which RE2 cannot match")
        return _octal(pattern, i)
    if char == "0":
        return _octal(pattern, i)
    if char == "k" and pattern.startswith("<", i + 1):
        raise UntranslatableRegex("uses a named backreference (\\k<...>), which RE2 cannot match")
    if char == "u" and _is_hex(pattern[i + 1 : i + 5], 4):
        return f"\\x{{{pattern[i + 1 : i + 5]}}}", i + 5
    if char == "x" and _is_hex(pattern[i + 1 : i + 3], 2):
        return f"\\x{pattern[i + 1 : i + 3]}", i + 3
    if (
        char == "c"
        and i + 1 < len(pattern)
        and pattern[i + 1].isascii()
        and pattern[i + 1].isalpha()
    ):
        return f"\\x{{{ord(pattern[i + 1]) % 32:02X}}}", i + 2
    if char == "b" and in_class:
        return r"\x08", i + 1
    if char == "c":
        return r"\\c", i + 1  # JavaScript reads a \c without a letter as a backslash and "c"
    if char in _SAME_ESCAPES:
        return "\\" + char, i + 1
    if char == "/":
        return "/", i + 1
    if char.isalnum() or not char.isascii():
        return char, i + 1  # identity escape: "\e" is "e" in JavaScript
    return "\\" + char, i + 1


def _octal(pattern: str, i: int) -> tuple[str, int]:
    """``\\0``, or a legacy octal escape inside a class (``[\\1]`` is U+0001)."""
    end = i
    while end < len(pattern) and end - i < 3 and pattern[end] in "01234567":
        end += 1
    value = int(pattern[i:end] or "0", 8)
    return f"\\x{{{value:02X}}}", max(end, i + 1)


def _class_start(pattern: str, i: int) -> tuple[str, int, bool]:
    """``[^]`` matches any character and ``[]`` none; other classes pass through."""
    if pattern.startswith("[^]", i):
        return r"[\s\S]", i + 3, False
    if pattern.startswith("[]", i):
        raise UntranslatableRegex("has an empty class '[]', which never matches")
    if pattern.startswith("[^", i):
        return "[^", i + 2, True
    return "[", i + 1, True


def _group_start(pattern: str, i: int) -> str:
    if pattern.startswith(("(?=", "(?!", "(?<=", "(?<!"), i):
        raise UntranslatableRegex("uses a lookaround, which RE2 cannot match")
    if pattern.startswith("(?<", i):
        return "(?P<"
    if pattern.startswith("(?:", i):
        return "(?:"
    raise UntranslatableRegex(f"uses a group syntax RE2 does not share ({pattern[i : i + 4]})")


def _closes_quantifier(pattern: str, i: int) -> bool:
    start = pattern.rfind("{", 0, i)
    return start >= 0 and _QUANTIFIER.fullmatch(pattern, start, i + 1) is not None


def _is_hex(text: str, length: int) -> bool:
    return len(text) == length and all(c in _HEX for c in text)
