"""Trigger judgement shared by capture and validate: one answer, two uses."""

from __future__ import annotations

from pathlib import Path

import pytest

from lessons_core.matching.commands import compile_command
from lessons_core.matching.glob_counts import FileIndex
from lessons_core.matching.globs import compile_glob
from lessons_core.matching.probes import PROBE_COMMANDS, probe_hits, probe_hits_many
from lessons_core.matching.thresholds import BROAD_GLOB_SHARE, REFUSED_GLOB_SHARE
from lessons_core.matching.trigger_checks import GLOB_BROAD, glob_problem
from tests.conftest import run
from tests.lesson_graphs import DEFAULT_FILES, make_project

GLOBS = [
    "src/**",
    "src/db/**",
    "src/db/*.py",
    "**/*.sql",
    "*.md",
    "src/*/main.py",
    "src/db/migrations/00?_*.sql",
    "docs/[ag]*.md",
    "README.md",
    "src",
    "nope/**",
]


@pytest.mark.parametrize("glob", GLOBS)
def test_file_index_agrees_with_a_full_scan(glob: str) -> None:
    """Narrowing by prefix and extension never changes what a glob matches."""
    compiled = compile_glob(glob)
    expected = tuple(sorted(p for p in DEFAULT_FILES if compiled.matches(p)))
    assert FileIndex(DEFAULT_FILES).matching(compiled) == expected


def test_file_index_knows_folders() -> None:
    """Every parent folder of a path is a folder; a file is not."""
    index = FileIndex(DEFAULT_FILES)
    assert index.is_folder("src/db/migrations")
    assert index.is_folder("src/db/")
    assert not index.is_folder("src/app.py")


@pytest.mark.parametrize("pattern", ["git", "rm", "git push", "ls|cat", "pnpm", "[a-z]", "-la$"])
def test_probe_set_agrees_with_single_patterns(pattern: str) -> None:
    """Probing all patterns through one RE2 set gives each pattern's own hits."""
    many = probe_hits_many([pattern, "cargo test"])
    assert many[pattern] == probe_hits(compile_command(pattern).matches)


def test_capture_and_validate_differ_only_in_the_share(tmp_path: Path) -> None:
    """'src/**' (7 of 12 files) is broad for validate, not for capture."""
    files = FileIndex(DEFAULT_FILES)
    validate_view = glob_problem("src/**", tmp_path, files, BROAD_GLOB_SHARE)
    capture_view = glob_problem("src/**", tmp_path, files, REFUSED_GLOB_SHARE)
    assert validate_view is not None
    assert validate_view.kind == GLOB_BROAD
    assert capture_view is None


def test_capture_still_refuses_a_directory_glob(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """lessons add refuses 'src/db' with the dir/** fix and exit 1."""
    make_project(tmp_path)
    monkeypatch.chdir(tmp_path)
    result = run(
        "add", "Quote identifiers in raw SQL.", "--topic", "db", "--trigger-file", "src/db"
    )
    assert result.exit_code == 1
    assert result.stdout == ""
    assert "names a directory" in result.stderr
    assert "'src/db/**'" in result.stderr


def test_capture_warns_on_a_glob_matching_nothing_yet(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A glob with no match is saved, with a warning on stderr."""
    make_project(tmp_path)
    monkeypatch.chdir(tmp_path)
    result = run(
        "add", "Quote identifiers in raw SQL.", "--topic", "db", "--trigger-file", "src/new/**"
    )
    assert result.exit_code == 0
    assert result.stdout.strip() == "db-quote-identifiers-raw-sql"
    assert "matches no file yet" in result.stderr


def test_capture_refuses_a_command_matching_most_probes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """'[a-z]' fires on every probe command: refused with the count."""
    make_project(tmp_path)
    monkeypatch.chdir(tmp_path)
    result = run("add", "Quote identifiers in raw SQL.", "--topic", "db", "--trigger-cmd", "[a-z]")
    assert result.exit_code == 1
    assert f"matches {len(PROBE_COMMANDS)} of {len(PROBE_COMMANDS)}" in result.stderr
