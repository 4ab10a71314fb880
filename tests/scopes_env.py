"""Helpers for the scope tests: lessons run in real processes against a repository, with
the temp home the autouse fixture sets (``XDG_DATA_HOME`` under it), and hook payloads
shaped as Claude Code sends them."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path
from typing import Any

from tests.conftest import INSTALL_BIN

LESSONS = str(INSTALL_BIN / "lessons")


def lessons(
    root: Path, *args: str, env: dict[str, str] | None = None, stdin: str | None = None
) -> subprocess.CompletedProcess[str]:
    """``lessons ARGS`` in its own process, in ``root``, with this test's environment
    (its temp home) plus ``env``."""
    return subprocess.run(
        [LESSONS, *args],
        input=stdin,
        cwd=root,
        env={**os.environ, **(env or {})},
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def personal_dir() -> Path:
    """The personal store of this test: ``$XDG_DATA_HOME/lessons``."""
    return Path(os.environ["XDG_DATA_HOME"]) / "lessons"


def read_call(root: Path, path: str, session: str = "s1") -> dict[str, Any]:
    return _call(root, session, "Read", {"file_path": str(root / path)})


def bash_call(root: Path, command: str, session: str = "s1") -> dict[str, Any]:
    return _call(root, session, "Bash", {"command": command})


def prompt_call(root: Path, prompt: str, session: str = "s1") -> dict[str, Any]:
    return {
        "session_id": session,
        "transcript_path": "",
        "cwd": str(root),
        "hook_event_name": "UserPromptSubmit",
        "prompt": prompt,
    }


def _call(root: Path, session: str, tool: str, tool_input: dict[str, str]) -> dict[str, Any]:
    return {
        "session_id": session,
        "transcript_path": "",
        "cwd": str(root),
        "hook_event_name": "PreToolUse",
        "tool_name": tool,
        "tool_input": tool_input,
        "tool_use_id": f"toolu_{tool}",
    }


def hook_text(root: Path, call: dict[str, Any], env: dict[str, str] | None = None) -> str:
    """What the Claude Code hook, in its own process, gives the model for ``call``: the
    context or the refusal's reason ("" when silent). It must exit 0."""
    done = lessons(root, "hook", "claude-code", env=env, stdin=json.dumps(call))
    assert done.returncode == 0, done.stderr
    if not done.stdout.strip():
        return ""
    output = json.loads(done.stdout).get("hookSpecificOutput", {})
    return str(output.get("additionalContext") or output.get("permissionDecisionReason") or "")


def write_lesson_file(folder: Path, lesson_id: str, rule: str, **triggers: list[str]) -> Path:
    """A lesson file written by hand into ``folder`` (a pack's or the personal
    ``lessons/``), as a teammate or an editor would."""
    folder.mkdir(parents=True, exist_ok=True)
    data = {
        "id": lesson_id,
        "rule": rule,
        "topics": ["general"],
        "triggers": {
            "files": triggers.get("files", []),
            "commands": triggers.get("commands", []),
            "keywords": triggers.get("keywords", []),
        },
        "created": "2026-01-01",
        "status": "active",
    }
    path = folder / f"{lesson_id}.json"
    path.write_text(json.dumps(data, indent=2, sort_keys=True) + "\n")
    return path
