"""Command matching and every parser a hook runs on its input: no exception and bounded
time, whatever the pattern or the input."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from lessons_core.commands import CommandPatternError, command_parts, compile_command
from lessons_core.patches import patch_paths
from lessons_core.pure_reads import is_pure_read_command
from lessons_core.render import neutralise
from lessons_core.words import tokens
from tests.security.conftest import fuzz_settings, within


@fuzz_settings(300)
@given(st.text(max_size=40))
def test_any_text_compiles_to_a_command_pattern_or_its_error(text: str) -> None:
    """compile_command raises nothing but CommandPatternError; what it accepts never
    matches every command (the empty one)."""
    try:
        compiled = compile_command(text)
    except CommandPatternError:
        return
    assert not compiled.matches("")
    compiled.matches("git push origin main && make")


@pytest.mark.parametrize("pattern", ["(a+)+b", "(a|a)*b", "(a*)*b", "(a|aa)+b", "(.*a){12}b"])
def test_nested_quantifier_command_patterns_match_in_linear_time(pattern: str) -> None:
    """Patterns that are exponential in a backtracking engine run in RE2: bounded."""
    compiled = compile_command(pattern)
    for command in ("a" * 100_000, "a " * 50_000, "a;" * 50_000):
        assert within(1.0, lambda command=command: compiled.matches(command)) is False


COMMAND_TEXT = st.text(alphabet="ab =;|&()$`'\"\n>12-", max_size=200)


@fuzz_settings(300)
@given(COMMAND_TEXT)
def test_command_parsing_never_raises(command: str) -> None:
    """Splitting, pure-read detection and matching accept any command text."""
    parts = command_parts(command)
    assert parts[0] == command.strip()
    assert len(parts) == len(set(parts))
    is_pure_read_command(command)
    compile_command("a b").matches(command)


@pytest.mark.parametrize(
    "command",
    [
        ";".join(f"x{n}" for n in range(50_000)),
        "\n".join(f"echo line {n}" for n in range(50_000)),
        "1" * 200_000,
        "A=b " * 50_000,
        "A='" * 50_000,
        "a=" * 100_000,
        "(" * 100_000,
    ],
    ids=lambda command: repr(command[:12]),
)
def test_huge_commands_are_parsed_in_linear_time(command: str) -> None:
    """A 200 kB heredoc or a run of digits: split and classified within a second."""
    within(1.0, lambda: (command_parts(command), is_pure_read_command(command)))


@pytest.mark.parametrize(
    "text",
    [
        "*** Begin Patch\n*** Add File: a" + " " * 200_000 + "b\n",
        "*** Begin Patch\n" + "*** Update File: x\n" * 20_000,
        "*** Begin Patch\n*** Add File: " + "\t" * 200_000 + "\n",
    ],
    ids=["spaces inside", "many headers", "blank path"],
)
def test_patch_headers_are_read_in_linear_time(text: str) -> None:
    """A patch with a 200 kB header line is read within a second; blank paths are dropped."""
    paths = within(1.0, lambda: patch_paths(text))
    assert "" not in paths
    assert all(path == path.strip() for path in paths)


@pytest.mark.parametrize(
    "text",
    ["< a" * 60_000, '{" ' * 60_000, "<" + " " * 200_000, "a" * 200_000, "`" * 200_000],
    ids=lambda text: repr(text[:6]),
)
def test_rendering_and_tokenising_take_linear_time(text: str) -> None:
    """A huge rule or prompt is neutralised and tokenised within a second."""
    within(1.0, lambda: (neutralise(text), tokens(text)))
