"""``lessons stats``: figures computed from a real telemetry log."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from lessons_core.store.files import load_graph
from lessons_core.store.layout import Layout
from lessons_core.telemetry.stats import preload_cost
from tests.conftest import run
from tests.lesson_graphs import log_failure, log_recall, make_project, write_lesson


def _log(layout: Layout) -> None:
    """Two sessions: 6 recalls, 3 delivering (a twice, b once), one failure after a."""
    calls = [
        ("s1", "src/db/models.py", ["a"], 100),
        ("s1", "src/db/models.py", [], 0),
        ("s1", "src/app.py", [], 0),
        ("s2", "alembic upgrade", ["a", "b"], 200),
        ("s2", "README.md", [], 0),
        ("s2", "src/app.py", [], 0),
    ]
    for session, key, delivered, tokens in calls:
        log_recall(layout, key, delivered, session, tokens)
    log_failure(layout, "alembic upgrade", "s2")


@pytest.fixture
def layout(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Layout:
    monkeypatch.chdir(tmp_path)
    layout = make_project(tmp_path, telemetry=True)
    write_lesson(layout, "a", "Run alembic upgrade head before the tests.", files=["src/db/**"])
    write_lesson(layout, "b", "Keep alembic revision ids short.", commands=["alembic"])
    write_lesson(layout, "c", "Quote identifiers in raw SQL.", files=["src/db/**"])
    write_lesson(layout, "d", "Old rule.", files=["src/**"], status="deprecated")
    return layout


def test_json_has_every_figure(layout: Layout) -> None:
    """Counts, silence, token averages, rankings, never-recalled, failures, ratio."""
    _log(layout)
    result = run("stats", "--json")
    assert result.exit_code == 0
    assert result.stderr == ""
    data = json.loads(result.stdout)
    assert (data["recalls"], data["silent"], data["sessions"]) == (6, 4, 2)
    assert data["silent_share"] == pytest.approx(4 / 6, abs=1e-4)
    assert data["tokens_per_recall"] == 50.0
    assert data["tokens_per_delivery"] == 150.0
    assert data["most_recalled"][0] == {"lesson_id": "a", "count": 2}
    assert data["least_recalled"][0] == {"lesson_id": "b", "count": 1}
    assert data["never_recalled"] == ["c"]
    assert data["failed_after"] == [
        {"lesson_id": "a", "key": "alembic upgrade", "failures": 1, "sessions": 1},
        {"lesson_id": "b", "key": "alembic upgrade", "failures": 1, "sessions": 1},
    ]
    active = [x for x in load_graph(layout).lessons.values() if x.is_active]
    assert data["preload_tokens"] == preload_cost(active)
    assert data["ratio"] == pytest.approx(300 / (preload_cost(active) * 2), abs=1e-4)
    assert sum(day["recalls"] for day in data["days"]) == 6


def test_text_output_reads_as_a_summary(layout: Layout) -> None:
    """Plain output names the figures and the failing lesson."""
    _log(layout)
    result = run("stats")
    assert result.exit_code == 0
    assert "recalls served        6 in 2 sessions" in result.stdout
    assert "silent                66.7%" in result.stdout
    assert "50.0 over every call, 150.0 over delivering calls" in result.stdout
    assert "never recalled        1 active lesson: c\n" in result.stdout
    assert "  a before 'alembic upgrade': 1 failure in 1 session\n" in result.stdout


def test_telemetry_off_and_no_log_says_how_to_turn_it_on(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Exit 0: the store's own figures, and the config key that starts counting."""
    monkeypatch.chdir(tmp_path)
    layout = make_project(tmp_path)
    write_lesson(layout, "a", "Quote identifiers in raw SQL.", files=["src/db/**"])
    result = run("stats")
    assert (result.exit_code, result.stderr) == (0, "")
    assert "active lessons        1" in result.stdout
    assert "preloading all rules" in result.stdout
    assert '"telemetry": true in .lessons/config.json' in result.stdout


def test_telemetry_off_json_says_so(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """--json with telemetry off is valid JSON with "telemetry": false."""
    monkeypatch.chdir(tmp_path)
    layout = make_project(tmp_path)
    write_lesson(layout, "a", "Quote identifiers in raw SQL.", files=["src/db/**"])
    result = run("stats", "--json")
    assert result.exit_code == 0
    data = json.loads(result.stdout)
    assert data["telemetry"] is False
    assert data["active_lessons"] == 1
    assert data["preload_tokens"] > 0


def test_old_records_are_shown_with_a_warning_when_off(layout: Layout) -> None:
    """A log left from before telemetry was turned off is still read."""
    _log(layout)
    layout.config_path.write_text('{"telemetry": false}\n')
    result = run("stats", "--json")
    assert result.exit_code == 0
    assert json.loads(result.stdout)["recalls"] == 6
    assert "telemetry is off" in result.stderr


def test_an_empty_log_gives_zeros(layout: Layout) -> None:
    """Telemetry on but nothing recalled yet: zeros, no ratio."""
    data = json.loads(run("stats", "--json").stdout)
    assert (data["recalls"], data["tokens_per_recall"], data["ratio"]) == (0, 0.0, None)
    assert data["never_recalled"] == ["a", "b", "c"]


def test_help_has_an_example() -> None:
    """--help shows an Example block."""
    assert "Example:" in run("stats", "--help").stdout


def test_most_and_least_recalled_never_name_the_same_lesson(layout: Layout) -> None:
    """Four lessons delivered once each (all tied): each is named in one list only, and
    the never-recalled ones are named."""
    for lesson_id in ("e", "f"):
        write_lesson(layout, lesson_id, f"Rule {lesson_id} about the models.", files=["src/db/**"])
    for lesson_id in ("a", "b", "c", "e"):
        log_recall(layout, "src/db/models.py", [lesson_id])
    data = json.loads(run("stats", "--json").stdout)
    most = [c["lesson_id"] for c in data["most_recalled"]]
    least = [c["lesson_id"] for c in data["least_recalled"]]
    assert (most, least) == (["a", "b"], ["c", "e"])
    assert data["never_recalled"] == ["f"]
    text = run("stats").stdout
    assert "most recalled         a (1), b (1)\n" in text
    assert "least recalled        c (1), e (1)\n" in text
    assert "never recalled        1 active lesson: f\n" in text
