"""Glob plans: the usual globs matched with str methods give exactly their regex's answer."""

from __future__ import annotations

import re

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from lessons_core.matching.glob_match import GLOBSTAR, glob_matches, plan_matches
from lessons_core.matching.globs import GlobError, compile_glob, matching_plan
from tests.security.conftest import fuzz_settings

# Literal text of glob segments: dots, dotfiles, spaces, non-ASCII letters and characters
# that are special in a regex.
PIECES = st.sampled_from(
    [*"a b ab src . .a a.b .test.ts index é [ (x) + $ ^ {a} ~ - aaa".split(), " ", "a b"]
)
SEGMENT_GLOBS = st.lists(st.one_of(PIECES, st.just("*")), min_size=1, max_size=4).map("".join)
SEGMENTS = st.one_of(SEGMENT_GLOBS, st.just("*"), st.just(GLOBSTAR))
PLAN_GLOBS = st.tuples(
    st.sampled_from(["", "/", "./"]),
    st.lists(SEGMENTS, min_size=1, max_size=6).map("/".join),
    st.sampled_from(["", "", "/"]),
).map("".join)

# Path segments, adversarial ones included: empty, a newline, a regex character, long.
PATH_SEGMENTS = st.one_of(
    st.sampled_from(["a", "b", "ab", "src", ".a", "a.b", "x.test.ts", "index.ts", "é", "aaa"]),
    st.sampled_from(["", "\n", "a\nb", "[", "a b", "a" * 40, "$"]),
    st.text(alphabet="ab. \n*é", max_size=5),
)
ENDINGS = st.sampled_from(["", "", "/", "\n", "/\n", "//"])
PATHS = st.tuples(st.lists(PATH_SEGMENTS, max_size=8).map("/".join), ENDINGS).map("".join)
# Text a "*" may stand for: anything but a slash, a newline included.
STAR_TEXT = st.text(alphabet="ab.\né", max_size=3)
# Segments a "**" may stand for: not empty, no newline.
GLOBSTAR_SEGMENTS = st.lists(st.text(alphabet="ab.é", min_size=1, max_size=3), max_size=3)


def compiled_plan(glob: str) -> tuple[str, tuple[str, ...]]:
    """The glob's regex and plan; every glob of these shapes has one, but pathspec's
    '**/' and '**/*/', which it reads as a path starting with '/' (no repo path does)."""
    try:
        compiled = compile_glob(glob)
    except GlobError:
        assume(False)  # '..' assembled from '.' pieces, say
        raise
    plan = matching_plan(compiled)
    if plan is None:
        assert compiled.regex == "/", glob
        assume(False)
    assert plan is not None
    return compiled.regex, plan


def instance(plan: tuple[str, ...], data: st.DataObject) -> str:
    """A path the plan must match: each '*' and '**' replaced by text it stands for."""
    if plan == (GLOBSTAR,):
        return "/".join(data.draw(GLOBSTAR_SEGMENTS) or ["a"])
    segments: list[str] = []
    for at, glob in enumerate(plan):
        if glob == GLOBSTAR:
            trailing = at == len(plan) - 1
            segments.extend(data.draw(GLOBSTAR_SEGMENTS) or ([""] if trailing else []))
        elif glob == "*":
            segments.append(data.draw(STAR_TEXT.filter(bool)))
        else:
            first, *rest = glob.split("*")
            segments.append(first + "".join(data.draw(STAR_TEXT) + piece for piece in rest))
    return "/".join(segments)


@fuzz_settings(1000)
@given(PLAN_GLOBS, st.lists(PATHS, min_size=1, max_size=6))
def test_a_plan_matches_exactly_what_its_regex_matches(glob: str, paths: list[str]) -> None:
    """For any glob of literals, '*' and '**' and any path, the plan and re.match agree."""
    regex, plan = compiled_plan(glob)
    for path in paths:
        assert plan_matches(plan, path) == (re.match(regex, path) is not None), (plan, path)


@fuzz_settings(1000)
@given(PLAN_GLOBS, st.data())
def test_a_plan_matches_its_own_instances_and_agrees_on_near_misses(
    glob: str, data: st.DataObject
) -> None:
    """A path built from the glob matches; the same path one character shorter, longer or
    with a newline gets the regex's answer, whatever it is."""
    regex, plan = compiled_plan(glob)
    path = instance(plan, data)
    assert plan_matches(plan, path), (plan, path)
    assert re.match(regex, path), (regex, path)
    at = data.draw(st.integers(min_value=0, max_value=len(path)))
    for near in (path[:at] + path[at + 1 :], path[:at] + "a" + path[at:], path + "\n"):
        assert plan_matches(plan, near) == (re.match(regex, near) is not None), (plan, near)


@pytest.mark.parametrize(
    ("glob", "plan"),
    [
        ("src/cli/**", ("src", "cli", "**")),
        ("**/*.test.ts", ("**", "*.test.ts")),
        ("packages/*/package.json", ("packages", "*", "package.json")),
        ("src/**/index.ts", ("src", "**", "index.ts")),
        ("**/name*.ext", ("**", "name*.ext")),
        ("docs/guide.md", ("docs", "guide.md")),
        ("src/", ("src", "**")),
        ("a/**/**/b", ("a", "**", "b")),
        ("**/*", ("**",)),
    ],
)
def test_real_glob_shapes_get_plans(glob: str, plan: tuple[str, ...]) -> None:
    """The shapes real lessons use are read as pathspec reads them."""
    assert matching_plan(compile_glob(glob)) == plan


@pytest.mark.parametrize("glob", ["src/?.ts", "src/[ab].ts", "**/[!.]*", "**/", "**/*/"])
def test_other_globs_keep_their_regex(glob: str) -> None:
    """'?', classes and the forms pathspec reads specially have no plan."""
    assert matching_plan(compile_glob(glob)) is None


def test_glob_matches_takes_a_plan_or_a_regex() -> None:
    """The index's matcher field holds either; both are answered."""
    compiled = compile_glob("src/?.ts")
    assert glob_matches(compiled.regex, "src/a.ts")
    assert not glob_matches(compiled.regex, "src/ab.ts")
    assert glob_matches(("src", "*.ts"), "src/ab.ts")
    assert not glob_matches(("src", "*.ts"), "lib/ab.ts")
