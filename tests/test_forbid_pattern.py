"""A file lesson's ``forbid`` pattern: checked at load, searched in added text."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from lessons_core.errors import InvalidLessonFile
from lessons_core.matching.forbid import (
    MAX_FORBID_CHARS,
    ForbidPatternError,
    check_forbid,
    first_forbidden,
)
from lessons_core.store.model import Lesson

SOURCE = Path("lessons/x.json")


def _data(**extra: object) -> dict[str, object]:
    return {
        "id": "paths-basename",
        "rule": "Never split('/') a filesystem path; use basename().",
        "topics": ["paths"],
        "triggers": {"files": ["src/storage/**"], "commands": [], "keywords": []},
        "status": "active",
        "created": "2026-12-01",
        **extra,
    }


def test_forbid_and_enforce_round_trip() -> None:
    data = _data(forbid=r"split\('/'\)", enforce=True)
    lesson = Lesson.from_dict(data, SOURCE)
    assert lesson.forbid == r"split\('/'\)"
    assert lesson.enforce is True
    assert Lesson.from_dict(lesson.to_dict(), SOURCE) == lesson
    assert lesson.to_dict()["forbid"] == r"split\('/'\)"


def test_plain_lesson_writes_neither_key() -> None:
    written = Lesson.from_dict(_data(), SOURCE).to_dict()
    assert "forbid" not in written
    assert "enforce" not in written


@pytest.mark.parametrize(
    ("extra", "reason"),
    [
        ({"forbid": 3}, "must be a string"),
        ({"forbid": ""}, "is empty"),
        ({"forbid": "a*"}, "matches the empty string"),
        ({"forbid": r"(a)\1"}, "linear-time"),
        ({"forbid": "x" * (MAX_FORBID_CHARS + 1)}, "the limit is"),
        ({"enforce": "yes"}, "true or false"),
    ],
)
def test_bad_values_name_the_key(extra: dict[str, object], reason: str) -> None:
    with pytest.raises(InvalidLessonFile) as caught:
        Lesson.from_dict(_data(**extra), SOURCE)
    assert reason in str(caught.value)
    assert next(iter(extra)) in str(caught.value)


def test_forbid_needs_a_file_trigger() -> None:
    data = _data(forbid="split")
    data["triggers"] = {"files": [], "commands": ["make"], "keywords": []}
    with pytest.raises(InvalidLessonFile, match="add a file trigger"):
        Lesson.from_dict(data, SOURCE)


def test_first_forbidden_names_the_text_and_line() -> None:
    added = "import os\nname = path.split('/')[-1]\n"
    found = first_forbidden(r"split\('/'\)", added)
    assert found is not None
    assert found.text == "split('/')"
    assert found.line == 2
    assert first_forbidden(r"split\('/'\)", "os.path.basename(path)\n") is None


def test_long_match_is_shortened_for_quoting() -> None:
    found = first_forbidden("x+", "x" * 1000)
    assert found is not None
    assert len(found.text) == 120
    assert found.text.endswith("…")


def test_a_pattern_that_stops_compiling_matches_nothing() -> None:
    assert first_forbidden(r"(a)\1", "aa") is None


def test_check_forbid_refuses_nul() -> None:
    with pytest.raises(ForbidPatternError, match="NUL"):
        check_forbid("a\x00b")


@given(st.text(max_size=60), st.text(max_size=400))
def test_never_raises(pattern: str, added: str) -> None:
    found = first_forbidden(pattern, added)
    assert found is None or found.line >= 1
