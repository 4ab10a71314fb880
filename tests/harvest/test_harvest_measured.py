"""Harvest measured: recall and precision on transcripts the real Claude Code and Codex CLIs
recorded (tests/fixtures/harvest, re-recorded by tests/e2e/harvest_recording.py), and
linear time."""

from __future__ import annotations

import json
import time
from pathlib import Path

from bench.transcripts import write_transcript
from lessons_cli.transcript_actions import per_transcript
from lessons_core.harvest.candidates import harvest
from lessons_core.harvest.scoring import read_labels
from lessons_core.store.layout import Layout
from tests.conftest import run, save_lesson

LABELS = Path(__file__).resolve().parents[1] / "fixtures" / "harvest" / "labels.json"
RECALL_FLOOR = 0.9
PRECISION_FLOOR = 0.95


def test_recall_and_precision_on_recorded_sessions_hold_their_floor(repo: Layout) -> None:
    """`lessons eval --harvest` over the labelled fixtures: every transcript passes, the
    request that says "instead" ("Good. Next, keep the entries in a dict instead of a
    list.") included."""
    out = run("eval", "--harvest", str(LABELS), "--json")
    data = json.loads(out.stdout)
    assert data["recall"] >= RECALL_FLOOR
    assert data["precision"] >= PRECISION_FLOOR
    assert data["transcripts"] == len(read_labels(LABELS)) >= 10
    assert [r["transcript"] for r in data["results"] if not r["passed"]] == []
    assert out.exit_code == 0
    assert all(data["by_kind"][kind]["expected"] for kind in data["by_kind"])


def test_the_eval_report_reads_like_lessons_eval(repo: Layout) -> None:
    """One summary line with recall and precision, a line per kind, and no failure."""
    lines = run("eval", "--harvest", str(LABELS)).stdout.splitlines()
    assert lines[0] == (
        "22/22 transcripts passed; recall 1.000, precision 1.000 (12 of 12 expected found, "
        "12 found)"
    )
    assert "  correction   4/4 expected, 4 found" in lines
    assert not any(line.startswith("FAIL ") for line in lines)


def test_recorded_candidates_name_the_lesson_that_covers_them(repo: Layout) -> None:
    """The sample repo's release lesson covers the gate the agent ignored; the secret the
    user typed in a correction is masked."""
    save_lesson(repo, "release-bump", "Bump VERSION first.", commands=(r"scripts/release\.sh",))
    out = run("harvest", *sorted(str(p) for p in LABELS.parent.glob("*.jsonl")), "--json")
    found = json.loads(out.stdout)["candidates"]
    gates = [c for c in found if c["kind"] == "gate-ignored"]
    assert [(c["subject"], c["covered_by"]) for c in gates] == [
        ("bash scripts/release.sh", ["release-bump"])
    ] * 2  # Claude Code's session and Codex's
    # The interpreter's script names the action, never the bare interpreter.
    assert [c["trigger"]["value"] for c in gates] == [r"^bash scripts/release\.sh"] * 2
    assert all(not c["covered_by"] for c in found if c["kind"] != "gate-ignored")
    assert "hunter2" not in out.stdout
    assert "password=[secret]" in out.stdout


def test_recorded_fixes_by_a_changed_command_name_the_command_that_worked(
    repo: Layout,
) -> None:
    """In the real clients' sessions: `make deploy-prod` (no such target) then `make
    deploy ENV=prod`, in Claude Code and Codex, and `mycheck` (not found) then `python3 -m
    mycheck`: each candidate is the failed command, with the rule drafted from the fix."""
    names = ("fail_fix_other_target", "codex_fail_fix_other_target", "fail_fix_module_runner")
    paths = [str(LABELS.parent / f"{name}.jsonl") for name in names]
    found = json.loads(run("harvest", *paths, "--json").stdout)["candidates"]
    assert [(c["subject"], c["evidence"], c["fix"]) for c in found] == [
        ("make deploy-prod", "exit 2: No rule to make target", "make deploy ENV=prod"),
        ("make deploy-prod", "exit 2: No rule to make target", "make deploy ENV=prod"),
        ("mycheck", "exit 127: command not found", "python3 -m mycheck"),
    ]
    assert "\"Run 'python3 -m mycheck', not 'mycheck'.\"" in found[2]["add"]
    assert found[2]["trigger"] == {"option": "--trigger-cmd", "value": "^mycheck"}


def test_recorded_ordinary_loops_and_edit_slips_are_no_candidates(repo: Layout) -> None:
    """The test failing until the code is edited, a target the agent wrote itself, an
    edit or patch whose old text was not there: nothing, in either client's session. A
    missing module then the same command passing is a candidate."""
    names = (
        "test_edit_loop",
        "fail_fix_command",
        "fail_fix_after_other_error",
        "fail_fix_edit",
        "codex_fail_fix_command",
        "codex_fail_fix_patch",
        "fail_fix_missing_module",
    )
    paths = [str(LABELS.parent / f"{name}.jsonl") for name in names]
    found = json.loads(run("harvest", *paths, "--json").stdout)["candidates"]
    assert [(c["transcript"], c["subject"], c["evidence"]) for c in found] == [
        ("fail_fix_missing_module.jsonl", "python3 tools/gen.py", "exit 1: ModuleNotFoundError")
    ]


def test_time_grows_linearly_with_the_transcript(repo: Layout, tmp_path: Path) -> None:
    """Four times the transcript takes about four times the CPU time (quadratic: 16)."""
    times = []
    for megabytes in (4.0, 16.0):
        path = tmp_path / f"{megabytes}.jsonl"
        write_transcript(path, megabytes, str(repo.root))
        started = time.process_time()
        result = harvest(repo, [path], per_transcript(repo))
        times.append(time.process_time() - started)
        assert result.candidates
    assert times[1] / times[0] < 4 * 1.6
