"""The frontmatter reader and the Markdown rule splitter used by rule-file imports."""

from __future__ import annotations

import pytest

from lessons_core.importers.frontmatter import FrontmatterError, split_document
from lessons_core.importers.markdown_rules import parse_body


def test_unquoted_cursor_globs_are_read() -> None:
    """``globs: **/*.ts, src/*.tsx`` (not valid YAML) reads as a plain string."""
    doc = split_document("---\nglobs: **/*.ts, src/*.tsx\nalwaysApply: false\n---\nbody\n")
    assert doc.fields == {"globs": "**/*.ts, src/*.tsx", "alwaysApply": False}
    assert doc.body == "body"


def test_lists_quotes_and_comments() -> None:
    """Inline and block lists, both quote styles and trailing comments."""
    text = (
        "---\n"
        "# a comment line\n"
        "paths:\n"
        '  - "src/api/**/*.ts"\n'
        "  - tests/**  # trailing\n"
        "fileMatchPattern: ['a/*.{ts,tsx}', \"b, c\"]\n"
        "description: 'It''s fine'\n"
        "empty:\n"
        "---\n"
    )
    fields = split_document(text).fields
    assert fields["paths"] == ["src/api/**/*.ts", "tests/**"]
    assert fields["fileMatchPattern"] == ["a/*.{ts,tsx}", "b, c"]
    assert fields["description"] == "It's fine"
    assert fields["empty"] == []


def test_no_frontmatter_keeps_the_whole_text() -> None:
    """A file that does not start with ``---`` is all body."""
    doc = split_document("# Title\n- rule\n")
    assert (doc.has_frontmatter, doc.fields, doc.body) == (False, {}, "# Title\n- rule\n")


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("---\nglobs: a\n", "never closed"),
        ("---\njust words\n---\n", "line 2 is not 'key: value'"),
        ("---\ndescription: 'open\n---\n", "unclosed quote"),
    ],
)
def test_malformed_frontmatter_names_the_problem(text: str, message: str) -> None:
    """What the reader cannot understand is an error naming the line."""
    with pytest.raises(FrontmatterError, match=message):
        split_document(text)


def test_bullets_become_items_with_nested_details() -> None:
    """Top-level bullets are rules; nested bullets and continuations attach to them."""
    body = parse_body(
        "# Heading\n\n"
        "Intro paragraph:\n\n"
        "- First rule\n"
        "  continues here.\n"
        "- Second rule.\n"
        "  - because one\n"
        "  - because two\n"
        "1. Numbered rule.\n"
        "- [ ] Checkbox rule.\n\n"
        "```sh\n- not a rule\n```\n"
    )
    assert [item.rule for item in body.items] == [
        "First rule continues here.",
        "Second rule.",
        "Numbered rule.",
        "Checkbox rule.",
    ]
    assert body.items[1].rationale == "because one; because two"
    assert body.paragraphs == ["Intro paragraph:"]
    assert body.code_blocks == 1


def test_prose_only_body() -> None:
    """Without a list, every paragraph is prose and no item is made."""
    body = parse_body("First line\nsame paragraph.\n\n> Quoted second.\n")
    assert body.items == []
    assert body.paragraphs == ["First line same paragraph.", "Quoted second."]


def test_a_code_span_of_three_backticks_opens_no_code_block() -> None:
    """``` `${string}` ``` at a line's start is inline code: the diff block after it is
    still a block, and its lines are no bullets."""
    body = parse_body(
        "- Template types:\n"
        "  ``` `${string}@${string}` ```, treat them as branded strings.\n"
        "\n"
        "Keep the chain:\n"
        "\n"
        "```diff\n"
        "-    .pipe(PathBuf::from)\n"
        '+    .expect("parent")\n'
        "```\n"
        "\n"
        "- Run `just ready` before pushing.\n"
    )
    assert [item.rule.split(":")[0] for item in body.items] == [
        "Template types",
        "Run `just ready` before pushing.",
    ]


def test_a_longer_fence_is_closed_only_by_as_long_a_one() -> None:
    """A block opened by four backticks holds a three-backtick line as its text."""
    body = parse_body("````md\n```\n- not a bullet\n````\n\n- A bullet.\n")
    assert [item.rule for item in body.items] == ["A bullet."]
