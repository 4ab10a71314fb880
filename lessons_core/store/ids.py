"""Readable, unique, stable lesson ids: topic plus the first meaningful words of the rule."""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable
from dataclasses import replace

from lessons_core.matching.words import COMMON_WORDS
from lessons_core.store.model import Lesson

MAX_ID_CHARS = 60
_NON_SLUG = re.compile(r"[^a-z0-9]+")


def slug(text: str) -> str:
    """ASCII, lowercase, dash-separated (``Überweisung API`` -> ``uberweisung-api``)."""
    ascii_text = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode()
    return _NON_SLUG.sub("-", ascii_text.lower()).strip("-")


def base_id(topic: str, rule: str, words: int = 5) -> str:
    """``topic-first-meaningful-words``; common words are skipped when others remain."""
    rule_terms = slug(rule).split("-")
    picked = [w for w in rule_terms if w and w not in COMMON_WORDS] or [w for w in rule_terms if w]
    stem = "-".join([slug(topic) or "general", *picked[:words]])
    return stem[:MAX_ID_CHARS].rstrip("-") or "lesson"


def candidate_ids(topic: str, rule: str) -> list[str]:
    """The id to try first, then numbered variants for when it is taken."""
    first = base_id(topic, rule)
    return [first] + [f"{first}-{n}" for n in range(2, 1000)]


def claim_id(lesson: Lesson, topic: str, claim: Callable[[Lesson], bool]) -> Lesson | None:
    """``lesson`` under the first of its candidate ids that ``claim`` takes, or None when
    every one is taken. ``claim`` takes an id for good: ``lessons add`` by creating the
    file exclusively, an import by reserving it in its plan."""
    for lesson_id in candidate_ids(topic, lesson.rule):
        named = replace(lesson, id=lesson_id)
        if claim(named):
            return named
    return None
