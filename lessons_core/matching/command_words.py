"""The words that name what a shell command runs: its program and sub-commands.

``cd web && pnpm test:e2e --filter x`` runs ``pnpm test:e2e``: the last simple command
that is not a pure read, from its program up to the first option, path or value. A
failed action's identity and a capture line's pattern are anchored to them
(``feedback.failures.command_pattern``: ``^pnpm test:e2e``); a session's evidence keeps
them as the action a correction followed. Nothing here looks for secrets: callers
that show or store the words check them.
"""

from __future__ import annotations

from lessons_core.matching.commands import command_parts, shell_words
from lessons_core.matching.pure_reads import is_pure_read_command

MAX_PATTERN_WORDS = 3
# A longer word is data (a heredoc, an inline script), not a program or sub-command name.
MAX_WORD_CHARS = 64
# Interpreters whose module flag names what ran: `python -m pytest` is about pytest.
_MODULE_FLAGS = {"python": "-m", "python3": "-m"}
_REGEX_SPECIALS = frozenset("\\.^$*+?()[]{}|")


def command_words(command: str) -> list[str]:
    """The program and sub-commands ``command`` runs (none: nothing precise)."""
    parts = command_parts(command)
    candidates = [part for part in (parts[1:] or parts) if not is_pure_read_command(part)]
    if not candidates:
        return []
    words = shell_words(candidates[-1])
    if not words or len(words[0]) > MAX_WORD_CHARS:
        return []
    kept = [words[0]]
    for word in words[1:]:
        if len(kept) >= MAX_PATTERN_WORDS:
            break
        if _MODULE_FLAGS.get(kept[0]) == word and len(kept) == 1:
            kept.append(word)
            continue
        if (
            word.startswith("-")
            or any(c in word for c in "/=.")
            or not word.isprintable()
            or len(word) > MAX_WORD_CHARS
        ):
            break
        kept.append(word)
    return kept


def anchored(words: list[str]) -> str:
    """The command pattern for ``words``: anchored at the start, each word literal
    (``^c\\+\\+`` for ``c++``)."""
    return "^" + " ".join(_escape(word) for word in words)


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


def _escape(word: str) -> str:
    return "".join(f"\\{char}" if char in _REGEX_SPECIALS else char for char in word)
