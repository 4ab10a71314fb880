"""Words: Unicode-aware tokenising, the common English words that never count alone, and
the one keyword matcher (whole words, and their regular English inflections).

Every file edit tokenises its path (keywords are matched against its words), so ASCII text,
nearly every path and command, takes a path of plain ``str`` methods giving exactly what
the Unicode one gives; regular expressions and ``unicodedata`` serve only other text.
"""

from __future__ import annotations

import re
import unicodedata
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Sequence

# Letters and digits of any script; identifiers are split at case changes, underscores
# and dashes so `readOnly`, `read_only` and `read-only` all give "read", "only".
_WORD = r"[^\W_]+"
# On ASCII text that class is [A-Za-z0-9]: every other ASCII character separates words.
_ASCII_SEPARATORS = str.maketrans({code: " " for code in range(128) if not chr(code).isalnum()})

COMMON_WORDS: frozenset[str] = frozenset(
    """
    a about above after again against all also always am an and any are as at be because
    been before being below between both but by can cannot could did do does doing done
    down during each else even ever every few for from further get gets got had has have
    having he her here hers him his how i if in into is it its itself just let lets like
    me more most much must my never no nor not now of off on once only or other our ours
    out over own same she should so some such than that the their theirs them then there
    these they this those through to too under until up use used uses using very via was
    we were what when where which while who whom why will with without would yes yet you
    your yours
    add added adds all new old top left right bottom middle file files code codes fix
    fixes fixed make makes made thing things stuff work works working way ways run runs
    running one two three first last next line lines change changes changed set sets
    check checks need needs want wants try tries see look looks take takes give gives
    good bad better best please thanks thank ok okay sure still already again instead
    something anything everything nothing someone anyone everyone item items part parts
    type types value values name names data test tests text time times place case cases
    issue issues problem problems question answer help show shows call calls put keep
    keeps start starts stop stops end ends open close write read go goes going come
    comes know think say says said tell told find found may might shall etc e g ie eg
    """.split()
)


def fold(text: str) -> str:
    """Case-fold and NFC-normalise, so ``Straße`` and ``STRASSE`` compare by meaning."""
    if text.isascii():  # NFC leaves ASCII alone, and casefold is lower there
        return text.lower()
    return _unicode_fold(text)


def _unicode_fold(text: str) -> str:
    return unicodedata.normalize("NFC", text).casefold()


def split_identifier(word: str) -> list[str]:
    """``readOnlyMode`` -> ``read``, ``Only``, ``Mode`` (case kept; callers fold).

    Case is read with ``str.isupper``/``islower``, not ``[A-Z]``, so ``ÜberweisungsFormular``
    splits like ``TransferForm`` does and ``Straße`` stays one word. Scripts without case
    (CJK, Hebrew) never split; a change between digits and letters always does.
    """
    parts: list[str] = []
    start = 0
    for i in range(1, len(word)):
        prev, char = word[i - 1], word[i]
        following = word[i + 1] if i + 1 < len(word) else ""
        if (
            prev.isdigit() != char.isdigit()
            or (prev.islower() and char.isupper())
            or (prev.isupper() and char.isupper() and following.islower())
        ):
            parts.append(word[start:i])
            start = i
    parts.append(word[start:])
    return parts


def tokens(text: str) -> list[str]:
    """Folded words of ``text`` with identifiers split (camelCase, snake_case, kebab-case).

    NFC first: a decomposed ``é`` (e + combining accent) would otherwise split the word.
    """
    if not text.isascii():
        return _unicode_tokens(text)
    return [
        part.lower()
        for word in text.translate(_ASCII_SEPARATORS).split()
        for part in split_identifier(word)
    ]


def _unicode_tokens(text: str) -> list[str]:
    """``tokens`` for any text: the definition the ASCII path must agree with."""

    out: list[str] = []
    for word in re.findall(_WORD, unicodedata.normalize("NFC", text)):
        out.extend(_unicode_fold(part) for part in split_identifier(word))
    return out


def meaningful(terms: list[str]) -> list[str]:
    """Terms that carry meaning: not common English, not a lone letter or digit."""
    return [t for t in terms if t not in COMMON_WORDS and len(t) > 1 and not t.isdigit()]


def is_common_phrase(phrase: str) -> bool:
    """True when every word of ``phrase`` is common English (or there are no words)."""
    return not meaningful(tokens(phrase))


def contains_phrase(words: Sequence[str], phrase: Sequence[str]) -> bool:
    """The one keyword matcher: whether ``phrase`` occurs in ``words`` as consecutive whole
    words, each as written or in a regular inflection (``word_matches``). Recall, which
    finds the starts from an index by first word, asks ``phrase_at``."""
    return len(phrase) > 0 and any(
        phrase_at(words, start, phrase) for start in range(len(words) - len(phrase) + 1)
    )


def phrase_at(words: Sequence[str], start: int, phrase: Sequence[str]) -> bool:
    """Whether ``phrase`` stands in ``words`` from ``start`` on."""
    if start + len(phrase) > len(words):
        return False
    return all(word_matches(words[start + i], base) for i, base in enumerate(phrase))


def word_matches(word: str, base: str) -> bool:
    """Whether the text's ``word`` is the keyword's word ``base`` or a regular English
    inflection of it: ``hints`` for ``hint``, ``boxes`` for ``box``, ``policies`` for
    ``policy``, ``pushed``/``pushing`` for ``push``, ``used``/``using`` for ``use``,
    ``stopped`` for ``stop``. Whole words only: ``art`` matches ``arts``, never ``start``.
    """
    return word == base or base in stems(word)


# A base shorter than this is not stemmed to: "is" is no inflection of "i", "as" of "a".
_MIN_BASE = 3


def stems(word: str) -> tuple[str, ...]:
    """The words ``word`` may be a regular inflection of (plural ``-s``/``-es``/``-ies``,
    ``-ed``/``-ied``, ``-ing``, a doubled final consonant, a dropped final ``e``); recall
    looks a keyword up under each of them. Only plain suffix rules: an irregular form
    (``ran``, ``mice``) is not an inflection here, nor is any word outside ASCII."""
    found: list[str] = []
    if not word.isascii():  # English suffixes: "überweisungs" is no plural of a keyword
        return ()
    if word.endswith("ies"):
        found.append(word[:-3] + "y")
    elif word.endswith("es"):
        found += [word[:-1], word[:-2]]
    elif word.endswith("s") and not word.endswith("ss"):
        found.append(word[:-1])
    elif word.endswith("ied"):
        found.append(word[:-3] + "y")
    elif word.endswith("ed"):
        found += [word[:-1], word[:-2], *_undoubled(word[:-2])]
    elif word.endswith("ing"):
        found += [word[:-3], word[:-3] + "e", *_undoubled(word[:-3])]
    # A base without a vowel is no English word: "string" is not "str" plus -ing.
    return tuple(b for b in found if len(b) >= _MIN_BASE and any(v in b for v in "aeiouy"))


def _undoubled(stem: str) -> tuple[str, ...]:
    """``stopp`` -> ``stop``: the base of a word whose final consonant was doubled."""
    if len(stem) > 1 and stem[-1] == stem[-2] and stem[-1] not in "aeiou":
        return (stem[:-1],)
    return ()
