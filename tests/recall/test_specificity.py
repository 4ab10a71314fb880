"""The rank measures: how much of a path or command a trigger pins down."""

from __future__ import annotations

import itertools

import pytest

from lessons_core.matching.regex_literals import pinned_chars, required_run
from lessons_core.matching.specificity import (
    command_specificity,
    glob_specificity,
    glob_suffix,
    keyword_specificity,
)

CHAIN = [
    "src/api/client.ts",
    "src/*/client.ts",
    "src/*.ts",
    "src/**/*.ts",
    "src/**",
    "**/*.ts",
    "**",
]


def test_glob_chain_is_strictly_decreasing() -> None:
    """exact > dir/*/name.ext > dir/*.ext > dir/**/*.ext > dir/** > **/*.ext > **."""
    measures = [glob_specificity(glob) for glob in CHAIN]
    for more, less in itertools.pairwise(measures):
        assert more > less


@pytest.mark.parametrize("directory", ["src", "src/cli", "website/src/content", ".github"])
def test_glob_chain_holds_for_any_directory(directory: str) -> None:
    """The chain does not depend on what the directory is called or how deep it is."""
    chain = [
        f"{directory}/a/name.ext",
        f"{directory}/*/name.ext",
        f"{directory}/*.ext",
        f"{directory}/**/*.ext",
        f"{directory}/**",
        "**/*.ext",
        "**",
    ]
    measures = [glob_specificity(glob) for glob in chain]
    assert measures == sorted(measures, reverse=True)
    assert len(set(measures)) == len(measures)


@pytest.mark.parametrize(
    ("deeper", "shallower"),
    [
        ("src/cli/**", "src/**"),
        ("src/cli/commands/**", "src/cli/**"),
        ("src/cli/*.ts", "src/*.ts"),
        ("src/cli/**/*.ts", "src/**/*.ts"),
        ("src/cli/**", "src/**/*.ts"),
    ],
)
def test_deeper_literal_prefix_beats_shallower(deeper: str, shallower: str) -> None:
    """Each directory a glob fixes makes it more specific."""
    assert glob_specificity(deeper) > glob_specificity(shallower)


def test_exact_path_beats_every_wildcard_glob() -> None:
    """A glob without wildcards outranks any glob with one, however literal."""
    exact = glob_specificity("a.ts")
    for glob in ["src/cli/commands/deep/nested/*/x.ts", "a/b/c/d/e/f/**", "src/[ab].ts"]:
        assert exact > glob_specificity(glob)


def test_more_literal_text_breaks_ties_within_a_form() -> None:
    """``*.test.ts`` pins more of a name than ``*.ts``."""
    assert glob_specificity("**/*.test.ts") > glob_specificity("**/*.ts")


def test_named_file_counts_like_a_directory() -> None:
    """``**/package.json`` names the file; ``src/**`` only the folder: the name wins."""
    assert glob_specificity("**/package.json") > glob_specificity("src/**")


@pytest.mark.parametrize(
    ("glob", "suffix"),
    [
        ("src/**", ""),
        ("src/*.ts", ".ts"),
        ("a/b.md", "b.md"),
        ("tsup.config*", ""),
        ("x/[ab]c", "c"),
    ],
)
def test_glob_suffix_is_the_literal_ending(glob: str, suffix: str) -> None:
    """The literal text every matching path ends with, used to skip globs early."""
    assert glob_suffix(glob) == suffix


@pytest.mark.parametrize(
    ("pattern", "pinned"),
    [
        ("git push --force", 16),
        ("git push", 8),
        ("git", 3),
        (r"git\s+(clone|ls-remote|fetch)", 8),
        ("pnpm (vitest|test)( |$)", 9),
        ("a{3}b*", 3),
        (r"rm\s+-rf?", 4),
    ],
)
def test_command_pinned_chars(pattern: str, pinned: int) -> None:
    """Literal characters every match contains; alternations count their shortest branch."""
    assert pinned_chars(pattern) == pinned


def test_command_specificity_orders_by_what_it_pins() -> None:
    """``git push --force`` > ``git push`` > ``git``; an anchored pattern beats its twin."""
    assert command_specificity("git push --force") > command_specificity("git push")
    assert command_specificity("git push") > command_specificity("git")
    assert command_specificity("^git push") > command_specificity("git push")


@pytest.mark.parametrize(
    ("pattern", "run"),
    [
        ("git push", "git push"),
        (r"git\s+(clone|fetch)", "git"),
        ("pnpm (-C website )?(add|install)", "pnpm "),
        ("(?i)git push", ""),
        (r"\b(eslint|lint)\b", ""),
        (r"\pL+", ""),
    ],
)
def test_required_run_is_a_literal_every_match_contains(pattern: str, run: str) -> None:
    """Only text outside groups and repeats counts; case-insensitive patterns give none."""
    assert required_run(pattern) == run


def test_unreadable_pattern_counts_its_letters() -> None:
    """An RE2-only pattern Python cannot parse is still ranked, by its letters and digits."""
    assert pinned_chars(r"\pN{2}git") == 3


def test_keyword_specificity_prefers_phrases() -> None:
    """A phrase of more words is more specific than one of its words."""
    assert keyword_specificity("read only") > keyword_specificity("readonly")
    assert keyword_specificity("readOnly") == keyword_specificity("read only")
