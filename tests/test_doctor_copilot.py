"""`lessons doctor` on a repo wired for Copilot CLI: folder trust and disableAllHooks, read
the way Copilot CLI 1.0.102 reads them (tests/e2e/test_copilot.py checks the same against
the real client)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import run, wired_here

# What Copilot writes when its trust prompt is answered "Yes, and remember this folder".
CONFIG_HEAD = "// User settings belong in settings.json.\n// This file is managed automatically.\n"


@pytest.fixture
def wired(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A repo wired for Copilot CLI, lessons on PATH, a temp home."""
    return wired_here(tmp_path, monkeypatch, "--copilot")


def _trust(copilot_home: Path, *folders: Path) -> None:
    copilot_home.mkdir(parents=True, exist_ok=True)
    data = {"firstLaunchAt": "2026-12-01T09:03:22.864Z", "trustedFolders": list(map(str, folders))}
    (copilot_home / "config.json").write_text(CONFIG_HEAD + json.dumps(data, indent=2))


def _copilot() -> tuple[int, list[dict[str, Any]]]:
    result = run("doctor", "--json")
    report = json.loads(result.stdout)
    return result.exit_code, [c for c in report["checks"] if c["subject"] == "copilot"]


def test_an_untrusted_folder_fails_with_the_trust_step(wired: Path) -> None:
    """No trustedFolders entry: Copilot would skip the hooks silently, so exit 1."""
    code, checks = _copilot()
    assert code == 1
    assert [c["status"] for c in checks] == ["ok", "fail"]  # entries fine, trust missing
    assert "Yes, and remember this folder" in checks[-1]["fix"]


@pytest.mark.parametrize("which", ["repo", "parent"])
def test_a_trusted_folder_or_parent_passes(wired: Path, tmp_path: Path, which: str) -> None:
    """The repo itself or a folder above it in trustedFolders (comments and all)."""
    _trust(tmp_path / "home" / ".copilot", wired if which == "repo" else wired.parent)
    code, checks = _copilot()
    assert code == 0
    assert [c["status"] for c in checks] == ["ok", "ok"]


def test_copilot_home_is_where_trust_is_read(
    wired: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """COPILOT_HOME moves Copilot's config.json; doctor reads it there."""
    monkeypatch.setenv("COPILOT_HOME", str(tmp_path / "elsewhere"))
    _trust(tmp_path / "elsewhere", wired)
    assert _copilot()[0] == 0


def test_disable_all_hooks_in_the_repo_fails(wired: Path, tmp_path: Path) -> None:
    """disableAllHooks in .github/copilot/settings.json turns the hooks off."""
    _trust(tmp_path / "home" / ".copilot", wired)
    settings = wired / ".github" / "copilot" / "settings.json"
    settings.parent.mkdir(parents=True)
    settings.write_text('{"disableAllHooks": true}')
    code, checks = _copilot()
    assert code == 1
    (failed,) = [c for c in checks if c["status"] == "fail"]
    assert str(settings) in failed["fix"]
