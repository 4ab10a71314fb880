"""`lessons doctor`: each way a wired hook would silently not run is named, with its fix."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest

from lessons_cli.harnesses.codex_trust import hook_hashes
from lessons_core import __version__
from tests.conftest import harness_env, make_repo, run, wired_here


@pytest.fixture
def wired(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A repo wired for Claude Code and Gemini CLI, lessons on PATH, a temp home."""
    return wired_here(tmp_path, monkeypatch, "--claude-code", "--gemini")


def _doctor() -> tuple[int, dict[str, Any]]:
    result = run("doctor", "--json")
    return result.exit_code, json.loads(result.stdout)


def _status(report: dict[str, Any], subject: str) -> list[str]:
    return [check["status"] for check in report["checks"] if check["subject"] == subject]


def _trust(home: Path, rules: dict[str, str]) -> None:
    """trustedFolders.json as Gemini CLI writes it (JSON.stringify(config, null, 2))."""
    (home / ".gemini").mkdir(parents=True, exist_ok=True)
    (home / ".gemini" / "trustedFolders.json").write_text(json.dumps(rules, indent=2))


def test_a_healthy_repo_passes(wired: Path, tmp_path: Path) -> None:
    """Everything found and trusted: exit 0, every check ok, the install named."""
    _trust(tmp_path / "home", {str(wired): "TRUST_FOLDER"})
    code, report = _doctor()
    assert code == 0
    assert report["ok"] is True
    assert {check["status"] for check in report["checks"]} == {"ok"}
    (launch,) = [c["detail"] for c in report["checks"] if c["subject"] == "launcher"]
    assert f"runs {__version__} at " in launch


def test_text_output_names_each_problem_and_its_fix(wired: Path) -> None:
    """People read one line a check, and a fix line under each problem."""
    result = run("doctor")
    assert result.exit_code == 1
    assert "FAIL  gemini" in result.stdout
    assert "fix: trust the folder" in result.stdout


def test_no_install_found_fails_the_launcher(wired: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """With lessons nowhere the launcher looks, the hooks would be silent: exit 1."""
    monkeypatch.setenv("PATH", "/usr/bin:/bin")
    (wired / ".lessons" / "local" / "launch").unlink(missing_ok=True)
    code, report = _doctor()
    assert code == 1
    assert _status(report, "launcher") == ["fail"]


def test_claude_codes_disable_all_hooks_is_found(wired: Path, tmp_path: Path) -> None:
    """disableAllHooks in the user's settings turns every hook off: a failure with the fix."""
    _trust(tmp_path / "home", {str(wired): "TRUST_FOLDER"})
    user = tmp_path / "home" / ".claude" / "settings.json"
    user.parent.mkdir(parents=True)
    user.write_text('{"disableAllHooks": true}')
    code, report = _doctor()
    assert code == 1
    (failed,) = [c for c in report["checks"] if c["status"] == "fail"]
    assert failed["subject"] == "claude-code"
    assert str(user) in failed["fix"]


@pytest.mark.parametrize(
    ("rules", "trusted"),
    [
        ({}, False),
        ({"{root}": "TRUST_FOLDER"}, True),
        ("{parent}", True),
        ({"{root}": "DO_NOT_TRUST"}, False),
    ],
)
def test_gemini_folder_trust_follows_the_clients_rules(
    wired: Path, tmp_path: Path, rules: Any, trusted: bool
) -> None:
    """The longest matching rule decides; TRUST_PARENT on a sibling covers its parent."""
    if rules == "{parent}":
        rules = {str(wired.parent / "sibling"): "TRUST_PARENT"}
    else:
        rules = {key.format(root=wired): value for key, value in rules.items()}
    _trust(tmp_path / "home", rules)
    code, report = _doctor()
    assert _status(report, "gemini")[-1] == ("ok" if trusted else "fail")
    assert code == (0 if trusted else 1)


def test_gemini_trust_from_the_environment(wired: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """GEMINI_CLI_TRUST_WORKSPACE=true trusts every folder, as the client reads it."""
    monkeypatch.setenv("GEMINI_CLI_TRUST_WORKSPACE", "true")
    code, report = _doctor()
    assert code == 0
    gemini = [c["detail"] for c in report["checks"] if c["subject"] == "gemini"]
    assert any("GEMINI_CLI_TRUST_WORKSPACE=true" in detail for detail in gemini)


def test_gemini_hooks_turned_off_in_settings(wired: Path, tmp_path: Path) -> None:
    """hooksConfig.enabled false, or "lessons" in hooksConfig.disabled, is a failure."""
    _trust(tmp_path / "home", {str(wired): "TRUST_FOLDER"})
    settings = tmp_path / "home" / ".gemini" / "settings.json"
    settings.write_text('{"hooksConfig": {"disabled": ["lessons"]}}')
    code, report = _doctor()
    assert code == 1
    assert "fail" in _status(report, "gemini")


def test_an_interpreter_path_from_another_machine_fails(wired: Path, tmp_path: Path) -> None:
    """A hook command naming an interpreter that is not here fails on every call."""
    _trust(tmp_path / "home", {str(wired): "TRUST_FOLDER"})
    settings = wired / ".claude" / "settings.json"
    text = settings.read_text().replace(
        'sh \\"$CLAUDE_PROJECT_DIR/.lessons/run\\" hook claude-code || true',
        "/home/someone/.venv/bin/python -I -m lessons_cli hook claude-code",
    )
    settings.write_text(text)
    code, report = _doctor()
    assert code == 1
    (failed,) = [c for c in report["checks"] if c["status"] == "fail"]
    assert "does not exist here" in failed["detail"]
    assert failed["fix"] == "lessons init --claude-code"


def test_unparsable_settings_fail(wired: Path, tmp_path: Path) -> None:
    """A settings file the harness cannot parse runs no hook."""
    (wired / ".claude" / "settings.json").write_text("{broken")
    code, report = _doctor()
    assert code == 1
    (failed,) = [c for c in report["checks"] if c["subject"] == "claude-code"]
    assert failed["status"] == "fail"
    assert "not valid JSON" in failed["detail"]


def test_a_broken_store_fails(wired: Path, tmp_path: Path) -> None:
    """A lesson file that does not parse is an error of lessons validate: exit 1."""
    _trust(tmp_path / "home", {str(wired): "TRUST_FOLDER"})
    (wired / ".lessons" / "lessons" / "bad.json").write_text("{")
    code, report = _doctor()
    assert code == 1
    assert _status(report, "store") == ["fail"]


def test_nothing_wired_is_a_warning(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A store without any harness: exit 0, and the init line that wires one."""
    root = make_repo(tmp_path / "repo", {"a.py": "x\n"})
    monkeypatch.chdir(root)
    for key, value in harness_env(root).items():
        monkeypatch.setenv(key, value)
    assert run("init").exit_code == 0
    code, report = _doctor()
    assert code == 0
    assert _status(report, "harnesses") == ["warn"]


def test_codex_trust_is_read_from_its_config(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Project trust, then each hook trusted at its current hash; a changed hook is
    untrusted again. (tests/e2e/test_codex.py checks the same against the real client.)"""
    root = make_repo(tmp_path / "repo", {"a.py": "x\n"})
    monkeypatch.chdir(root)
    for key, value in harness_env(root).items():
        monkeypatch.setenv(key, value)
    monkeypatch.setenv("CODEX_HOME", str(tmp_path / "codex"))
    assert run("init", "--codex").exit_code == 0
    config = tmp_path / "codex" / "config.toml"
    config.parent.mkdir()
    config.write_text(f'[projects."{root}"]\ntrust_level = "trusted"\n')
    code, report = _doctor()
    assert code == 1
    assert "6 of lessons' hooks are new or changed" in report["checks"][-1]["detail"]
    hooks = root / ".codex" / "hooks.json"
    with config.open("a") as handle:
        for key, value in hook_hashes(hooks).items():
            handle.write(f'\n[hooks.state."{key}"]\ntrusted_hash = "{value}"\n')
    assert _doctor()[0] == 0
    hooks.write_text(hooks.read_text().replace('"timeout": 10', '"timeout": 11'))
    code, report = _doctor()
    assert code == 1
    assert "new or changed" in report["checks"][-1]["detail"]
    config.write_text("[features]\nhooks = false\n")
    details = [check["detail"] for check in _doctor()[1]["checks"]]
    assert any("[features] hooks = false" in detail for detail in details)


def test_a_store_moved_away_from_its_wired_command_fails(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A nested store wired for Codex, then its folder renamed: the command would open a
    launcher that is not there (hidden by `|| true`); doctor has the shell expand it."""
    root = make_repo(tmp_path / "mono", {"web/a.ts": "x\n"})
    for key, value in harness_env(root).items():
        monkeypatch.setenv(key, value)
    monkeypatch.chdir(root / "web")
    assert run("init", "--here", "--codex").exit_code == 0
    monkeypatch.chdir(root)
    (root / "web").rename(root / "frontend")
    monkeypatch.chdir(root / "frontend")
    code, report = _doctor()
    assert code == 1
    (entries,) = [c for c in report["checks"] if c["subject"] == "codex" and "runs" in c["detail"]]
    assert entries["status"] == "fail"
    assert f"{root}/web/.lessons/run, which is not there" in entries["detail"]


def test_codex_in_a_linked_worktree_points_at_the_main_checkout(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Codex takes a linked worktree's main checkout as the project (its trust and its
    .codex/hooks.json); doctor says so instead of judging the worktree's own file."""
    main = make_repo(tmp_path / "main", {"a.py": "x\n"})
    subprocess.run(
        ["git", "worktree", "add", "-q", str(tmp_path / "feature")],
        cwd=main,
        check=True,
        capture_output=True,
    )
    feature = tmp_path / "feature"
    for key, value in harness_env(feature).items():
        monkeypatch.setenv(key, value)
    monkeypatch.setenv("CODEX_HOME", str(tmp_path / "codex"))
    monkeypatch.chdir(feature)
    assert run("init", "--codex").exit_code == 0
    code, report = _doctor()
    assert code == 1
    (said,) = [c for c in report["checks"] if "linked git worktree" in c["detail"]]
    assert str(main) in said["detail"]


def test_the_store_check_counts_in_words(wired: Path, tmp_path: Path) -> None:
    """One lesson, one error: singular words, never "1 errors"."""
    _trust(tmp_path / "home", {str(wired): "TRUST_FOLDER"})
    (wired / ".lessons" / "lessons" / "bad.json").write_text("{")
    _code, report = _doctor()
    (store,) = [c for c in report["checks"] if c["subject"] == "store"]
    assert store["detail"] == "0 lessons; lessons validate: 1 error, 0 warnings"


def test_settings_from_an_older_init_without_the_read_tools_warn(
    wired: Path, tmp_path: Path
) -> None:
    """Entries an older `lessons init` wrote match the edit tools only: doctor names the
    read tools they miss and the fix (init again), and the fix clears it."""
    _trust(tmp_path / "home", {str(wired): "TRUST_FOLDER"})
    claude = wired / ".claude" / "settings.json"
    claude.write_text(claude.read_text().replace('|Bash|Read"', '|Bash"'))
    gemini = wired / ".gemini" / "settings.json"
    gemini.write_text(gemini.read_text().replace("|read_file|read_many_files)$", ")$"))
    code, report = _doctor()
    assert code == 0  # the hooks still run: a warning, not a failure
    warned = {c["subject"]: c for c in report["checks"] if c["status"] == "warn"}
    assert set(warned) == {"claude-code", "gemini"}
    assert "do not hear Read," in warned["claude-code"]["detail"]
    assert "read_file, read_many_files" in warned["gemini"]["detail"]
    assert warned["claude-code"]["fix"] == "lessons init --claude-code"
    run("init", "--claude-code", "--gemini")
    assert {c["status"] for c in _doctor()[1]["checks"]} == {"ok"}


def test_a_wired_file_git_ignores_is_named_with_the_fix(wired: Path) -> None:
    """`.claude/*` in .gitignore: the hooks would stay on this machine; doctor warns
    with the rule that ignores the file and the command that commits it anyway."""
    (wired / ".gitignore").write_text(".claude/*\n")
    _code, report = _doctor()
    (check,) = [c for c in report["checks"] if c["subject"] == "commit"]
    assert check["status"] == "warn"
    assert check["detail"].startswith(".claude/settings.json is ignored by git (.gitignore:1:")
    assert check["fix"].startswith("git add -f -- '.claude/settings.json'")
    subprocess.run(["git", "add", "-f", "--", ".claude/settings.json"], cwd=wired, check=True)
    _code, report = _doctor()
    assert _status(report, "commit") == []  # tracked now: no ignore rule applies
