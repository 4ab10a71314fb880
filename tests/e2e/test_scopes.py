"""A personal lesson captured in one repository and a pack's lesson reach the real model in
a second repository, labelled with their scope, before the change they are about: Claude
Code and Codex CLI, each against its fake model (see test_claude_code.py, test_codex.py).

The personal lesson is saved with `lessons add --personal` in a first repository, into the
test's own ``XDG_DATA_HOME`` (the clients' hooks inherit it); the pack is a folder of the
second repository named in its committed config.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest

from lessons_core.delivery.deliver import GATE_PREFIX
from tests.e2e.claude_project import TOOLS, bash_call, edit_call
from tests.e2e.claude_project import Project as ClaudeProject
from tests.e2e.codex_project import Project as CodexProject
from tests.e2e.codex_project import patch_call, shell_call, update_patch
from tests.e2e.fake_anthropic import result_text, tool_results
from tests.e2e.fake_responses import output_text
from tests.e2e.fake_server import ToolCall
from tests.e2e.sample_repo import git, lessons, make_repo

pytestmark = pytest.mark.e2e

PERSONAL_RULE = "On this machine run scripts/release.sh only after git fetch --tags; tags go stale."
PACK_RULE = "Keep src/app.py to constants at module level; the platform imports it at boot."
PACK = "vendor/platform-lessons"


def add_scopes(second: Path, first: Path) -> None:
    """The personal lesson, saved from ``first``; the pack, committed in ``second``."""
    make_repo(first)
    lessons(first, "init")
    lessons(
        first,
        "add",
        "--personal",
        PERSONAL_RULE,
        "--topic",
        "release",
        "--trigger-cmd",
        r"scripts/release\.sh",
    )
    folder = second / PACK / "lessons"
    folder.mkdir(parents=True)
    lesson = {
        "id": "app-constants-only",
        "rule": PACK_RULE,
        "topics": ["platform"],
        "triggers": {"files": ["src/app.py"], "commands": [], "keywords": []},
        "created": "2026-12-01",
        "status": "active",
    }
    (folder / "app-constants-only.json").write_text(json.dumps(lesson, indent=2) + "\n")
    config = second / ".lessons" / "config.json"
    config.write_text(json.dumps({**json.loads(config.read_text()), "packs": [PACK]}))
    git(second, "add", "-A")
    git(second, "-c", "user.email=t@example.com", "-c", "user.name=t", "commit", "-qm", "pack")


def _first_with(blobs: list[str], text: str) -> int:
    return next(i for i, blob in enumerate(blobs) if text in blob)


def test_claude_code_gets_the_personal_and_the_pack_lesson_before_the_change(
    project: ClaudeProject, tmp_path: Path
) -> None:
    """Read then Edit: the pack's rule comes with the Read, in the request the model answers
    with its Edit, the file unchanged; the release command is refused once with the
    personal rule before it ran. Each is labelled with its scope."""
    add_scopes(project.root, tmp_path / "first")
    fake = project.fake
    app = project.root / "src" / "app.py"
    fake.probe = lambda: (app.read_text(), (project.root / "released.txt").exists())
    fake.scenarios["scopes"] = [
        ToolCall("Read", {"file_path": str(app)}),
        edit_call(project.root, "VALUE = 1", "VALUE = 2"),
        bash_call("bash scripts/release.sh"),
        bash_call("bash scripts/release.sh"),
    ]
    project.claude("SCENARIO:scopes change the app and release", "--allowedTools", TOOLS)
    blobs = [json.dumps(request["messages"]) for request in fake.requests]
    read = _first_with(blobs, f"- {PACK_RULE} (pack platform-lessons)")
    assert fake.observed[read][0] == "VALUE = 1\n"  # before the edit
    # The model's answer to that request: the last call of the turn (Claude Code merges a
    # turn's calls into one message).
    later = fake.requests[read + 1]["messages"]
    answer = next(m for m in reversed(later) if m.get("role") == "assistant")
    calls = [b.get("name") for b in answer["content"] if b.get("type") == "tool_use"]
    assert calls[-1] == "Edit"
    refused = _first_with(blobs, f"- {PERSONAL_RULE} (personal)")
    assert fake.observed[refused][1] is False  # nothing ran yet
    denial = tool_results(fake.requests[refused])[-1]
    assert denial["is_error"] is True
    assert GATE_PREFIX in result_text(denial)
    assert (project.root / "released.txt").exists()  # the retry ran
    assert app.read_text() == "VALUE = 2\n"


def _outputs(request: dict[str, Any]) -> list[str]:
    kinds = {"function_call_output", "custom_tool_call_output"}
    return [output_text(item) for item in request["input"] if item.get("type") in kinds]


def test_codex_gets_the_personal_and_the_pack_lesson_before_the_change(
    codex: CodexProject, tmp_path: Path
) -> None:
    """A shell read brings the pack's rule before the patch; the release command is
    blocked once with the personal rule before it ran. Each is labelled."""
    add_scopes(codex.root, tmp_path / "first")
    fake = codex.fake
    fake.scenarios["scopes"] = [
        shell_call("sed -n 1,200p src/app.py"),
        patch_call(update_patch("src/app.py", "VALUE = 1", "VALUE = 2")),
        shell_call("bash scripts/release.sh"),
        shell_call("sh scripts/release.sh"),
    ]
    codex.codex("SCENARIO:scopes change the app and release")
    blobs = [json.dumps(request["input"]) for request in fake.requests]
    read = _first_with(blobs, f"- {PACK_RULE} (pack platform-lessons)")
    assert fake.observed[read][1] == "VALUE = 1\n"  # before the patch
    refused = _first_with(blobs, f"- {PERSONAL_RULE} (personal)")
    assert fake.observed[refused][0] is False  # nothing ran yet
    assert GATE_PREFIX in _outputs(fake.requests[refused])[-1]
    assert (codex.root / "released.txt").exists()
    assert (codex.root / "src" / "app.py").read_text() == "VALUE = 2\n"
    status = ["git", "status", "--short", PACK]
    done = subprocess.run(status, cwd=codex.root, capture_output=True, check=True)
    assert done.stdout == b""  # the pack was never written
