"""A command run without the option a rule asks for (``matching.missing_options``)."""

from __future__ import annotations

import pytest

from lessons_core.matching.commands import compile_command
from lessons_core.matching.missing_options import without_option


@pytest.mark.parametrize(
    ("command", "fires"),
    [
        ("pnpm test", True),
        ("pnpm test src/a.test.ts", True),
        ("pnpm test --runner x", True),  # a longer word is another option
        ("pnpm test --ru", True),  # so is a shorter one
        ("pnpm test -r", True),
        ("cd pkg && pnpm test", True),
        ("pnpm test --run src/a.test.ts", False),
        ("pnpm test src/a.test.ts --run", False),
        ("pnpm test --run=1", False),
        ("pnpm testing", False),
        ("pnpm lint", False),
    ],
)
def test_the_pattern_fires_on_the_command_lacking_the_option(command: str, fires: bool) -> None:
    pattern = without_option("pnpm test", "--run")
    assert pattern is not None
    assert compile_command(pattern).matches(command) is fires


def test_an_anchored_command_and_a_dot_keep_their_meaning() -> None:
    pattern = without_option("^python3.11 -m pytest", "-x")
    assert pattern is not None
    assert compile_command(pattern).matches("python3.11 -m pytest tests")
    assert not compile_command(pattern).matches("python3x11 -m pytest tests")
    assert not compile_command(pattern).matches("python3.11 -m pytest -x tests")


@pytest.mark.parametrize(
    ("command", "option"),
    [("pnpm (test|lint)", "--run"), ("pnpm test", "run"), ("pnpm test", "--r[u]n")],
)
def test_a_pattern_or_a_word_that_is_no_option_gets_none(command: str, option: str) -> None:
    assert without_option(command, option) is None
