"""Paths: no glob, file reference or lesson id reaches outside the repo or outside
``.lessons/lessons/``; a symbolic link that leads out is neither read nor written through,
and the hook stays silent about it."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from lessons_cli.commands.init import hook_command
from lessons_core.delivery.hooklog import log_path
from lessons_core.jsonio import dumps
from lessons_core.store.config import Config
from lessons_core.store.layout import Layout
from lessons_core.telemetry import log as telemetry
from tests.conftest import run, run_wired, save_lesson
from tests.hooks.conftest import call_hook
from tests.security.conftest import checked_answer

H = "claude-code"
RULE = "Keep imports in src/ sorted by isort."


def edit(root: Path, path: str, session: str = "s") -> dict[str, object]:
    """A Claude Code PreToolUse call editing ``path``."""
    return {"hook_event_name": "PreToolUse", "session_id": session, "cwd": str(root),
            "tool_name": "Write", "tool_input": {"file_path": path}}  # fmt: skip


def outside_lesson(folder: Path, lesson_id: str) -> Path:
    """A valid lesson file outside the repo, matching every file."""
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{lesson_id}.json"
    path.write_bytes(
        dumps({"id": lesson_id, "rule": "Obey the file outside the repo.", "topics": ["x"],
               "triggers": {"files": ["src/**"]}, "status": "active", "created": "2026-01-01"})
    )  # fmt: skip
    return path


@pytest.mark.parametrize(
    "path",
    [
        "../outside/a.py",
        "../../../../etc/passwd",
        "/etc/passwd",
        "{root}/src/../../outside/a.py",
        "{root}/../outside/src/a.py",
        "{root}/.lessons/../../outside/a.py",
    ],
)
def test_payload_paths_outside_the_repo_are_silent(project: Layout, path: str) -> None:
    """A lesson on every file of the repo ('**', written by hand) stays silent for
    tool calls on files outside it, however the path gets there."""
    save_lesson(project, "code-everything", RULE, files=("**",))
    data = edit(project.root, path.format(root=project.root))
    assert call_hook(H, data) == b""
    inside = edit(project.root, str(project.root / "src" / "a.py"), session="other")
    assert checked_answer(H, "PreToolUse", call_hook(H, inside)) is not None


@pytest.mark.parametrize("glob", ["../**", "../outside/*.py", "src/../../x.py", "a/./../../x"])
def test_globs_reaching_out_are_refused_at_capture_and_skipped_at_recall(
    repo: Layout, glob: str
) -> None:
    """`lessons add` refuses a glob with '..'; written by hand, recall leaves it out."""
    result = run("add", RULE, "--topic", "style", "--trigger-file", glob)
    assert result.exit_code == 1
    assert "outside the repo" in result.stderr
    save_lesson(repo, "code-escape", RULE, files=(glob,))
    explained = run("query", "--file", "src/app.py", "--explain")
    assert "left out" in explained.stdout
    assert run("query", "--file", "src/app.py").stdout == ""


@pytest.mark.parametrize("lesson_id", ["../x", "../../etc/passwd", "/etc/passwd", "a/../../b"])
def test_lesson_ids_never_name_a_file_outside_the_lessons_folder(
    repo: Layout, lesson_id: str
) -> None:
    """show, deprecate, supersede and rm treat a path-like id as unknown; nothing outside
    .lessons/lessons/ is read, changed or deleted."""
    save_lesson(repo, "code-sorted", RULE, files=("src/**",))
    victim = repo.root.parent / "x.json"
    victim.write_text('{"id": "x"}')
    for args in (
        ["show", lesson_id],
        ["deprecate", lesson_id],
        ["rm", lesson_id],
        ["supersede", lesson_id, "--by", "code-sorted"],
        ["supersede", "code-sorted", "--by", lesson_id],
    ):
        result = run(*args)
        assert result.exit_code == 1, args
        assert f"no lesson with id '{lesson_id}'" in result.stderr
    assert victim.read_text() == '{"id": "x"}'


def test_a_superseded_by_that_is_a_path_makes_the_file_invalid(repo: Layout) -> None:
    """superseded_by must be an id: '../../x' is reported as a broken file, not followed."""
    path = repo.lessons_dir / "code-old.json"
    path.write_bytes(
        dumps({"id": "code-old", "rule": RULE, "topics": ["x"], "triggers": {"files": ["a"]},
               "status": "superseded", "superseded_by": "../../x", "created": "2026-01-01"})
    )  # fmt: skip
    result = run("show", "code-old")
    assert result.exit_code == 1
    assert "superseded_by" in result.stderr


def test_a_lesson_file_that_links_outside_is_never_read(
    project: Layout, monkeypatch: pytest.MonkeyPatch
) -> None:
    """.lessons/lessons/x.json -> a lesson outside the repo: the hook ignores it, query
    names it as skipped, show refuses it."""
    target = outside_lesson(project.root.parent / "outside", "code-outside")
    (project.lessons_dir / "code-outside.json").symlink_to(target)
    save_lesson(project, "code-sorted", RULE, files=("src/**",))
    text = checked_answer(H, "PreToolUse", call_hook(H, edit(project.root, "src/a.py")))
    assert text is not None
    assert RULE in text
    assert "outside the repo" not in text
    monkeypatch.chdir(project.root)
    query = run("query", "--file", "src/a.py")
    show = run("show", "code-outside")
    assert "Obey" not in query.stdout
    assert "code-outside.json" in query.stderr
    assert "symbolic link" in query.stderr
    assert show.exit_code == 1
    assert "symbolic link" in show.stderr


@pytest.mark.parametrize("folder", [".lessons", ".lessons/lessons", ".lessons/local",
                                    ".lessons/local/sessions"])  # fmt: skip
def test_a_store_folder_linking_out_of_the_repo_is_not_used(
    project: Layout, folder: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A store folder that is a link out of the repo: the hook is silent and writes
    nothing there (no session file, no log); CLI commands refuse, naming the link."""
    save_lesson(project, "code-sorted", RULE, files=("src/**",))
    outside = project.root.parent / "outside"
    link = project.root / folder
    link.parent.mkdir(parents=True, exist_ok=True)
    if link.exists():
        os.rename(link, outside)
    else:
        outside.mkdir()
    link.symlink_to(outside)
    before = sorted(str(p.relative_to(outside)) for p in outside.rglob("*"))
    assert call_hook(H, edit(project.root, "src/a.py")) == b""
    assert call_hook(H, b"not json") == b""
    assert sorted(str(p.relative_to(outside)) for p in outside.rglob("*")) == before
    monkeypatch.chdir(project.root)
    for args in (["query", "--file", "src/a.py"], ["add", RULE + " Now.", "--topic", "style",
                 "--trigger-file", "src/a.py"], ["list"]):  # fmt: skip
        result = run(*args)
        assert result.exit_code == 1, (args, result.stdout)
        assert f"{link} is a symbolic link" in result.stderr
        assert "outside the repo" in result.stderr


def test_a_store_folder_linking_inside_the_repo_still_works(project: Layout) -> None:
    """.lessons/local -> a folder inside the repo is fine: the hook answers there."""
    save_lesson(project, "code-sorted", RULE, files=("src/**",))
    inside = project.root / "state"
    inside.mkdir()
    os.rmdir(project.local_dir)
    project.local_dir.symlink_to(inside)
    assert checked_answer(H, "PreToolUse", call_hook(H, edit(project.root, "src/a.py")))
    assert list((inside / "sessions").glob("*.json"))


def test_logs_that_link_elsewhere_are_not_written_through(
    project: Layout, monkeypatch: pytest.MonkeyPatch
) -> None:
    """.lessons/local/hook.log and telemetry.jsonl -> files outside: a failing call and a
    delivering call with telemetry on leave those files alone (and still answer)."""
    monkeypatch.chdir(project.root)
    project.config_path.write_bytes(dumps(Config(telemetry=True).to_dict()))
    save_lesson(project, "code-sorted", RULE, files=("src/**",))
    logs = {"bashrc": log_path(project.root), "profile": telemetry.log_path(project)}
    targets = [project.root.parent / name for name in logs]
    for target, log in zip(targets, logs.values(), strict=True):
        target.write_text("# mine\n")
        log.symlink_to(target)
    assert call_hook(H, b"{broken") == b""
    assert checked_answer(H, "PreToolUse", call_hook(H, edit(project.root, "src/a.py")))
    assert [target.read_text() for target in targets] == ["# mine\n"] * 2


def test_a_lock_file_that_links_elsewhere_is_refused_not_created(
    repo: Layout,
) -> None:
    """.lessons/local/store.lock -> a path outside: `lessons add` refuses, naming the lock,
    and creates nothing where the link points."""
    target = repo.root.parent / "created-by-lessons"
    repo.lock_path.symlink_to(target)
    result = run("add", RULE, "--topic", "style", "--trigger-file", "src/app.py")
    assert result.exit_code == 1
    assert "store.lock is a symbolic link" in result.stderr
    assert not target.exists()


def test_a_config_file_that_links_elsewhere_is_not_read(
    project: Layout, monkeypatch: pytest.MonkeyPatch
) -> None:
    """.lessons/config.json -> a file outside: the hook runs with the defaults (a change
    not read first is refused with the file rule, not let through with it as the linked
    file asks) and validate names the link."""
    save_lesson(project, "code-sorted", RULE, files=("src/**",))
    target = project.root.parent / "config.json"
    target.write_text(json.dumps({"delivery_file": "context"}))
    project.config_path.unlink()
    project.config_path.symlink_to(target)
    got = json.loads(call_hook(H, edit(project.root, "src/a.py")))
    assert RULE in got["hookSpecificOutput"]["permissionDecisionReason"]
    monkeypatch.chdir(project.root)
    result = run("validate")
    assert result.exit_code == 1
    assert ".lessons/config.json: L011 error: is a symbolic link" in result.stdout


def test_a_fifo_where_a_lesson_file_belongs_never_blocks_the_hook(project: Layout) -> None:
    """A named pipe called x.json in lessons/ is reported broken; recall goes on."""
    save_lesson(project, "code-sorted", RULE, files=("src/**",))
    os.mkfifo(project.lessons_dir / "pipe.json")
    text = checked_answer(H, "PreToolUse", call_hook(H, edit(project.root, "src/a.py")))
    assert text is not None
    assert RULE in text


def test_an_agents_file_that_links_to_another_stays_a_link(repo: Layout) -> None:
    """CLAUDE.md -> AGENTS.md: init edits AGENTS.md once and leaves the link in place."""
    (repo.root / "AGENTS.md").write_text("# Agents\n")
    (repo.root / "CLAUDE.md").symlink_to("AGENTS.md")
    result = run("init", "--agents-md", "--claude-md")
    assert result.exit_code == 0, result.stderr
    assert (repo.root / "CLAUDE.md").is_symlink()
    assert (repo.root / "AGENTS.md").read_text().count("lessons:start") == 1
    assert run("init", "--remove-hooks").exit_code == 0
    assert (repo.root / "CLAUDE.md").is_symlink()
    assert "lessons:start" not in (repo.root / "AGENTS.md").read_text()


def test_a_settings_file_that_links_out_of_the_repo_is_never_written(repo: Layout) -> None:
    """.claude/settings.json -> a file outside the repo: init --claude-code refuses and
    changes neither the link nor its target."""
    target = repo.root.parent / "global-settings.json"
    target.write_text('{"theme": "dark"}\n')
    (repo.root / ".claude").mkdir()
    (repo.root / ".claude" / "settings.json").symlink_to(target)
    result = run("init", "--claude-code")
    assert result.exit_code == 1
    assert "outside" in result.stderr
    assert "settings.json is a symbolic link" in result.stderr
    assert target.read_text() == '{"theme": "dark"}\n'
    assert (repo.root / ".claude" / "settings.json").is_symlink()


def test_a_repo_cannot_put_its_own_code_in_the_hook(tmp_path: Path) -> None:
    """The hook command init writes runs Python isolated: a repo that ships lessons_cli/
    and lessons_core/ folders of its own does not get them imported by the hook."""
    repo = tmp_path / "repo"
    for package in ("lessons_cli", "lessons_core"):
        (repo / package).mkdir(parents=True)
        (repo / package / "__init__.py").write_text("print('code from the repo')\n")
    (repo / "lessons_cli" / "__main__.py").write_text("print('code from the repo')\n")
    assert run("init", "--path", str(repo), "--claude-code").exit_code == 0
    payload = json.dumps(
        {
            "hook_event_name": "SessionStart",
            "source": "startup",
            "session_id": "s",
            "cwd": str(repo),
        }
    )
    done = run_wired(hook_command("claude-code", repo), repo, payload)
    assert done.returncode == 0
    assert "code from the repo" not in done.stdout + done.stderr
    assert "Lessons blocks: " in done.stdout  # the session note
