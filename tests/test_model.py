"""The lesson record and its on-disk form."""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest
from hypothesis import given
from hypothesis import strategies as st

from lessons_core.errors import InvalidLessonFile
from lessons_core.jsonio import dumps
from lessons_core.store.model import Checked, Lesson, Status, Triggers

SOURCE = Path("lessons/x.json")

text = st.text(st.characters(exclude_categories=["Cs"]), min_size=1, max_size=40)
ids = st.from_regex(r"[a-z0-9][a-z0-9-]{0,30}", fullmatch=True)
commits = st.from_regex(r"[0-9a-f]{40}|[0-9a-f]{64}", fullmatch=True)
dates = st.dates().map(lambda d: d.isoformat()).filter(lambda s: len(s) == 10)


@st.composite
def lessons(draw: st.DrawFn) -> Lesson:
    status = draw(st.sampled_from(list(Status)))
    return Lesson(
        id=draw(ids),
        rule=draw(text.filter(lambda s: s.strip() == s and s)),
        topics=tuple(draw(st.lists(ids, max_size=3))),
        triggers=Triggers(
            files=tuple(draw(st.lists(text, max_size=3))),
            commands=tuple(draw(st.lists(text, max_size=3))),
            keywords=tuple(draw(st.lists(text, max_size=3))),
        ),
        created=draw(dates),
        status=status,
        rationale=draw(st.none() | text),
        evidence=tuple(draw(st.lists(text, max_size=3))),
        superseded_by=draw(ids) if status is Status.SUPERSEDED else None,
        gate=draw(st.booleans()),
        always=draw(st.booleans()),
        checked=draw(st.none() | st.builds(Checked, commits, dates)),
    )


@given(lessons())
def test_round_trip_through_json_is_lossless(lesson: Lesson) -> None:
    """load(dump(x)) == x for any valid lesson."""
    data = orjson.loads(dumps(lesson.to_dict()))
    assert Lesson.from_dict(data, SOURCE) == lesson


@given(lessons())
def test_serialisation_is_deterministic(lesson: Lesson) -> None:
    """Dumping twice gives the same bytes: sorted keys, indent 2, trailing newline."""
    first = dumps(lesson.to_dict())
    assert first == dumps(Lesson.from_dict(orjson.loads(first), SOURCE).to_dict())
    assert first.endswith(b"}\n")
    assert b'\n  "created"' in first


def valid() -> dict[str, object]:
    return {
        "id": "paths-never-split",
        "rule": "Never split paths.",
        "topics": ["paths"],
        "triggers": {"files": ["src/**"], "commands": [], "keywords": []},
        "evidence": [],
        "status": "active",
        "created": "2026-01-02",
    }


@pytest.mark.parametrize(
    ("change", "key"),
    [
        ({"colour": "red"}, "colour"),
        ({"status": "retired"}, "status"),
        ({"created": "yesterday"}, "created"),
        ({"id": "Bad Id"}, "id"),
        ({"rule": "   "}, "rule"),
        ({"topics": "paths"}, "topics"),
        ({"triggers": {"globs": ["x"]}}, "triggers.globs"),
        ({"triggers": {"files": [""]}}, "triggers.files"),
        ({"status": "superseded"}, "superseded_by"),
        ({"gate": "yes"}, "gate"),
        ({"always": 1}, "always"),
        ({"checked": {"commit": "abc", "date": "2026-01-01"}}, "checked"),
        ({"checked": {"commit": "a" * 40, "date": "today"}}, "checked"),
        ({"checked": "HEAD"}, "checked"),
    ],
)
def test_invalid_field_is_named(change: dict[str, object], key: str) -> None:
    """Each schema error names the file and the key at fault."""
    data = valid() | change
    with pytest.raises(InvalidLessonFile) as caught:
        Lesson.from_dict(data, SOURCE)
    assert caught.value.key == key
    assert str(SOURCE) in str(caught.value)


def test_file_without_always_marker_is_not_always_on() -> None:
    """A lesson file written before the always-on marker existed still loads, as a
    triggered lesson, and is written back byte for byte (no ``always`` key added)."""
    lesson = Lesson.from_dict(valid(), SOURCE)
    assert lesson.always is False
    assert "always" not in lesson.to_dict()


def test_always_marker_round_trips_without_triggers() -> None:
    """``"always": true`` is kept, and an always-on lesson may have no trigger at all."""
    data = valid() | {"always": True, "triggers": {"files": [], "commands": [], "keywords": []}}
    lesson = Lesson.from_dict(data, SOURCE)
    assert lesson.always is True
    assert lesson.to_dict()["always"] is True


def test_missing_required_field_is_named() -> None:
    """A missing required key is reported by name."""
    data = valid()
    del data["triggers"]
    with pytest.raises(InvalidLessonFile, match="triggers"):
        Lesson.from_dict(data, SOURCE)


@pytest.mark.parametrize(("first", "second"), [(True, False), (False, True), (True, True)])
def test_readding_a_rule_keeps_a_gate_from_either_side(first: bool, second: bool) -> None:
    """The rule re-added (by ``lessons add`` or an import) merges triggers, topics and
    evidence into the lesson, keeps its id, date and rationale, and a gate on either side
    stays."""
    base = Lesson("a", "Rule.", ("x",), Triggers(files=("a.py",)), "2024-01-01", gate=first)
    again = Lesson("", "Rule.", ("y",), Triggers(commands=("make",)), "2025-01-01",
                   rationale="why", evidence=("import:f.md",), gate=second)  # fmt: skip
    merged = base.readded(again)
    assert merged.gate
    assert (merged.id, merged.created, merged.rationale) == ("a", "2024-01-01", "why")
    assert merged.topics == ("x", "y")
    assert merged.triggers == Triggers(files=("a.py",), commands=("make",))
    assert merged.evidence == ("import:f.md",)
