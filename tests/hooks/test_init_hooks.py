"""`lessons init --claude-code/--codex/--gemini/--cursor/--agents-md` and `--remove-hooks`."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from lessons_cli.harnesses import agent_docs, wiring, wirings
from tests.conftest import init_in

OTHER_HOOK = {"matcher": "Bash", "hooks": [{"type": "command", "command": "./audit.sh"}]}


def test_claude_code_hooks_merge_with_existing_settings(
    plain_repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Our six events are added; other hooks and settings keep their place and value."""
    settings = plain_repo / ".claude" / "settings.json"
    settings.parent.mkdir()
    original = {"model": "opus", "hooks": {"PreToolUse": [OTHER_HOOK]}}
    settings.write_text(json.dumps(original))
    code, out, err = init_in(plain_repo, "--claude-code", monkeypatch=monkeypatch)
    assert (code, err) == (0, "")
    assert "wired claude-code: .claude/settings.json" in out
    data = json.loads(settings.read_text())
    assert data["model"] == "opus"
    assert data["hooks"]["PreToolUse"][0] == OTHER_HOOK
    ours = data["hooks"]["PreToolUse"][1]
    assert ours["matcher"] == "Edit|Write|MultiEdit|NotebookEdit|Bash|Read"
    command = ours["hooks"][0]["command"]
    assert command == 'sh "$CLAUDE_PROJECT_DIR/.lessons/run" hook claude-code || true'
    assert set(data["hooks"]) == {
        "SessionStart",
        "UserPromptSubmit",
        "PreToolUse",
        "PreCompact",
        "PostToolUseFailure",
        "Stop",
    }
    assert (plain_repo / ".lessons" / "config.json").exists()


def test_rerunning_init_changes_nothing(plain_repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A second run leaves the file byte for byte as it was and says so."""
    init_in(plain_repo, "--claude-code", monkeypatch=monkeypatch)
    settings = plain_repo / ".claude" / "settings.json"
    data = json.loads(settings.read_text())
    data["hooks"]["PreToolUse"].append(OTHER_HOOK)  # someone adds a hook after ours
    settings.write_text(json.dumps(data, indent=2) + "\n")
    before = settings.read_bytes()
    code, out, _ = init_in(plain_repo, "--claude-code", monkeypatch=monkeypatch)
    assert code == 0
    assert "already wired claude-code" in out
    assert settings.read_bytes() == before


def test_an_old_entry_of_ours_is_replaced_in_place(
    plain_repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An entry from an older install (a console script, or one machine's interpreter) is
    updated to the launcher where it stands, not duplicated."""
    settings = plain_repo / ".claude" / "settings.json"
    settings.parent.mkdir()
    olds = (
        "lessons hook claude-code",
        "/home/a/.venv/bin/python -I -m lessons_cli hook claude-code",
    )
    for command in olds:
        old = {"matcher": "Bash", "hooks": [{"type": "command", "command": command}]}
        settings.write_text(json.dumps({"hooks": {"PreToolUse": [old, OTHER_HOOK]}}))
        init_in(plain_repo, "--claude-code", monkeypatch=monkeypatch)
        pre = json.loads(settings.read_text())["hooks"]["PreToolUse"]
        assert len(pre) == 2
        assert pre[0]["hooks"][0]["command"].endswith('.lessons/run" hook claude-code || true')
        assert pre[1] == OTHER_HOOK


def test_remove_hooks_restores_other_hooks_only(
    plain_repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """--remove-hooks takes out our entries everywhere and leaves the rest as it was."""
    settings = plain_repo / ".claude" / "settings.json"
    settings.parent.mkdir()
    settings.write_text(json.dumps({"model": "opus", "hooks": {"PreToolUse": [OTHER_HOOK]}}))
    init_in(plain_repo, "--claude-code", "--cursor", "--agents-md", monkeypatch=monkeypatch)
    code, out, err = init_in(plain_repo, "--remove-hooks", monkeypatch=monkeypatch)
    assert (code, err) == (0, "")
    assert "removed claude-code hooks" in out
    assert "removed cursor hooks" in out
    assert "removed the lessons section: AGENTS.md" in out
    assert json.loads(settings.read_text()) == {
        "model": "opus",
        "hooks": {"PreToolUse": [OTHER_HOOK]},
    }
    assert json.loads((plain_repo / ".cursor" / "hooks.json").read_text()) == {"version": 1}
    code, out, _ = init_in(plain_repo, "--remove-hooks", monkeypatch=monkeypatch)
    assert code == 0
    assert "no hooks or sections of lessons found" in out


def test_remove_hooks_alone(plain_repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """--remove-hooks with a harness flag is a usage error (exit 2)."""
    code, _, err = init_in(plain_repo, "--remove-hooks", "--codex", monkeypatch=monkeypatch)
    assert code == 2
    assert "--remove-hooks" in err


def test_unparsable_settings_are_never_rewritten(plain_repo: Path) -> None:
    """Invalid JSON in settings.json: exit 1 naming the file, the file untouched."""
    settings = plain_repo / ".claude" / "settings.json"
    settings.parent.mkdir()
    settings.write_text("{broken")
    done = subprocess.run(
        [sys.executable, "-m", "lessons_cli", "init", "--claude-code"],
        cwd=plain_repo,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 1
    assert "settings.json" in done.stderr
    assert "not valid JSON" in done.stderr
    assert "wired" not in done.stdout
    assert settings.read_text() == "{broken"


@pytest.mark.parametrize(
    ("flag", "path", "events"),
    [
        (
            "--codex",
            ".codex/hooks.json",
            {"SessionStart", "UserPromptSubmit", "PreToolUse", "PostToolUse", "PreCompact", "Stop"},
        ),
        (
            "--gemini",
            ".gemini/settings.json",
            {"SessionStart", "BeforeAgent", "BeforeTool", "AfterTool", "PreCompress", "AfterAgent"},
        ),
        (
            "--cursor",
            ".cursor/hooks.json",
            {
                "sessionStart",
                "beforeShellExecution",
                "preToolUse",
                "postToolUse",
                "postToolUseFailure",
                "preCompact",
                "stop",
            },
        ),
    ],
)
def test_other_harnesses_get_their_own_file(
    plain_repo: Path, monkeypatch: pytest.MonkeyPatch, flag: str, path: str, events: set[str]
) -> None:
    """Each harness flag writes that harness's settings file with its events."""
    code, out, _ = init_in(plain_repo, flag, monkeypatch=monkeypatch)
    assert code == 0
    assert path in out
    data = json.loads((plain_repo / path).read_text())
    assert set(data["hooks"]) == events
    harness = flag.lstrip("-")
    assert wiring.installed(plain_repo, wirings()[harness])
    text = (plain_repo / path).read_text()
    assert f"hook {harness}" in text


def test_codex_prints_the_trust_steps(plain_repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Codex skips untrusted hooks without a word; init names the trust steps on stderr,
    and no longer asks for the deprecated `codex_hooks` switch."""
    _, out, err = init_in(plain_repo, "--codex", monkeypatch=monkeypatch)
    assert '"Trust and continue"' in err
    assert '"Trust all and continue"' in err
    assert "codex_hooks = true" not in err + out


def test_gemini_prints_the_folder_trust_steps(
    plain_repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Gemini CLI loads project hooks only in a trusted folder; init says how, naming
    the repo, on stderr (the steps tests/e2e/test_gemini_cli.py runs)."""
    code, out, err = init_in(plain_repo, "--gemini", monkeypatch=monkeypatch)
    assert code == 0
    assert "note:" not in out
    assert f'"{plain_repo}": "TRUST_FOLDER"' in err
    assert "~/.gemini/trustedFolders.json" in err
    assert "GEMINI_CLI_TRUST_WORKSPACE=true" in err


def test_agents_md_section_is_added_once_and_kept_in_place(
    plain_repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """--agents-md appends a marked section; re-running leaves the file unchanged."""
    doc = plain_repo / "AGENTS.md"
    doc.write_text("# Agents\n\nUse tabs.\n")
    code, out, _ = init_in(plain_repo, "--agents-md", "--claude-md", monkeypatch=monkeypatch)
    assert code == 0
    assert "AGENTS.md" in out
    assert "CLAUDE.md" in out
    text = doc.read_text()
    assert text.startswith("# Agents\n\nUse tabs.\n\n" + agent_docs.START)
    assert "lessons query --file" in text
    assert "lessons add" in text
    init_in(plain_repo, "--agents-md", monkeypatch=monkeypatch)
    assert doc.read_text() == text
    assert agent_docs.remove_snippet(doc)
    assert doc.read_text() == "# Agents\n\nUse tabs.\n"


def test_agents_md_with_a_lone_marker_is_refused_and_left_alone(
    plain_repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An end marker deleted by hand: which lines are the section would be a guess, and
    replacing up to a later marker would delete the text between; init refuses."""
    doc = plain_repo / "AGENTS.md"
    doc.write_text(f"# Agents\n\n{agent_docs.START}\nold section\n\nUse tabs.\n")
    before = doc.read_bytes()
    code, _, err = init_in(plain_repo, "--agents-md", monkeypatch=monkeypatch)
    assert code == 1
    assert "AGENTS.md" in err
    assert "fix them by hand" in err
    assert doc.read_bytes() == before


def test_wiring_says_which_tools_reach_the_hook() -> None:
    """Claude Code's entries cover edits, Bash and Read (where file rules come), not Grep;
    events without a matcher all."""
    claude = wirings()["claude-code"]
    assert claude.covers("PreToolUse", "Edit")
    assert claude.covers("PreToolUse", "Bash")
    assert claude.covers("PreToolUse", "Read")
    assert not claude.covers("PostToolUseFailure", "Read")
    assert not claude.covers("PreToolUse", "Grep")
    assert not claude.covers("PreToolUse", "BashOutput")  # the whole name must match
    assert claude.covers("UserPromptSubmit")
    assert not claude.covers("PostToolUse", "Edit")  # not wired at all
