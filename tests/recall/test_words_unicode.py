"""Tokenising is Unicode-aware: identifiers split, scripts and accents kept whole."""

from __future__ import annotations

import re
import unicodedata

import pytest
from hypothesis import given
from hypothesis import strategies as st

from lessons_core.matching.words import contains_phrase, fold, split_identifier, tokens
from tests.security.conftest import fuzz_settings

# ASCII text rich in what splits words: case changes, digits, underscores, punctuation.
IDENTIFIER_TEXT = st.text(alphabet="aAbBzZ09_-./ \t\n\x00\x1f\x7f", max_size=40)
ASCII_TEXT = st.text(alphabet=st.characters(max_codepoint=127), max_size=40)
# Any text, and text mixing ASCII identifiers with accents, other scripts and marks.
ANY_TEXT = st.one_of(
    st.text(max_size=40),
    st.text(alphabet="aAzZ09_-/ éÉßẞİıǅΣσςПр日\u0301\u00a0\u2028", max_size=40),
)


def reference_tokens(text: str) -> list[str]:
    """What ``tokens`` has always been: Unicode words of the NFC text, identifiers split,
    each part NFC-normalised and case-folded."""
    words = re.findall(r"[^\W_]+", unicodedata.normalize("NFC", text))
    return [
        unicodedata.normalize("NFC", part).casefold()
        for word in words
        for part in split_identifier(word)
    ]


@fuzz_settings(2000)
@given(st.one_of(IDENTIFIER_TEXT, ASCII_TEXT))
def test_ascii_text_is_tokenised_exactly_as_unicode_text_is(text: str) -> None:
    """The ASCII path (no re, no unicodedata) gives the Unicode definition's words."""
    assert tokens(text) == reference_tokens(text)
    assert fold(text) == unicodedata.normalize("NFC", text).casefold()


@fuzz_settings(1000)
@given(ANY_TEXT)
def test_any_text_is_tokenised_by_the_unicode_definition(text: str) -> None:
    """Whatever the text, ASCII or not, tokens and fold are the Unicode definitions."""
    assert tokens(text) == reference_tokens(text)
    assert fold(text) == unicodedata.normalize("NFC", text).casefold()


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
