"""`lessons doctor` on a registered `lessons mcp` server: does its command reach the
launcher from the project folder, as the client will start it."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import run, wired_here


def _server_checks(subject: str) -> list[dict[str, Any]]:
    report = json.loads(run("doctor", "--json").stdout)
    return [c for c in report["checks"] if c["subject"] == subject and "mcp" in c["detail"]]


@pytest.mark.parametrize(
    ("flag", "settings"),
    [
        ("--claude-code", ".mcp.json"),
        ("--codex", ".codex/config.toml"),
        ("--copilot", ".github/mcp.json"),
        ("--qwen", ".qwen/settings.json"),
    ],
)
def test_a_registered_server_is_checked_through_the_launcher(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, flag: str, settings: str
) -> None:
    root = wired_here(tmp_path, monkeypatch, flag, "--mcp")
    (check,) = _server_checks(flag.removeprefix("--"))
    assert check["status"] == "ok"
    assert check["detail"] == f"{settings}: lessons mcp through .lessons/run"
    (root / ".lessons" / "run").unlink()
    (check,) = _server_checks(flag.removeprefix("--"))
    assert check["status"] == "fail"
    assert f"{root / '.lessons' / 'run'}, which is not there" in check["detail"]
    assert check["fix"] == f"lessons init {flag} --mcp"


def test_no_server_no_check(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    wired_here(tmp_path, monkeypatch, "--claude-code")
    assert _server_checks("claude-code") == []
