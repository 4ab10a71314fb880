"""Matching: anchored globs, compound commands, whole-word Unicode keywords."""

from __future__ import annotations

import pytest

from lessons_core.recall.rank import recall
from lessons_core.recall.types import RecallRequest
from lessons_core.store.config import Config
from lessons_core.store.layout import Layout
from tests.recall.conftest import WriteLesson


def matched(layout: Layout, request: RecallRequest) -> list[tuple[str, str]]:
    return [(hit.lesson_id, hit.via) for hit in recall(layout, request, config=Config()).hits]


@pytest.mark.parametrize(
    ("path", "fires"),
    [
        ("README.md", True),
        ("docs/guide.md", False),
        ("./README.md", True),
        ("readme.MD", False),
    ],
)
def test_globs_are_anchored_at_the_root_and_case_sensitive(
    layout: Layout, write_lesson: WriteLesson, path: str, fires: bool
) -> None:
    """``*.md`` means top-level Markdown files only, with the case as written."""
    write_lesson("top-md", "Keep the README short.", files=("*.md",))
    assert matched(layout, RecallRequest(files=(path,))) == ([("top-md", "file")] if fires else [])


def test_globs_include_dotfiles(layout: Layout, write_lesson: WriteLesson) -> None:
    """``**/*.yml`` matches files in dot-directories such as .github/."""
    write_lesson("ci-yaml", "Pin action versions by digest.", files=("**/*.yml",))
    request = RecallRequest(files=(".github/workflows/ci.yml",))
    assert matched(layout, request) == [("ci-yaml", "file")]


def test_windows_separators_are_normalised(layout: Layout, write_lesson: WriteLesson) -> None:
    """A path given with backslashes matches like its POSIX form."""
    write_lesson("api", "Keep request timeouts explicit.", files=("src/api/**",))
    assert matched(layout, RecallRequest(files=("src\\api\\client.ts",))) == [("api", "file")]


@pytest.mark.parametrize(
    ("command", "fires"),
    [
        ("rm -rf build", True),
        ("cd x && rm -rf build", True),
        ("make clean; rm -rf dist", True),
        ("echo $(rm -rf /tmp/x)", True),
        ("FORCE=1 rm -rf build", True),
        ("find . | xargs rm -rf", True),
        ("pnpm run format", False),
        ("rm -r build", False),
        ("git rm -rfoo", False),
    ],
)
def test_command_literal_matches_any_part_of_a_compound_command(
    layout: Layout, write_lesson: WriteLesson, command: str, fires: bool
) -> None:
    """``rm -rf`` fires on every simple command it starts a word in, never inside words."""
    write_lesson("no-rm", "Delete build output with the clean script.", commands=("rm -rf",))
    expected = [("no-rm", "command")] if fires else []
    assert matched(layout, RecallRequest(command=command)) == expected


def test_command_hit_names_the_part_that_matched(layout: Layout, write_lesson: WriteLesson) -> None:
    """The hit records which simple command matched, for the label and --explain."""
    write_lesson("push", "Run the tests before pushing.", commands=("git push",))
    hit = recall(
        layout, RecallRequest(command="pnpm test && git push origin main"), config=Config()
    ).hits[0]
    assert (hit.trigger, hit.matched) == ("git push", "git push origin main")


def test_leading_assignment_does_not_hide_an_anchored_pattern(
    layout: Layout, write_lesson: WriteLesson
) -> None:
    """``^pnpm publish`` fires on ``NPM_TOKEN=x pnpm publish``: assignments are stripped."""
    write_lesson("publish", "Publish from CI only.", commands=("^pnpm publish",))
    assert matched(layout, RecallRequest(command="NPM_TOKEN=x pnpm publish")) == [
        ("publish", "command")
    ]


@pytest.mark.parametrize(
    ("keyword", "prompt", "fires"),
    [
        ("art", "start the server", False),
        ("art", "the art directory", True),
        ("Überweisung", "Die Überweisung schlägt fehl", True),
        ("Überweisung", "das Überweisungsformular", False),
        ("überweisung", "ÜBERWEISUNG prüfen", True),
        ("read only", "make it read-only", True),
        ("read only", "set readOnly on the mount", True),
        ("read only", "READ_ONLY flag", True),
        ("read only", "read the only file", False),
        ("платёж", "Платёж не прошёл", True),
        ("платёж", "платёжка", False),
        ("café", "the cafe\u0301 menu", True),
        ("Straße", "STRASSE", True),
        # regular English inflections of a whole word
        ("type hint", "add type hints to the parser", True),
        ("art", "the arts directory", True),
        ("art", "restarts the server", False),
        ("policy", "two retry policies", True),
        ("box", "the boxes overflow", True),
        ("push", "it pushed twice", True),
        ("stop", "the worker stopped", True),
        ("use", "we are using it", True),
        ("type hints", "add a type hint", False),  # a keyword's own plural is not its base
        ("str", "parse the string", False),  # a base needs a vowel
        ("Überweisung", "ÜberweisungsFormular prüfen", False),  # English suffixes only
    ],
)
def test_keywords_are_whole_words_case_insensitive_unicode(
    layout: Layout, write_lesson: WriteLesson, keyword: str, prompt: str, fires: bool
) -> None:
    """Keywords match whole words in any script, any case, any identifier style."""
    write_lesson("kw", "Check the payment flow twice.", keywords=(keyword,))
    expected = [("kw", "keyword")] if fires else []
    assert matched(layout, RecallRequest(prompt=prompt)) == expected


def test_keywords_match_words_of_the_path(layout: Layout, write_lesson: WriteLesson) -> None:
    """``read only`` fires on src/readOnlyMount.ts and src/read_only/x.py."""
    write_lesson("kw", "Never write through a read-only mount.", keywords=("read only",))
    for path in ("src/readOnlyMount.ts", "src/read_only/x.py", "src/read-only.md"):
        hit = recall(layout, RecallRequest(files=(path,)), config=Config()).hits[0]
        assert (hit.via, hit.matched) == ("keyword", f"path {path}")
    assert recall(layout, RecallRequest(files=("src/reader/only.ts",)), config=Config()).hits == ()


def test_keywords_match_words_of_the_command(layout: Layout, write_lesson: WriteLesson) -> None:
    """A keyword fires on the words of the command about to run."""
    write_lesson("kw", "Run migrations through the wrapper.", keywords=("alembic",))
    hit = recall(
        layout, RecallRequest(command="uv run alembic upgrade head"), config=Config()
    ).hits[0]
    assert (hit.via, hit.trigger, hit.matched) == ("keyword", "alembic", "command")
