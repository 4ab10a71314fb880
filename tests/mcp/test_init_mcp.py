"""`lessons init --claude-code --mcp`: the server in .mcp.json, merged and removable."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from lessons_cli.harnesses import servers
from tests.conftest import init_in

OTHER = {"command": "npx", "args": ["-y", "some-server"]}
COMMAND = (
    'r=${CLAUDE_PROJECT_DIR:-.}; [ -f "$r/.lessons/run" ] || '
    'r=$(git rev-parse --show-toplevel 2>/dev/null); cd "$r/" && exec sh .lessons/run mcp'
)


def test_the_server_is_merged_into_an_existing_mcp_json(
    plain_repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Other servers and keys keep their place; ours runs the committed launcher."""
    path = plain_repo / ".mcp.json"
    path.write_text(json.dumps({"mcpServers": {"other": OTHER}, "note": "kept"}))
    code, out, err = init_in(plain_repo, "--claude-code", "--mcp", monkeypatch=monkeypatch)
    assert (code, err) == (0, "")
    assert "registered the lessons MCP server for claude-code: .mcp.json" in out
    data = json.loads(path.read_text())
    assert list(data["mcpServers"]) == ["other", "lessons"]
    assert data["mcpServers"]["other"] == OTHER
    assert data["note"] == "kept"
    assert data["mcpServers"]["lessons"] == {"command": "sh", "args": ["-c", COMMAND]}


@pytest.mark.parametrize(
    ("harness", "settings"), [("claude-code", ".mcp.json"), ("qwen", ".qwen/settings.json")]
)
def test_rerunning_changes_nothing_and_removal_takes_only_ours(
    plain_repo: Path, monkeypatch: pytest.MonkeyPatch, harness: str, settings: str
) -> None:
    """Other servers and settings keep their place; a re-run changes no byte; removal
    leaves the file as it was before init (Qwen Code's holds the hooks too)."""
    path = plain_repo / settings
    path.parent.mkdir(exist_ok=True)
    before = {"model": {"name": "kept"}, "mcpServers": {"other": OTHER}}
    path.write_text(json.dumps(before))
    init_in(plain_repo, f"--{harness}", "--mcp", monkeypatch=monkeypatch)
    written = path.read_bytes()
    assert list(json.loads(written)["mcpServers"]) == ["other", "lessons"]
    code, out, _ = init_in(plain_repo, f"--{harness}", "--mcp", monkeypatch=monkeypatch)
    assert code == 0
    assert f"already registered the lessons MCP server for {harness}" in out
    assert path.read_bytes() == written
    code, out, _ = init_in(plain_repo, "--remove-hooks", monkeypatch=monkeypatch)
    assert f"removed the lessons MCP server: {settings}" in out
    assert json.loads(path.read_text()) == before


def test_a_file_left_empty_by_the_removal_is_deleted(
    plain_repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    init_in(plain_repo, "--claude-code", "--mcp", monkeypatch=monkeypatch)
    assert servers.installed(plain_repo, ".mcp.json")
    init_in(plain_repo, "--remove-hooks", monkeypatch=monkeypatch)
    assert not (plain_repo / ".mcp.json").exists()


def test_someone_elses_lessons_server_is_never_overwritten(
    plain_repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = plain_repo / ".mcp.json"
    text = json.dumps({"mcpServers": {"lessons": OTHER}})
    path.write_text(text)
    code, _, err = init_in(plain_repo, "--claude-code", "--mcp", monkeypatch=monkeypatch)
    assert code == 1
    assert "already has a server called 'lessons'" in err
    assert path.read_text() == text
    init_in(plain_repo, "--remove-hooks", monkeypatch=monkeypatch)
    assert path.read_text() == text


def test_an_unparsable_mcp_json_is_never_rewritten(
    plain_repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (plain_repo / ".mcp.json").write_text("{broken")
    code, _, err = init_in(plain_repo, "--claude-code", "--mcp", monkeypatch=monkeypatch)
    assert code == 1
    assert "not valid JSON" in err
    assert (plain_repo / ".mcp.json").read_text() == "{broken"


def test_mcp_needs_a_harness_and_says_which_ones_take_it(
    plain_repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """--mcp alone is a usage error; with a harness lessons registers no server for, a
    note says so and the hooks are still wired."""
    code, _, err = init_in(plain_repo, "--mcp", monkeypatch=monkeypatch)
    assert code == 2
    assert "--claude-code" in err
    code, out, err = init_in(plain_repo, "--cursor", "--mcp", monkeypatch=monkeypatch)
    assert code == 0
    assert "wired cursor" in out
    assert "registers no MCP server for cursor" in err
    assert not (plain_repo / ".mcp.json").exists()


def test_without_mcp_no_server_is_registered(
    plain_repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    init_in(plain_repo, "--claude-code", monkeypatch=monkeypatch)
    assert not (plain_repo / ".mcp.json").exists()


NO_VARIABLE = (
    'r=.; [ -f ".lessons/run" ] || r=$(git rev-parse --show-toplevel 2>/dev/null); '
    'cd "$r/" && exec sh .lessons/run mcp'
)


@pytest.mark.parametrize(
    ("harness", "settings", "hook_event"),
    [
        ("gemini", ".gemini/settings.json", "BeforeTool"),
        ("qwen", ".qwen/settings.json", "PreToolUse"),
    ],
)
def test_gemini_and_qwen_get_the_server_beside_their_hooks(
    plain_repo: Path, monkeypatch: pytest.MonkeyPatch, harness: str, settings: str, hook_event: str
) -> None:
    """Gemini CLI and Qwen Code read both from one settings file; neither names a project
    folder for its servers, so the command starts from the session's folder (or git's top
    level)."""
    code, out, _ = init_in(plain_repo, f"--{harness}", "--mcp", monkeypatch=monkeypatch)
    assert code == 0
    assert f"registered the lessons MCP server for {harness}: {settings}" in out
    path = plain_repo / settings
    data = json.loads(path.read_text())
    assert hook_event in data["hooks"]
    assert data["mcpServers"]["lessons"] == {"command": "sh", "args": ["-c", NO_VARIABLE]}
    init_in(plain_repo, "--remove-hooks", monkeypatch=monkeypatch)
    assert not path.exists()  # nothing else was in it


def test_copilot_gets_the_server_in_github_mcp_json(
    plain_repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    code, out, _ = init_in(plain_repo, "--copilot", "--mcp", monkeypatch=monkeypatch)
    assert code == 0
    assert "registered the lessons MCP server for copilot: .github/mcp.json" in out
    path = plain_repo / ".github" / "mcp.json"
    assert servers.installed(plain_repo, ".github/mcp.json")
    init_in(plain_repo, "--remove-hooks", monkeypatch=monkeypatch)
    assert not path.exists()
