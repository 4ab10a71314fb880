"""`lessons init` ends with what to do next: the `git add` line for exactly the files it
wrote or changed (quoted, relative to where it ran), then `lessons doctor`."""

from __future__ import annotations

import stat
import subprocess
from pathlib import Path

import pytest

from lessons_cli.harnesses import wirings
from tests.conftest import git, init_in

STORE = "'.lessons/config.json' '.lessons/.gitignore' '.lessons/run'"
HARNESSES = {name: spec.settings for name, spec in wirings().items()}


def _staged(root: Path, line: str, cwd: Path) -> set[str]:
    """Run the printed `git add` line as a user would, in ``cwd``; what git then has staged."""
    subprocess.run(["sh", "-c", line], cwd=cwd, check=True)
    status = git(root, "status", "--porcelain", "--untracked-files=all").splitlines()
    return {entry[3:] for entry in status if entry.startswith("A ")}


@pytest.mark.parametrize("name", sorted(HARNESSES))
def test_every_harness_ends_with_the_git_add_line_and_doctor(
    plain_repo: Path, monkeypatch: pytest.MonkeyPatch, name: str
) -> None:
    (plain_repo / "notes.txt").write_text("the user's own, not for this commit\n")
    code, out, _ = init_in(plain_repo, f"--{name}", monkeypatch=monkeypatch)
    assert code == 0
    *_, heading, add, doctor = out.splitlines()
    assert heading == "next:"
    assert add == f"  git add -- {STORE} '{HARNESSES[name]}'"
    assert doctor.endswith(" doctor")
    staged = _staged(plain_repo, add, plain_repo)
    assert staged == {
        ".lessons/config.json",
        ".lessons/.gitignore",
        ".lessons/run",
        HARNESSES[name],
    }


def test_a_rerun_that_writes_nothing_names_only_doctor(
    plain_repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    init_in(plain_repo, "--claude-code", monkeypatch=monkeypatch)
    (plain_repo / ".lessons" / "lessons" / "mine.json").write_text("{}")  # the user's edit
    code, out, _ = init_in(plain_repo, "--claude-code", monkeypatch=monkeypatch)
    assert code == 0
    assert "git add" not in out
    assert out.splitlines()[-2:-1] == ["next:"]


def test_from_a_subfolder_the_paths_are_relative_to_it_and_a_link_is_added_where_it_leads(
    plain_repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (plain_repo / "AGENTS.md").write_text("# Agents\n")
    (plain_repo / "CLAUDE.md").symlink_to("AGENTS.md")
    git(plain_repo, "add", "-A")
    git(plain_repo, "commit", "-qm", "docs")
    deep = plain_repo / "src" / "deep"
    deep.mkdir(parents=True)
    code, out, _ = init_in(deep, "--claude-code", "--claude-md", "--mcp", monkeypatch=monkeypatch)
    assert code == 0
    add = out.splitlines()[-2]
    assert add == (
        "  git add -- '../../.lessons/config.json' '../../.lessons/.gitignore' "
        "'../../.lessons/run' '../../.claude/settings.json' '../../.mcp.json' "
        "'../../AGENTS.md'"
    )
    staged = _staged(plain_repo, add, deep)
    assert staged == {
        ".lessons/config.json",
        ".lessons/.gitignore",
        ".lessons/run",
        ".claude/settings.json",
        ".mcp.json",
    }  # AGENTS.md was tracked: staged as modified
    assert "M  AGENTS.md" in git(plain_repo, "status", "--porcelain")


def test_doctor_is_named_as_this_shell_can_run_it(
    plain_repo: Path, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """`lessons doctor` where `lessons` is on the PATH, else through the launcher."""
    monkeypatch.setenv("PATH", "/usr/bin:/bin")
    _, out, _ = init_in(plain_repo, "--claude-code", monkeypatch=monkeypatch)
    assert out.splitlines()[-1] == f"  sh {plain_repo}/.lessons/run doctor"
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "lessons").write_text("#!/bin/sh\n")
    (bin_dir / "lessons").chmod(stat.S_IRWXU)
    monkeypatch.setenv("PATH", f"{bin_dir}:/usr/bin:/bin")
    _, out, _ = init_in(plain_repo, "--cursor", monkeypatch=monkeypatch)
    assert out.splitlines()[-1] == "  lessons doctor"


def test_outside_git_there_is_nothing_to_add(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = tmp_path / "plain"
    folder.mkdir()
    code, out, _ = init_in(folder, "--here", "--claude-code", monkeypatch=monkeypatch)
    assert code == 0
    assert "git add" not in out
    assert out.splitlines()[-2] == "next:"


@pytest.mark.parametrize("name", sorted(HARNESSES))
def test_an_ignored_harness_file_gets_a_forced_add_line_and_a_note_naming_the_rule(
    plain_repo: Path, monkeypatch: pytest.MonkeyPatch, name: str
) -> None:
    """A repo that ignores the harness file (`.codex/*`, `.mcp.json`): a plain `git add`
    of it fails, so init prints it on a `git add -f` line and says which rule ignores it;
    running both printed lines stages every file."""
    settings = HARNESSES[name]
    (plain_repo / ".gitignore").write_text(f"# local agent state\n{settings}\n.mcp.json\n")
    code, out, err = init_in(plain_repo, f"--{name}", "--mcp", monkeypatch=monkeypatch)
    assert code == 0
    lines = out.splitlines()
    at = lines.index("next:")
    add, forced = lines[at + 1], lines[at + 2]
    assert add.startswith(f"  git add -- {STORE}")
    assert forced.startswith(f"  git add -f -- '{settings}'")
    assert f"{settings} is ignored by git (.gitignore:2: {settings})" in err
    assert f"add the line '!{settings}' after '{settings}' in .gitignore" in err
    staged = _staged(plain_repo, f"{add} && {forced}", plain_repo)
    assert {".lessons/run", settings} <= staged


def test_a_file_under_an_ignored_folder_is_only_offered_the_forced_add(
    plain_repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """git cannot re-include a file below an ignored folder with a `!` line, so the note
    offers only `git add -f`, which works."""
    (plain_repo / ".gitignore").write_text(".codex/\n")
    code, out, err = init_in(plain_repo, "--codex", monkeypatch=monkeypatch)
    assert code == 0
    assert "  git add -f -- '.codex/hooks.json'" in out.splitlines()
    assert "(.gitignore:1: .codex/)" in err
    assert "'!.codex/hooks.json'" not in err
    staged = _staged(plain_repo, "git add -f -- '.codex/hooks.json'", plain_repo)
    assert ".codex/hooks.json" in staged
