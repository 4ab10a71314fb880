"""Boundaries the code base keeps."""

from __future__ import annotations

import pkgutil
import subprocess
import sys

import lessons_core


def test_core_never_imports_click() -> None:
    """Importing every lessons_core module leaves click unloaded."""
    modules = [m.name for m in pkgutil.walk_packages(lessons_core.__path__, "lessons_core.")]
    code = (
        "import importlib, sys\n"
        f"for name in {modules!r}: importlib.import_module(name)\n"
        "print('click' in sys.modules)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_no_top_level_cli_package_is_installed() -> None:
    """The CLI ships as lessons_cli, never a generic top-level `cli`."""
    import importlib.util

    assert importlib.util.find_spec("lessons_cli") is not None
    assert importlib.util.find_spec("cli") is None
