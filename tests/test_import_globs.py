"""Foreign globs as file triggers: braces, negations, extglobs, comma lists."""

from __future__ import annotations

from pathlib import Path

import pytest

from lessons_core.importers.globs import expand_braces, split_list, translate_glob


def test_braces_expand_to_one_glob_each() -> None:
    """A brace group becomes one glob per option, nested groups included."""
    assert expand_braces("src/**/*.{ts,tsx}") == ["src/**/*.ts", "src/**/*.tsx"]
    assert expand_braces("a/{b,c{d,e}}.py") == ["a/b.py", "a/cd.py", "a/ce.py"]


def test_brace_without_comma_is_literal() -> None:
    """``{x}`` has no alternatives, so it stays as written."""
    assert expand_braces("docs/{x}.md") == ["docs/{x}.md"]


def test_translation_reports_the_expansion(tmp_path: Path) -> None:
    """A translated glob says what it became."""
    result = translate_glob("src/*/{a,b}.ts", tmp_path)
    assert result.globs == ("src/*/a.ts", "src/*/b.ts")
    assert result.changed == "braces expanded to src/*/a.ts, src/*/b.ts"
    assert result.lost is None


def test_plain_glob_is_unchanged(tmp_path: Path) -> None:
    """A glob both dialects read alike passes through without a note."""
    assert translate_glob("tests/**/*.test.ts", tmp_path).globs == ("tests/**/*.test.ts",)
    assert translate_glob("tests/**/*.test.ts", tmp_path).changed is None


def test_leading_dot_slash_is_normalised(tmp_path: Path) -> None:
    """``./src/x.ts`` is written as ``src/x.ts`` and says so."""
    result = translate_glob("./src/x.ts", tmp_path)
    assert result.globs == ("src/x.ts",)
    assert result.changed == "written as src/x.ts"


@pytest.mark.parametrize(
    ("glob", "reason"),
    [
        ("!src/**", "negation"),
        ("src/@(a|b).ts", "extglob"),
        ("src/{1..3}.ts", "brace range"),
        ("../outside/*.ts", "outside the repo"),
    ],
)
def test_unsupported_globs_are_reported(glob: str, reason: str, tmp_path: Path) -> None:
    """A glob with no equivalent is not carried, and the reason names the construct."""
    result = translate_glob(glob, tmp_path)
    assert result.globs == ()
    assert result.lost is not None
    assert reason in result.lost


def test_split_list_keeps_braces_whole() -> None:
    """Comma lists split at top-level commas only."""
    assert split_list("**/*.ts, src/{a,b}/*.py ,") == ["**/*.ts", "src/{a,b}/*.py"]
