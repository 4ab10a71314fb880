"""A model-free token estimate: about four characters a token for English and code.

Only ratios and budgets are built on it, so a consistent estimate matters more than an
exact one, and it costs nothing to import.
"""

from __future__ import annotations

CHARS_PER_TOKEN = 4


def estimate_tokens(text: str) -> int:
    """Rough token count of ``text``: zero for empty text, else at least one."""
    return (len(text) + CHARS_PER_TOKEN - 1) // CHARS_PER_TOKEN
