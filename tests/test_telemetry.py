"""The telemetry log: opt-in, masked, bounded, safe under concurrency, cheap to import."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from lessons_core.store.config import Config
from lessons_core.store.layout import Layout
from lessons_core.store.project import init_project
from lessons_core.telemetry.log import (
    PROMPT_KEY,
    log_path,
    read_log,
    record_failure,
    record_recall,
    rotated_path,
    session_tag,
)
from tests.lesson_graphs import make_project

ON = Config(telemetry=True)


def recall(layout: Layout, config: Config = ON, **fields: object) -> bool:
    values: dict[str, object] = {
        "event": "PreToolUse",
        "key": "src/app.py",
        "candidates": ["a", "b"],
        "delivered": ["a"],
        "tokens": 42,
        "session": "s1",
        "about": "files",
    }
    values.update(fields)
    return record_recall(layout, config, **values)  # type: ignore[arg-type]


def lines(layout: Layout) -> list[dict[str, object]]:
    return [json.loads(line) for line in log_path(layout).read_text().splitlines()]


def test_off_by_default_writes_nothing(tmp_path: Path) -> None:
    """With the default config no log file appears."""
    layout, _ = init_project(tmp_path)
    assert recall(layout, Config()) is False
    assert not log_path(layout).exists()


def test_an_environment_variable_cannot_turn_it_on(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Only config.json decides: a LESSONS_TELEMETRY variable changes nothing."""
    monkeypatch.setenv("LESSONS_TELEMETRY", "1")
    layout, _ = init_project(tmp_path)
    assert recall(layout, Config()) is False
    assert not log_path(layout).exists()


def test_a_recall_record_has_the_documented_fields(tmp_path: Path) -> None:
    """One JSON line: v, kind, ts, session tag, event, key, about, ids, tokens, silent."""
    layout, _ = init_project(tmp_path)
    assert recall(layout) is True
    [record] = lines(layout)
    assert set(record) == {
        "v", "kind", "ts", "session", "event", "key", "about", "candidates",
        "candidates_total", "delivered", "tokens", "silent",
    }  # fmt: skip
    assert record["kind"] == "recall"
    assert record["session"] == session_tag("s1") != "s1"
    assert (record["candidates"], record["delivered"], record["tokens"]) == (["a", "b"], ["a"], 42)
    assert record["silent"] is False


def test_about_is_read_back_and_empty_for_older_records(tmp_path: Path) -> None:
    """The key's kind comes back from the log; a record without it reads as ''."""
    layout, _ = init_project(tmp_path)
    recall(layout, key="make deploy", about="command")
    recall(layout, about="")
    assert "about" not in lines(layout)[1]
    assert [r.about for r in read_log(layout).recalls] == ["command", ""]


def test_a_silent_recall_is_marked_silent(tmp_path: Path) -> None:
    """No delivered ids: silent true, read back as silent."""
    layout, _ = init_project(tmp_path)
    recall(layout, delivered=[], tokens=0)
    assert lines(layout)[0]["silent"] is True
    assert read_log(layout).recalls[0].silent


def test_secrets_in_keys_are_masked(tmp_path: Path) -> None:
    """A token in a command never reaches the log."""
    layout, _ = init_project(tmp_path)
    token = "ghp_" + "a1B2" * 9
    recall(layout, key=f"curl -H 'Authorization: Bearer {token}' --password=hunter22 x")
    text = log_path(layout).read_text()
    assert token not in text
    assert "hunter22" not in text
    assert "[secret]" in text


def test_long_keys_are_cut(tmp_path: Path) -> None:
    """A key is at most 200 characters on one line."""
    layout, _ = init_project(tmp_path)
    recall(layout, key="echo " + "x" * 500 + "\nrm -rf y")
    key = lines(layout)[0]["key"]
    assert isinstance(key, str)
    assert len(key) == 200
    assert "\n" not in key


def test_the_log_rotates_and_stays_bounded(tmp_path: Path) -> None:
    """With a 4 KB limit, 200 records leave two files within about 4 KB."""
    layout, _ = init_project(tmp_path)
    config = Config(telemetry=True, telemetry_max_bytes=4000)
    for number in range(200):
        recall(layout, config, key=f"src/file{number}.py")
    assert rotated_path(layout).exists()
    record_size = len(rotated_path(layout).read_text().splitlines()[0]) + 1
    # The last write may itself have rotated the log, leaving no current file yet.
    current = log_path(layout).stat().st_size if log_path(layout).exists() else 0
    total = current + rotated_path(layout).stat().st_size
    assert total <= 4000 + record_size
    keys = [r.key for r in read_log(layout).recalls]
    assert keys[-1] == "src/file199.py"
    assert keys == sorted(keys, key=lambda k: int(k[8:-3]))  # oldest first, nothing reordered


def test_concurrent_writers_never_interleave_lines(tmp_path: Path) -> None:
    """Six processes appending 100 records each leave 600 whole lines."""
    layout, _ = init_project(tmp_path)
    script = (
        "import sys; from pathlib import Path\n"
        "from lessons_core.store.config import Config\n"
        "from lessons_core.store.layout import Layout\n"
        "from lessons_core.telemetry.log import record_recall\n"
        "layout = Layout(Path(sys.argv[1]))\n"
        "for n in range(100):\n"
        "    record_recall(layout, Config(telemetry=True), event='PreToolUse',\n"
        "        key=f'w{sys.argv[2]}-{n}' + 'x' * 300, candidates=['a'] * 20,\n"
        "        delivered=['a'], tokens=5, session=sys.argv[2])\n"
    )
    workers = [
        subprocess.Popen([sys.executable, "-c", script, str(tmp_path), str(n)]) for n in range(6)
    ]
    assert [w.wait(timeout=60) for w in workers] == [0] * 6
    log = read_log(layout)
    assert (len(log.recalls), log.skipped) == (600, 0)


def test_a_failure_without_a_delivery_is_not_logged(tmp_path: Path) -> None:
    """Nothing was shown for this key: no failure record."""
    layout, _ = init_project(tmp_path)
    recall(layout, key="src/other.py")
    assert not record_failure(
        layout, ON, event="PostToolUseFailure", key="src/app.py", session="s1"
    )
    assert read_log(layout).failures == []


def test_a_failure_after_a_delivery_names_the_lessons_shown(tmp_path: Path) -> None:
    """Same session and key: the failure lists every lesson delivered for it."""
    layout, _ = init_project(tmp_path)
    recall(layout, delivered=["a"])
    recall(layout, delivered=[], tokens=0)  # the retried call, silent
    recall(layout, delivered=["c"], candidates=["c"])
    assert record_failure(layout, ON, event="PostToolUseFailure", key="src/app.py", session="s1")
    [failure] = read_log(layout).failures
    assert failure.after == ("a", "c")
    assert failure.key == "src/app.py"


def test_a_delivery_in_another_session_does_not_count(tmp_path: Path) -> None:
    """Another session's deliveries are not this failure's."""
    layout, _ = init_project(tmp_path)
    recall(layout, session="s2")
    assert not record_failure(
        layout, ON, event="PostToolUseFailure", key="src/app.py", session="s1"
    )


def test_the_failure_lookback_reaches_into_the_rotated_file(tmp_path: Path) -> None:
    """A delivery just before a rotation still ties to the failure after it."""
    layout, _ = init_project(tmp_path)
    config = Config(telemetry=True, telemetry_max_bytes=200)
    recall(layout, config)
    assert rotated_path(layout).exists()
    assert record_failure(
        layout, config, event="PostToolUseFailure", key="src/app.py", session="s1"
    )


def test_unreadable_lines_are_counted_not_fatal(tmp_path: Path) -> None:
    """A torn or foreign line is skipped and counted."""
    layout, _ = init_project(tmp_path)
    recall(layout)
    with log_path(layout).open("a") as handle:
        handle.write('{"kind": "recall"}\nnot json\n')
    recall(layout, key=PROMPT_KEY, event="UserPromptSubmit")
    log = read_log(layout)
    assert (len(log.recalls), log.skipped) == (2, 2)


def test_a_write_that_cannot_happen_returns_false(tmp_path: Path) -> None:
    """local/ being a file makes the write fail quietly: False, no exception."""
    layout = make_project(tmp_path)
    layout.local_dir.rmdir()
    layout.local_dir.write_text("not a folder")
    assert recall(layout) is False
    assert not record_failure(layout, ON, event="PostToolUseFailure", key="x", session="s1")


def test_importing_telemetry_stays_light() -> None:
    """The hook's telemetry import pulls in no CLI, BM25, numpy, pathspec or detector."""
    code = (
        "import sys, lessons_core.telemetry.log\n"
        "heavy = {'click', 'rank_bm25', 'numpy', 'pathspec', 'detect_secrets', 're2'}\n"
        "print(sorted(heavy & set(sys.modules)))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout
    assert out.strip() == "[]"
