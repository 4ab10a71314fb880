"""A store never leaks out of its repo: where init creates one, and where recall looks."""

from __future__ import annotations

from pathlib import Path

import pytest

from lessons_core.store.layout import find_root
from lessons_core.store.project import init_project
from tests.conftest import make_repo, run


def test_init_outside_git_is_refused_with_the_fix(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Outside a git work tree init creates nothing and says to use a repo or --here."""
    folder = tmp_path / "notes"
    folder.mkdir()
    monkeypatch.chdir(folder)
    result = run("init")
    assert result.exit_code == 1
    assert "not inside a git work tree" in result.stderr
    assert "--here" in result.stderr
    assert not (folder / ".lessons").exists()


def test_init_here_creates_the_store_outside_git(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """--here is the explicit way to keep lessons in a folder that is not a repo."""
    folder = tmp_path / "notes"
    folder.mkdir()
    monkeypatch.chdir(folder)
    assert run("init", "--here").exit_code == 0
    assert (folder / ".lessons" / "config.json").is_file()
    assert find_root(folder) == str(folder)


def test_init_in_the_home_folder_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Even a home folder that is a git repo, and even with --here, gets no store."""
    home = make_repo(tmp_path / "home", {"notes.txt": "x\n"})
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.chdir(home)
    for flags in ((), ("--here",)):
        result = run("init", *flags)
        assert result.exit_code == 1
        assert "home folder" in result.stderr
    assert not (home / ".lessons").exists()


def test_init_in_a_subfolder_creates_the_store_at_the_git_top(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Run from src/, init puts .lessons/ at the repo root."""
    root = make_repo(tmp_path / "repo", {"src/a.py": "x = 1\n"})
    monkeypatch.chdir(root / "src")
    assert run("init").exit_code == 0
    assert (root / ".lessons").is_dir()
    assert not (root / "src" / ".lessons").exists()


def test_recall_never_uses_a_store_above_the_repository(tmp_path: Path) -> None:
    """A .lessons/ in a folder above the git top level is not this repo's store."""
    init_project(tmp_path)
    root = make_repo(tmp_path / "repo", {"src/a.py": "x = 1\n"})
    assert find_root(root / "src") is None
    assert find_root(tmp_path / "elsewhere") == str(tmp_path)


def test_a_store_in_the_home_folder_is_never_used(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """One left in $HOME by an older version serves no folder below it."""
    home = tmp_path / "home"
    init_project(home)
    (home / "scratch").mkdir()
    monkeypatch.setenv("HOME", str(home))
    assert find_root(home / "scratch") is None
    monkeypatch.chdir(home / "scratch")
    result = run("query", "--file", "a.py")
    assert result.exit_code == 1
    assert "no .lessons/ directory" in result.stderr


def test_nested_stores_of_a_monorepo_keep_working(tmp_path: Path) -> None:
    """Each package's store serves its files; the root store serves the rest."""
    root = make_repo(tmp_path / "repo", {"web/src/a.ts": "x\n", "api/main.py": "x\n"})
    init_project(root)
    init_project(root / "web")
    assert find_root(root / "web" / "src" / "a.ts") == str(root / "web")
    assert find_root(root / "api" / "main.py") == str(root)


def test_a_submodule_stops_the_walk_at_its_own_top(tmp_path: Path) -> None:
    """A ``.git`` file (submodules, worktrees) marks a work tree's top like a folder."""
    root = make_repo(tmp_path / "repo", {"a.py": "x\n"})
    init_project(root)
    sub = root / "vendor" / "lib"
    sub.mkdir(parents=True)
    (sub / ".git").write_text("gitdir: ../../.git/modules/lib\n")
    assert find_root(sub) is None


def test_a_home_folder_reached_through_a_link_is_still_home(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """$HOME may be a link to the real folder: its store is skipped all the same."""
    real = tmp_path / "realhome"
    init_project(real)
    (real / "scratch").mkdir()
    (tmp_path / "homelink").symlink_to(real)
    monkeypatch.setenv("HOME", str(tmp_path / "homelink"))
    assert find_root(real / "scratch") is None


def test_path_and_here_together_are_a_usage_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Two answers to where the store goes: exit 2, nothing created."""
    monkeypatch.chdir(tmp_path)
    result = run("init", "--path", str(tmp_path / "x"), "--here")
    assert result.exit_code == 2
    assert not (tmp_path / "x").exists()
