"""Command patterns: word boundaries per alternative."""

from __future__ import annotations

import pytest

from lessons_core.matching.commands import compile_command


@pytest.mark.parametrize(
    ("pattern", "fires", "quiet"),
    [
        ("sed|cat", "cat notes.txt", "bobcat --version"),
        ("sed|cat", "sed -i s/a/b/ f", "sedan build"),
        ("git push| rm", "cd x && rm y", "format"),
    ],
)
def test_word_boundaries_apply_to_each_alternative(pattern: str, fires: str, quiet: str) -> None:
    """Each top-level alternative gets its own boundaries, not just the first and last."""
    compiled = compile_command(pattern)
    assert compiled.matches(fires)
    assert not compiled.matches(quiet)
