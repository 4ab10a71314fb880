"""Command patterns that match words literally, and the words back from such a pattern.

A failed action's identity and a capture line's pattern are anchored literal words
(``^pnpm test:e2e``); a session's evidence keeps the words. Kept apart from the shell
parsing in ``lessons_core.matching.command_words``, which only calls on commands need.
"""

_REGEX_SPECIALS = frozenset("\\.^$*+?()[]{}|")


def anchored(words: list[str]) -> str:
    """The command pattern for ``words``: anchored at the start, each word literal
    (``^c\\+\\+`` for ``c++``)."""
    return "^" + " ".join(literal_pattern(word) for word in words)


def unanchored(pattern: str) -> str:
    """The words ``anchored`` made ``pattern`` from, as one command."""
    text = pattern[1:] if pattern.startswith("^") else pattern
    out, escaped = [], False
    for char in text:
        if char == "\\" and not escaped:
            escaped = True
            continue
        out.append(char)
        escaped = False
    return "".join(out)


def literal_pattern(text: str) -> str:
    """``text`` as a command pattern matching it literally (spaces stay readable)."""
    return "".join(f"\\{char}" if char in _REGEX_SPECIALS else char for char in text)
