"""Readable, unique, stable lesson ids: topic plus the first meaningful words of the rule."""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable
from dataclasses import replace

from lessons_core.matching.words import COMMON_WORDS
from lessons_core.store.model import Lesson

MAX_ID_CHARS = 60  # the longest id ``--id`` accepts
# A generated id stops at the word that would take it past this: short enough to type.
GENERATED_ID_CHARS = 40
_NON_SLUG = re.compile(r"[^a-z0-9]+")
_ID = re.compile(r"[a-z0-9]+(?:-[a-z0-9]+)*")


def slug(text: str) -> str:
    """ASCII, lowercase, dash-separated (``Überweisung API`` -> ``uberweisung-api``)."""
    ascii_text = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode()
    return _NON_SLUG.sub("-", ascii_text.lower()).strip("-")


def base_id(topic: str, rule: str, words: int = 4) -> str:
    """``topic-first-meaningful-words``: common words are skipped when others remain, and
    each word comes once (the topic's included), within ``GENERATED_ID_CHARS``, so "uv
    run pytest, not uv tox" under ``testing`` is ``testing-uv-pytest-tox``."""
    head = slug(topic) or "general"
    terms = [w for w in slug(rule).split("-") if w]
    picked = [w for w in terms if w not in COMMON_WORDS and len(w) > 1 and not w.isdigit()]
    seen = set(head.split("-"))
    stem = head[:GENERATED_ID_CHARS].rstrip("-")
    for word in picked or terms:
        if word in seen:
            continue
        if words <= 0 or len(stem) + 1 + len(word) > GENERATED_ID_CHARS:
            break
        seen.add(word)
        stem = f"{stem}-{word}"
        words -= 1
    return stem or "lesson"


def id_problem(lesson_id: str) -> str | None:
    """Why ``lesson_id`` cannot name a lesson (``lessons add --id``), or None."""
    if not _ID.fullmatch(lesson_id):
        return (
            f"id {lesson_id!r} must be lowercase letters, digits and single dashes "
            "(e.g. 'testing-pytest')"
        )
    if len(lesson_id) > MAX_ID_CHARS:
        return f"id {lesson_id!r} is {len(lesson_id)} characters long; the limit is {MAX_ID_CHARS}"
    return None


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
