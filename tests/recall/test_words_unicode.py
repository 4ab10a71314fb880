"""Tokenising is Unicode-aware: identifiers split, scripts and accents kept whole."""

from __future__ import annotations

import pytest

from lessons_core.words import contains_phrase, split_identifier, tokens


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("readOnlyMode", ["read", "only", "mode"]),
        ("read_only", ["read", "only"]),
        ("read-only", ["read", "only"]),
        ("HTTPServer", ["http", "server"]),
        ("parseJSONFile", ["parse", "json", "file"]),
        ("v2Api", ["v", "2", "api"]),
        ("ÜberweisungsFormular", ["überweisungs", "formular"]),
        ("Straße", ["strasse"]),
        ("Привет, мир", ["привет", "мир"]),
        ("ПриветМир", ["привет", "мир"]),
        ("日本語テキスト", ["日本語テキスト"]),
    ],
)
def test_tokens_split_identifiers_in_any_script(text: str, expected: list[str]) -> None:
    """Case changes split words whatever the script; caseless scripts stay whole."""
    assert tokens(text) == expected


def test_decomposed_accents_do_not_split_a_word() -> None:
    """``école`` typed as e + combining accent is one word, equal to the composed form."""
    assert tokens("e\u0301cole") == tokens("\u00e9cole") == ["école"]


def test_split_identifier_keeps_case() -> None:
    """Splitting keeps the original case; folding is the caller's business."""
    assert split_identifier("readOnlyMode") == ["read", "Only", "Mode"]


def test_contains_phrase_needs_consecutive_whole_words() -> None:
    """A phrase matches only as consecutive whole words."""
    assert contains_phrase(["make", "it", "read", "only"], ["read", "only"])
    assert not contains_phrase(["read", "it", "only"], ["read", "only"])
    assert not contains_phrase(["start"], ["art"])
    assert not contains_phrase(["art"], [])
