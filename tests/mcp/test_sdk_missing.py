"""Without the MCP SDK (an install without the mcp extra): `lessons mcp`, `init --mcp`
and `doctor` exit 1 with the command that adds it, never a traceback. The real install
without the extra, and the line run for real, are in tests/test_install.py."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from lessons_cli import mcp_sdk
from tests.conftest import init_in, run, wired_here

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - the 3.10 backport
    import tomli as tomllib

PYPROJECT = Path(__file__).resolve().parents[2] / "pyproject.toml"


@pytest.fixture
def no_sdk(monkeypatch: pytest.MonkeyPatch) -> None:
    """This interpreter as if the SDK were not installed."""
    monkeypatch.setattr(mcp_sdk, "find_spec", lambda name: None)


def test_the_requirement_is_the_extra_and_the_test_group_installs_it() -> None:
    project = tomllib.loads(PYPROJECT.read_text())
    assert project["project"]["optional-dependencies"]["mcp"] == [mcp_sdk.REQUIREMENT]
    assert not any(dep.startswith("mcp") for dep in project["project"]["dependencies"])
    assert project["dependency-groups"]["mcp"] == [mcp_sdk.REQUIREMENT]
    assert {"include-group": "mcp"} in project["dependency-groups"]["test"]


@pytest.mark.parametrize(
    ("marker", "line"),
    [
        ("pipx_metadata.json", "pipx inject 'my tools' 'mcp>=2.3,<3'"),
        ("uv-receipt.toml", "uv pip install --python PYTHON 'mcp>=2.3,<3'"),
        (None, "PYTHON -m pip install 'mcp>=2.3,<3'"),
    ],
)
def test_the_install_line_fits_the_install(tmp_path: Path, marker: str | None, line: str) -> None:
    """pipx and uv mark the venvs they made; any other gets pip, by its interpreter."""
    venv = tmp_path / "my tools"
    (venv / "bin").mkdir(parents=True)
    if marker:
        (venv / marker).write_text("{}")
    python = venv / "bin" / "python"
    quoted = f"'{python}'"
    assert mcp_sdk.install_line(str(python)) == line.replace("PYTHON", quoted)


def test_lessons_mcp_without_the_sdk_names_the_install_line(no_sdk: None) -> None:
    result = run("mcp")
    assert result.exit_code == 1
    assert "Traceback" not in result.output
    assert "lessons mcp needs the MCP SDK (the 'mcp' extra)" in result.stderr
    assert f"install it with: {mcp_sdk.install_line()}" in result.stderr


def test_init_mcp_without_the_sdk_writes_nothing(
    plain_repo: Path, monkeypatch: pytest.MonkeyPatch, no_sdk: None
) -> None:
    code, _, err = init_in(plain_repo, "--claude-code", "--mcp", monkeypatch=monkeypatch)
    assert code == 1
    assert mcp_sdk.install_line() in err
    assert "nothing was written" in err
    assert not (plain_repo / ".lessons").exists()
    assert not (plain_repo / ".mcp.json").exists()


def test_doctor_fails_a_registered_server_the_install_cannot_serve(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    wired_here(tmp_path, monkeypatch, "--claude-code", "--mcp")
    monkeypatch.setattr(mcp_sdk, "installed", lambda python=None: False)
    result = run("doctor", "--json")
    assert result.exit_code == 1
    (check,) = [
        c
        for c in json.loads(result.stdout)["checks"]
        if c["subject"] == "claude-code" and "mcp" in c["detail"]
    ]
    assert check["status"] == "fail"
    assert "lessons mcp needs the MCP SDK" in check["detail"]
    assert check["fix"].endswith("-m pip install 'mcp>=2.3,<3'")
