"""`lessons init --copilot`: Copilot CLI's own hook file, .github/hooks/lessons.json."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from lessons_cli.app import cli
from lessons_cli.harnesses import wiring, wirings
from tests.conftest import make_repo

HOOKS = Path(".github") / "hooks"
OTHER = {"type": "command", "bash": "./audit.sh", "timeoutSec": 5}


def _init(*flags: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(cli, ["init", *flags])
    return result.exit_code, result.stdout, result.stderr


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A git repo without .lessons/, as the working directory."""
    root = make_repo(tmp_path / "repo", {"src/a.py": "x = 1\n"})
    monkeypatch.chdir(root)
    return root


def test_init_writes_copilots_native_format(repo: Path) -> None:
    """version 1; one flat entry per event: type, the command under `bash`, timeoutSec,
    and the tool matcher on the tool events; the trust step is printed."""
    code, out, err = _init("--copilot")
    assert code == 0
    assert "wired copilot: .github/hooks/lessons.json" in out
    assert "trust" in err
    data = json.loads((repo / HOOKS / "lessons.json").read_text())
    assert data["version"] == 1
    command = 'sh "$COPILOT_PROJECT_DIR/.lessons/run" hook copilot || true'
    matcher = "bash|create|edit"
    assert data["hooks"] == {
        "sessionStart": [{"type": "command", "timeoutSec": 10, "bash": command}],
        "userPromptSubmitted": [{"type": "command", "timeoutSec": 10, "bash": command}],
        "preToolUse": [
            {"type": "command", "timeoutSec": 10, "bash": command, "matcher": f"{matcher}|view"}
        ],
        "postToolUse": [{"type": "command", "timeoutSec": 10, "bash": command, "matcher": "bash"}],
        "postToolUseFailure": [
            {"type": "command", "timeoutSec": 10, "bash": command, "matcher": matcher}
        ],
        "preCompact": [{"type": "command", "timeoutSec": 10, "bash": command}],
        "agentStop": [{"type": "command", "timeoutSec": 10, "bash": command}],
    }
    assert wiring.installed(repo, wirings()["copilot"])


def test_rerunning_changes_nothing_and_keeps_other_entries(repo: Path) -> None:
    """A hook someone added beside ours keeps its place; a second init is a no-op."""
    _init("--copilot")
    path = repo / HOOKS / "lessons.json"
    data = json.loads(path.read_text())
    data["hooks"]["preToolUse"].append(OTHER)
    path.write_text(json.dumps(data, indent=2) + "\n")
    before = path.read_bytes()
    code, out, _ = _init("--copilot")
    assert code == 0
    assert "already wired copilot" in out
    assert path.read_bytes() == before


def test_remove_hooks_deletes_the_file_it_made(repo: Path) -> None:
    """With nothing but our entries in it, the file goes; other hook files stay."""
    other = repo / HOOKS / "audit.json"
    other.parent.mkdir(parents=True)
    other.write_text(json.dumps({"version": 1, "hooks": {"preToolUse": [OTHER]}}))
    _init("--copilot")
    code, out, _ = _init("--remove-hooks")
    assert code == 0
    assert "removed copilot hooks: .github/hooks/lessons.json" in out
    assert not (repo / HOOKS / "lessons.json").exists()
    assert json.loads(other.read_text())["hooks"]["preToolUse"] == [OTHER]
    assert "no hooks or sections of lessons found" in _init("--remove-hooks")[1]


def test_remove_hooks_keeps_what_others_put_in_the_file(repo: Path) -> None:
    """Someone else's entry in lessons.json survives the removal, and so does the file."""
    _init("--copilot")
    path = repo / HOOKS / "lessons.json"
    data = json.loads(path.read_text())
    data["hooks"]["agentStop"] = [OTHER]
    path.write_text(json.dumps(data))
    _init("--remove-hooks")
    assert json.loads(path.read_text()) == {"version": 1, "hooks": {"agentStop": [OTHER]}}
