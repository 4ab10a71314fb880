"""L304 and ``lessons touch`` on real git repos: the code a lesson is about changed since."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from lessons_core.store.layout import Layout
from lessons_core.store.project import init_project
from lessons_core.validate import validate
from lessons_core.validate.findings import Finding
from tests.conftest import git, run
from tests.lesson_graphs import DEFAULT_FILES, make_project, write_lesson

LESSON = "db-columns"
RULE = "Declare every column of the models as non-null."


def drift(layout: Layout) -> list[Finding]:
    return [f for f in validate(layout).findings if f.code == "L304"]


def commit_all(root: Path, message: str) -> str:
    git(root, "add", "-A")
    git(root, "commit", "-q", "--allow-empty", "-m", message)
    return subprocess.run(
        ["git", "rev-parse", "HEAD"], cwd=root, capture_output=True, text=True, check=True
    ).stdout.strip()


def edit(root: Path, rel: str, times: int, start: int = 0) -> list[str]:
    """``times`` commits, each changing ``rel``; their hashes, oldest first."""
    shas = []
    for n in range(start, start + times):
        with (root / rel).open("a") as handle:
            handle.write(f"# change {n}\n")
        shas.append(commit_all(root, f"change {n} to {rel}"))
    return shas


def project(tmp_path: Path, files: list[str] | None = None, **config: int) -> Layout:
    layout = make_project(tmp_path, DEFAULT_FILES, **config)
    write_lesson(layout, LESSON, RULE, files=files or ["src/db/**"])
    commit_all(tmp_path, "lesson")
    return layout


def test_changed_in_several_commits_since_is_reported_with_them(tmp_path: Path) -> None:
    """Six commits change src/db after the lesson was committed: L304 names the newest
    five and counts the sixth; commits to other files and from before do not count."""
    layout = make_project(tmp_path, drift_min_commits=5)
    edit(tmp_path, "src/db/models.py", 2)  # before the lesson: not drift
    write_lesson(layout, LESSON, RULE, files=["src/db/**"])
    commit_all(tmp_path, "lesson")
    shas = edit(tmp_path, "src/db/models.py", 3) + edit(tmp_path, "src/db/session.py", 3)
    edit(tmp_path, "src/app.py", 4)  # not the lesson's files
    [finding] = drift(layout)
    assert finding.lesson_id == LESSON
    assert finding.severity.value == "notice"
    assert finding.file == ".lessons/lessons/db-columns.json"
    assert "6 commits changed" in finding.message
    newest = [sha[:10] for sha in reversed(shas)]
    assert ", ".join(newest[:5]) + " and 1 more" in finding.message
    assert f"lessons touch {LESSON}" in finding.fix
    assert not validate(layout).failed(strict=True)


def test_below_the_threshold_it_is_not_reported(tmp_path: Path) -> None:
    """Four commits against a threshold of five: quiet; the fifth makes it speak."""
    layout = project(tmp_path, drift_min_commits=5)
    edit(tmp_path, "src/db/models.py", 4)
    assert drift(layout) == []
    edit(tmp_path, "src/db/models.py", 1, start=4)
    assert len(drift(layout)) == 1


def test_a_deleted_exact_file_is_reported_at_once(tmp_path: Path) -> None:
    """The one file a trigger names is deleted: reported though one commit is under the
    threshold."""
    layout = project(tmp_path, files=["src/db/session.py"], drift_min_commits=5)
    (tmp_path / "src/db/session.py").unlink()
    sha = commit_all(tmp_path, "drop the session module")
    [finding] = drift(layout)
    assert f"'src/db/session.py' was deleted in {sha[:10]}" in finding.message


def test_a_renamed_exact_file_is_reported_with_its_new_name(tmp_path: Path) -> None:
    layout = project(tmp_path, files=["src/db/models.py"], drift_min_commits=5)
    git(tmp_path, "mv", "src/db/models.py", "src/db/tables.py")
    sha = commit_all(tmp_path, "rename models")
    [finding] = drift(layout)
    assert f"'src/db/models.py' was renamed to 'src/db/tables.py' in {sha[:10]}" in (
        finding.message
    )


def test_touch_resets_the_notice_until_the_code_moves_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`lessons touch` records HEAD in the file; drift counts from there."""
    layout = project(tmp_path, drift_min_commits=2)
    monkeypatch.chdir(tmp_path)
    edit(tmp_path, "src/db/models.py", 3)
    assert len(drift(layout)) == 1
    result = run("touch", LESSON, "--json")
    assert result.exit_code == 0, result.output
    head = subprocess.run(
        ["git", "rev-parse", "HEAD"], cwd=tmp_path, capture_output=True, text=True, check=True
    ).stdout.strip()
    [record] = json.loads(result.output)
    assert record["id"] == LESSON
    assert record["checked"]["commit"] == head
    saved = json.loads(layout.lesson_path(LESSON).read_text())
    assert saved["checked"]["commit"] == head
    commit_all(tmp_path, "re-checked")
    assert drift(layout) == []
    edit(tmp_path, "src/db/models.py", 1, start=3)
    assert drift(layout) == []
    edit(tmp_path, "src/db/models.py", 1, start=4)
    assert len(drift(layout)) == 1


def test_a_commit_reference_in_the_evidence_starts_the_count(tmp_path: Path) -> None:
    """`commit:SHA` evidence later than the lesson's file moves the start to it."""
    layout = project(tmp_path, drift_min_commits=3)
    shas = edit(tmp_path, "src/db/models.py", 4)
    assert len(drift(layout)) == 1
    write_lesson(layout, LESSON, RULE, files=["src/db/**"], evidence=[f"commit:{shas[2][:8]}"])
    commit_all(tmp_path, "evidence")
    assert drift(layout) == []


def test_touch_refuses_an_unknown_id_and_writes_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    layout = project(tmp_path)
    monkeypatch.chdir(tmp_path)
    before = layout.lesson_path(LESSON).read_bytes()
    result = run("touch", LESSON, "db-ghost")
    assert result.exit_code == 1
    assert "no lesson with id 'db-ghost'" in result.stderr
    assert layout.lesson_path(LESSON).read_bytes() == before


def test_touch_outside_git_says_why(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    layout, _ = init_project(tmp_path)
    monkeypatch.chdir(tmp_path)
    write_lesson(layout, LESSON, RULE, files=["src/db/**"])
    result = run("touch", LESSON)
    assert result.exit_code == 1
    assert "has no commit" in result.stderr


def test_outside_git_there_is_no_drift_and_no_crash(tmp_path: Path) -> None:
    layout, _ = init_project(tmp_path)
    write_lesson(layout, LESSON, RULE, files=["src/db/**"])
    assert drift(layout) == []


def test_a_shallow_clone_judges_only_the_history_it_has(tmp_path: Path) -> None:
    """The lesson's add commit is cut off: drift counts commits after its created day
    only, so today's commits (all a fresh lesson has seen) are not drift."""
    origin = tmp_path / "origin"
    layout = project(origin, drift_min_commits=2)
    write_lesson(layout, LESSON, RULE, files=["src/db/**"], created="2999-01-01")
    commit_all(origin, "lesson dated later")
    edit(origin, "src/db/models.py", 4)
    clone = tmp_path / "clone"
    subprocess.run(
        ["git", "clone", "-q", "--depth", "2", f"file://{origin}", str(clone)], check=True
    )
    assert drift(Layout(clone)) == []


def test_history_shorter_than_the_window_counts_what_there_is(tmp_path: Path) -> None:
    layout = project(tmp_path, drift_min_commits=2, drift_max_commits=1000)
    edit(tmp_path, "src/db/models.py", 2)
    assert len(drift(layout)) == 1


def test_the_window_bounds_the_walk(tmp_path: Path) -> None:
    """Only the last drift_max_commits commits are read: older changes do not count."""
    layout = project(tmp_path, drift_min_commits=2, drift_max_commits=3)
    edit(tmp_path, "src/db/models.py", 2)
    edit(tmp_path, "src/app.py", 2)
    assert drift(layout) == []


def test_a_lessons_folder_in_a_package_reads_paths_from_the_package(tmp_path: Path) -> None:
    """In a monorepo, `.lessons/` in `pkg/` has globs relative to `pkg/`: commits to
    `pkg/src/db/` count, commits to the top-level `src/db/` do not."""
    make_project(tmp_path, ["src/db/models.py", "pkg/src/db/models.py"])
    layout, _ = init_project(tmp_path / "pkg")
    layout.config_path.write_text('{"drift_min_commits": 3}')
    write_lesson(layout, LESSON, RULE, files=["src/db/**"])
    commit_all(tmp_path, "lesson in the package")
    edit(tmp_path, "src/db/models.py", 4)
    assert drift(layout) == []
    shas = edit(tmp_path, "pkg/src/db/models.py", 3)
    [finding] = drift(layout)
    assert finding.file == ".lessons/lessons/db-columns.json"
    assert all(sha[:10] in finding.message for sha in shas)


def test_validate_prints_the_notice_and_exits_0_even_when_strict(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    project(tmp_path, drift_min_commits=2)
    edit(tmp_path, "src/db/models.py", 2)
    monkeypatch.chdir(tmp_path)
    result = run("validate", "--strict")
    assert result.exit_code == 0, result.output
    assert ".lessons/lessons/db-columns.json:" in result.output
    assert " L304 notice: 2 commits changed the files its file triggers match" in result.output
    assert f"fix: re-read the rule against the code now, then 'lessons touch {LESSON}'" in (
        result.output
    )
    assert "Record that lessons were re-read" in run("touch", "--help").output
