"""Glob and command matching, and every parser a hook runs on its input: no exception and
bounded time, whatever the pattern or the input."""

from __future__ import annotations

import re
from functools import partial

import pytest
from hypothesis import given
from hypothesis import strategies as st

from lessons_cli.harnesses.codex_patches import patch_paths
from lessons_core.matching.commands import CommandPatternError, command_parts, compile_command
from lessons_core.matching.glob_match import plan_matches
from lessons_core.matching.globs import GlobError, compile_glob, matching_plan
from lessons_core.matching.pure_reads import is_pure_read_command
from lessons_core.matching.words import tokens
from lessons_core.recall.render import neutralise
from tests.security.conftest import fuzz_settings, within

# Glob segments: literals, wildcards, classes, and the shapes that make regexes backtrack.
SEGMENTS = st.sampled_from(
    ["a", "b", "src", "x.py", "*", "**", "?", "*a*", "a*b*", "*.*", "[ab]", "[!a]*", "a?b"]
)
GLOBS = st.lists(SEGMENTS, min_size=1, max_size=8).map("/".join)
PATHS = st.text(alphabet="ab/.x", min_size=1, max_size=24)
# The longest path a hook lets through (PATH_MAX), with names at most NAME_MAX long.
MAX_PATH = 4096


def adversarial_paths(glob: str) -> list[str]:
    """Paths of up to 4,096 characters made of the glob's own literals, failing at the end:
    what makes a backtracking matcher try every way of splitting them."""
    literals = [piece for piece in re.split(r"[*?/\[\]!]+", glob) if piece] or ["a"]
    paths = []
    for unit in {*literals, "".join(literals), "a"}:
        for sep in ("/", ""):
            body = (unit + sep) * (MAX_PATH // (len(unit) + len(sep)))
            paths.extend([body[: MAX_PATH - 2] + "#", body[:250] + "#"])
    return paths


@fuzz_settings(300)
@given(st.text(max_size=60))
def test_any_text_compiles_to_a_glob_inside_the_repo_or_a_glob_error(text: str) -> None:
    """compile_glob raises nothing but GlobError; what it accepts is repo-relative."""
    try:
        compiled = compile_glob(text)
    except GlobError:
        return
    assert not compiled.glob.startswith("/")
    assert ".." not in compiled.glob.split("/")
    compiled.matches("src/app.py")


@fuzz_settings(300)
@given(GLOBS, st.lists(PATHS, min_size=1, max_size=5))
def test_glob_matching_agrees_with_the_pathspec_regex(glob: str, paths: list[str]) -> None:
    """Whichever engine runs it, a glob matches exactly the paths its regex matches."""
    try:
        compiled = compile_glob(glob)
    except GlobError:
        return
    for path in paths:
        assert compiled.matches(path) == (re.match(compiled.regex, path) is not None)


@fuzz_settings(60)
@given(GLOBS)
def test_glob_matching_takes_bounded_time_on_adversarial_paths(glob: str) -> None:
    """Nested wildcards and many '**' against long crafted paths: 0.25 s a path at most
    (the worst seen is ~55 ms, a glob with two '**' that stays on Python's re)."""
    try:
        compiled = compile_glob(glob)
    except GlobError:
        return
    for path in adversarial_paths(glob):
        within(0.25, partial(compiled.matches, path))


@pytest.mark.parametrize(
    ("glob", "path"),
    [
        ("*a*a*a*a*b", "a" * 200),
        ("*a*a*b", "a" * 4000),
        ("**/a/**/a/**/b", "a/" * 2000),
        ("**/a/**/a/**/a/**/b", "a/" * 2000),
        ("*" * 30 + "x", "a" * 4000),
    ],
)
def test_globs_that_made_re_backtrack_for_seconds_match_at_once(glob: str, path: str) -> None:
    """Regression: these took 2 s to minutes in Python's re; now well under 0.1 s."""
    compiled = compile_glob(glob)
    assert within(0.1, lambda: compiled.matches(path)) is False


@fuzz_settings(100)
@given(GLOBS)
def test_glob_plans_take_bounded_time_on_adversarial_paths(glob: str) -> None:
    """A glob matched by its plan, not a regex: 0.25 s a crafted path at most, and the
    answer of its regex (the worst seen is ~5 ms)."""
    try:
        compiled = compile_glob(glob)
    except GlobError:
        return
    plan = matching_plan(compiled)
    if plan is None:  # '?' or a class: the regex test above covers it
        return
    for path in adversarial_paths(glob):
        assert within(0.25, partial(plan_matches, plan, path)) == compiled.matches(path)


@pytest.mark.parametrize(
    ("glob", "path", "expected"),
    [
        ("**/a/**/a/**/b", "a/" * 2000, False),
        ("a/**/" * 10 + "b", "a/" * 2047 + "c", False),
        ("**/" + "a/**/" * 20 + "*", "a/" * 2047 + "a", True),
        ("**/a*/**/*a/**/b*", "ab/" * 1365, False),
        ("**/*a*a*a*a*b", "a" * 4095, False),
        ("**/" + "*a" * 20 + "/b", ("a" * 30 + "/") * 130, False),
        ("*/" * 30 + "**", "a/" * 2047, True),
        ("*" * 30 + "x", "a" * 4000, False),
        ("src/**/index.ts", "src/" + "a/" * 2040 + "index.tsx", False),
        ("**/x/**", "x" * 4095, False),
        ("src/**/.*", "src/" + "./" * 2040 + "..", True),
    ],
)
def test_plan_shaped_worst_cases_match_at_once(glob: str, path: str, expected: bool) -> None:
    """Many '**', many '*' in a segment, thousands of segments or one 4 kB name: the plan
    answers within 0.05 s of CPU, as the regex does."""
    compiled = compile_glob(glob)
    plan = matching_plan(compiled)
    assert plan is not None
    assert within(0.05, partial(plan_matches, plan, path)) is expected
    assert compiled.matches(path) is expected


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
        assert within(1.0, partial(compiled.matches, command)) is False


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
        "$(a) " * 50_000,
        "`a` " * 50_000,
        "sh <<E\n" + "echo x\n" * 30_000 + "E\n",
        "bash -c 'x; " * 20_000,
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


def test_a_glob_with_a_bracket_in_a_class_compiles_and_matches_quietly() -> None:
    """'[[]' (a file named '[') raises no FutureWarning, here where warnings are errors."""
    compiled = compile_glob("[[]")
    assert compiled.matches("[")
    assert not compiled.matches("a")
