"""Whether the MCP SDK that ``lessons mcp`` needs is installed, and the line that adds it.

The SDK is the ``mcp`` extra (``pipx install '.[mcp]'``): it brings a web-server stack
(starlette, uvicorn, pydantic, cryptography) that no hook and no other command loads, so
a plain install goes without it. ``lessons mcp``, ``lessons init --mcp`` and ``lessons
doctor`` say so with the exact command for the install at hand: a pipx venv (it holds
``pipx_metadata.json``) is changed with ``pipx inject``, and a uv tool (``uv-receipt.toml``)
has no pip of its own.
"""

from __future__ import annotations

import subprocess
import sys
from importlib.util import find_spec
from pathlib import Path

# The ``mcp`` extra of pyproject.toml (tests/mcp/test_sdk_missing.py holds them equal).
REQUIREMENT = "mcp>=2.3,<3"
_PROBE = "import importlib.util, sys; sys.exit(importlib.util.find_spec('mcp') is None)"


def installed(python: str | None = None) -> bool:
    """Can ``python`` (default: this interpreter) import the SDK?"""
    if python is None or python == sys.executable:
        return find_spec("mcp") is not None
    try:
        done = subprocess.run(
            [python, "-I", "-c", _PROBE], capture_output=True, timeout=60, check=False
        )
    except (OSError, subprocess.SubprocessError):
        return False
    return done.returncode == 0


def install_line(python: str | None = None) -> str:
    """The command that adds the SDK to the environment of ``python``."""
    python = python or sys.executable
    venv = Path(python).parent.parent  # VENV/bin/python
    requirement = f"'{REQUIREMENT}'"
    if (venv / "pipx_metadata.json").is_file():
        return f"pipx inject {_quoted(venv.name)} {requirement}"
    if (venv / "uv-receipt.toml").is_file():
        return f"uv pip install --python {_quoted(python)} {requirement}"
    return f"{_quoted(python)} -m pip install {requirement}"


def missing(python: str | None = None) -> str | None:
    """What to tell the user when ``python`` lacks the SDK (None when it has it)."""
    if installed(python):
        return None
    return (
        "lessons mcp needs the MCP SDK (the 'mcp' extra), which is not installed with "
        f"lessons here ({python or sys.executable}); install it with: {install_line(python)}"
    )


def _quoted(path: str) -> str:
    if all(char.isalnum() or char in "@%+=:,./-_" for char in path):
        return path
    return "'" + path.replace("'", "'\\''") + "'"
