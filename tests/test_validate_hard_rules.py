"""Validate on rules that must hold: L150 (an enforced trigger refusing everyday work),
L350 (a lesson that failed in several sessions could be enforced or forbid), L360 (the
covered code already breaks a forbid pattern)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from lessons_core.matching.thresholds import FORBID_PLACES_SHOWN, REPEATED_FAILURE_MIN
from lessons_core.store.layout import Layout
from lessons_core.store.project import init_project
from lessons_core.validate import validate
from lessons_core.validate.findings import Finding
from tests.conftest import git
from tests.lesson_graphs import log_failure, log_recall, make_project, write_lesson


def found(layout: Layout, code: str) -> list[Finding]:
    return [f for f in validate(layout).findings if f.code == code]


# L150


def test_l150_warns_when_an_enforced_trigger_fires_on_everyday_commands(tmp_path: Path) -> None:
    layout = make_project(tmp_path)
    write_lesson(layout, "git-all", "Never rewrite history.", commands=["^git"], enforce=True)
    write_lesson(layout, "py-all", "Run scripts with uv.", commands=["^python3"], enforce=True)
    write_lesson(
        layout, "git-tests", "Test before pushing.", commands=["git (push|pull)"], enforce=True
    )
    shown = {f.lesson_id: f for f in found(layout, "L150")}
    assert set(shown) == {"git-all", "py-all", "git-tests"}
    assert all(f.severity.value == "warning" for f in shown.values())
    assert "everyday 'git' commands" in shown["git-all"].message
    assert "every such command would be refused" in shown["git-all"].message
    assert "fires on 2 of the ordinary commands ('git push origin main', 'git pull')" in (
        shown["git-tests"].message
    )
    assert "only an interpreter" in shown["py-all"].message
    assert shown["git-all"].line is not None  # points at the trigger in the file


def test_l150_quiet_for_a_precise_enforced_trigger_or_an_unenforced_broad_one(
    tmp_path: Path,
) -> None:
    layout = make_project(tmp_path)
    write_lesson(
        layout, "git-force", "Never force-push.", commands=["git push --force"], enforce=True
    )
    write_lesson(layout, "git-add", "Stage by path.", commands=["git add -A"], enforce=True)
    write_lesson(layout, "git-pp", "Test before pushing.", commands=["git (push|pull)"])
    assert found(layout, "L150") == []


# L350


def _failed_in_sessions(layout: Layout, key: str, lesson_id: str, sessions: int) -> None:
    for number in range(sessions):
        session = f"s{number}"
        log_recall(layout, key, [lesson_id], session)
        assert log_failure(layout, key, session)


def test_l350_suggests_enforce_for_a_command_lesson_that_keeps_failing(tmp_path: Path) -> None:
    layout = make_project(tmp_path, telemetry=True)
    write_lesson(layout, "db-upgrade", "Back up first.", commands=["alembic upgrade"])
    _failed_in_sessions(layout, "alembic upgrade head", "db-upgrade", REPEATED_FAILURE_MIN)
    [finding] = found(layout, "L350")
    assert finding.severity.value == "notice"
    assert finding.local
    assert f"failed anyway in {REPEATED_FAILURE_MIN} sessions" in finding.message
    assert "'alembic upgrade head'" in finding.message
    assert '"enforce": true' in finding.message
    assert '"enforce": true' in finding.fix


def test_l350_suggests_forbid_for_a_file_lesson_that_keeps_failing(tmp_path: Path) -> None:
    layout = make_project(tmp_path, telemetry=True)
    write_lesson(layout, "db-null", "Declare columns non-null.", files=["src/db/*.py"])
    _failed_in_sessions(layout, "src/db/models.py", "db-null", REPEATED_FAILURE_MIN)
    [finding] = found(layout, "L350")
    assert '"forbid"' in finding.message
    assert "lessons check" in finding.fix


def test_l350_quiet_in_fewer_sessions_or_when_already_hard(tmp_path: Path) -> None:
    layout = make_project(tmp_path, telemetry=True)
    write_lesson(layout, "db-upgrade", "Back up first.", commands=["alembic upgrade"])
    write_lesson(layout, "db-enforced", "Back up.", commands=["alembic downgrade"], enforce=True)
    write_lesson(layout, "db-null", "Non-null.", files=["src/db/*.py"], forbid="nullable=True")
    # Three failures, but all in one session: L302's case, not a pattern across sessions.
    for _ in range(REPEATED_FAILURE_MIN):
        log_recall(layout, "alembic upgrade head", ["db-upgrade"], "one")
        assert log_failure(layout, "alembic upgrade head", "one")
    _failed_in_sessions(layout, "alembic downgrade -1", "db-enforced", REPEATED_FAILURE_MIN)
    _failed_in_sessions(layout, "src/db/models.py", "db-null", REPEATED_FAILURE_MIN)
    assert found(layout, "L350") == []
    assert {f.lesson_id for f in found(layout, "L302")} == {"db-upgrade", "db-enforced", "db-null"}


# L360


def test_l360_names_the_tracked_places_that_break_a_forbid_pattern(tmp_path: Path) -> None:
    layout = make_project(tmp_path)
    root = layout.root
    (root / "src/db/models.py").write_text("a = Column(nullable=True)\nb = 1\n")
    (root / "src/db/session.py").write_text(
        "".join(f"c{i} = Column(nullable=True)\n" for i in range(FORBID_PLACES_SHOWN))
    )
    git(root, "commit", "-q", "-am", "nullable columns")
    (root / "src/db/untracked.py").write_text("x = Column(nullable=True)\n")
    write_lesson(
        layout, "db-null", "Declare columns non-null.", files=["src/db/*.py"],
        forbid=r"nullable=True",
    )  # fmt: skip
    [finding] = found(layout, "L360")
    assert finding.severity.value == "notice"
    assert not finding.local
    assert "already break its forbid pattern in 6 places" in finding.message
    assert "src/db/models.py:1 ('nullable=True'), src/db/session.py:1 (" in finding.message
    assert "and 1 more" in finding.message
    assert "untracked" not in finding.message


def test_l360_skips_files_over_the_cap_links_out_and_binaries(tmp_path: Path) -> None:
    layout = make_project(tmp_path)
    root = layout.root
    outside = tmp_path / "secret.py"
    outside.write_text("nullable=True\n")
    (root / "src/db").mkdir(exist_ok=True)
    os.symlink(outside, root / "src/db/link.py")
    (root / "src/db/blob.py").write_bytes(b"\0nullable=True\n")
    (root / "src/db/big.py").write_text("nullable=True\n" + "#" * (1 << 20))
    git(root, "add", "src/db")
    git(root, "commit", "-q", "-m", "odd files")
    write_lesson(layout, "db-null", "Non-null.", files=["src/db/*.py"], forbid=r"nullable=True")
    assert found(layout, "L360") == []


def test_l360_quiet_outside_git(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = tmp_path / "plain"
    (root / "src").mkdir(parents=True)
    (root / "src/a.py").write_text("nullable=True\n")
    layout, _ = init_project(root)
    write_lesson(layout, "db-null", "Non-null.", files=["src/*.py"], forbid=r"nullable=True")
    monkeypatch.setenv("GIT_CEILING_DIRECTORIES", str(tmp_path))
    assert found(layout, "L360") == []
