"""``lessons report --html`` rendered by real headless Chromium (Debian's package).

``scripts/test`` installs chromium when it is missing. Console messages are read from
Chromium's own log (``--enable-logging=stderr``), where each appears as a ``CONSOLE``
line; the first test proves that this catches a planted error, so a clean run means
something.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import time
from pathlib import Path

import pytest

from lessons_core.store.layout import Layout
from lessons_core.telemetry.log import log_path
from tests.conftest import run
from tests.lesson_graphs import log_failure, log_recall, make_project, write_lesson
from tests.png_pixels import distinct_colours, read_rows

CONSOLE_LINE = re.compile(r":CONSOLE[:(]\d+\)?\] (.*)")
DAY = 24 * 3600


def chromium() -> str:
    found = shutil.which("chromium")
    if found is None:
        pytest.fail("chromium is not installed; run 'bash scripts/test', which installs it")
    return found


def render(page: Path, tmp_path: Path) -> tuple[Path, list[str]]:
    """Screenshot ``page``; return the PNG and every console message Chromium logged."""
    shot = tmp_path / "shot.png"
    result = subprocess.run(
        [
            chromium(),
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-quic",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            f"--user-data-dir={tmp_path / 'profile'}",
            "--enable-logging=stderr",
            "--v=0",
            "--hide-scrollbars",
            "--window-size=1100,1500",
            f"--screenshot={shot}",
            page.as_uri(),
        ],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert result.returncode == 0, result.stderr[-2000:]
    messages = [m.group(1) for m in map(CONSOLE_LINE.search, result.stderr.splitlines()) if m]
    return shot, messages


def test_the_console_check_catches_a_planted_error(tmp_path: Path) -> None:
    """A script error and a blocked external image both show up as console messages."""
    page = tmp_path / "bad.html"
    page.write_text(
        '<!DOCTYPE html><html><head><meta http-equiv="Content-Security-Policy" '
        "content=\"default-src 'none'\"></head><body><p>x</p>"
        '<img src="https://example.invalid/a.png">'
        "<script>missingFunction()</script></body></html>"
    )
    _, messages = render(page, tmp_path)
    assert any("Content Security Policy" in m for m in messages), messages
    page.write_text("<!DOCTYPE html><html><body><script>missingFunction()</script></body></html>")
    _, messages = render(page, tmp_path)
    assert any("ReferenceError: missingFunction" in m for m in messages), messages


def _old_recall(ts: float, session: str, delivered: list[str]) -> str:
    """One recall line in the documented schema (docs/telemetry.md), dated ``ts``."""
    record = {
        "v": 1,
        "kind": "recall",
        "ts": ts,
        "session": session,
        "event": "PreToolUse",
        "key": "src/db/models.py",
        "candidates": delivered,
        "candidates_total": len(delivered),
        "delivered": delivered,
        "tokens": 50 * len(delivered),
        "silent": not delivered,
    }
    return json.dumps(record) + "\n"


def _telemetry(layout: Layout) -> None:
    """A week of recalls (older days written directly) and two failures after a delivery."""
    now = time.time()
    with log_path(layout).open("a") as handle:
        for day in range(6, 0, -1):
            for number in range(day * 3):
                delivered = ["db-a"] if number % 3 == 0 else []
                handle.write(_old_recall(now - day * DAY + number, f"d{day}", delivered))
    for session in ("s1", "s2"):
        log_recall(layout, "alembic upgrade", ["db-b"], session)
        log_failure(layout, "alembic upgrade", session)


@pytest.fixture
def report(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A project with topics, covered and uncovered folders, findings and telemetry."""
    root = tmp_path / "repo"
    layout = make_project(root, telemetry=True)
    monkeypatch.chdir(root)
    write_lesson(layout, "db-a", "Run alembic upgrade head before tests.", files=["src/db/**"])
    write_lesson(layout, "db-b", "Name every index explicitly.", commands=["alembic upgrade"])
    write_lesson(layout, "cli-c", "Keep CLI startup free of heavy imports.", files=["src/cli/**"])
    write_lesson(layout, "docs-d", "Link <b>every</b> page & section.", files=["docs/old/**"])
    write_lesson(layout, "docs-e", "Old rule.", files=["docs/**"], status="deprecated",
                 reason="the docs moved to the wiki")  # fmt: skip
    (layout.lessons_dir / "broken.json").write_text("{")
    _telemetry(layout)
    out = tmp_path / "report.html"
    result = run("report", "--html", str(out))
    assert result.exit_code == 0, result.stderr
    assert result.stdout == f"wrote {out}\n"
    return out


def test_the_page_is_self_contained(report: Path) -> None:
    """No script, no external reference: nothing can be fetched or run."""
    page = report.read_text()
    assert "<script" not in page.lower()
    assert not re.search(r"\s(src|href)=", page)
    assert "url(" not in page
    assert "@import" not in page
    assert set(re.findall(r"https?://[^\s\"'<>]+", page)) == {"http://www.w3.org/2000/svg"}


def test_the_page_holds_every_section(report: Path) -> None:
    """Topics, coverage, findings and telemetry charts are all there, content escaped."""
    page = report.read_text()
    for anchor in ('id="topics"', 'id="coverage"', 'id="findings"', 'id="telemetry"'):
        assert anchor in page
    assert "Link &lt;b&gt;every&lt;/b&gt; page &amp; section." not in page  # rules are not listed
    assert "docs/old/**" in page  # the dead-glob finding names it
    assert "L001" in page  # the broken file
    assert page.count("<svg") >= 4
    assert "db-b before alembic upgrade" in page
    assert "Recalls per day" in page


def test_the_page_names_never_recalled_and_retired_lessons(report: Path) -> None:
    """Never-recalled lessons by id, not only their count; a deprecated one with its
    reason."""
    page = report.read_text()
    assert "Never recalled: <code>cli-c</code>, <code>docs-d</code>." in page
    retired = page[page.index('id="retired"') :]
    assert "<code>docs-e</code></td><td>deprecated</td><td>the docs moved to the wiki</td>" in (
        retired
    )


def test_chromium_renders_it_without_console_errors(report: Path, tmp_path: Path) -> None:
    """Real headless Chromium: no console message, and a screenshot with real content."""
    shot, messages = render(report, tmp_path)
    assert messages == []
    assert shot.stat().st_size > 20_000
    width, height, rows = read_rows(shot)
    assert (width, height) == (1100, 1500)
    assert len(set(rows)) > 100  # many different rows: text, bars, tables
    assert distinct_colours(shot) > 50


def test_without_telemetry_the_page_says_how_to_turn_it_on(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Telemetry off: the section explains the setting instead of charts."""
    layout = make_project(tmp_path)
    monkeypatch.chdir(tmp_path)
    write_lesson(layout, "db-a", "Run alembic upgrade head before tests.", files=["src/db/**"])
    out = tmp_path / "r.html"
    assert run("report", "--html", str(out)).exit_code == 0
    page = out.read_text()
    assert "Telemetry is off" in page
    assert "Recalls per day" not in page


def test_help_has_an_example() -> None:
    """--help shows an Example block."""
    assert "Example:" in run("report", "--help").stdout
