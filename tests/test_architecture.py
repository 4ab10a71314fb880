"""Boundaries the code base keeps."""

from __future__ import annotations

import ast
import importlib.util
import pkgutil
import subprocess
import sys
from pathlib import Path

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
    assert importlib.util.find_spec("lessons_cli") is not None
    assert importlib.util.find_spec("cli") is None


def _imports(path: Path, modules: set[str]) -> set[str]:
    """The project modules ``path`` imports anywhere: at module level, in functions and
    for type checking alike (a cycle through any of them is a tangle to read)."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            for alias in node.names:
                name = f"{node.module}.{alias.name}"
                found.add(name if name in modules else node.module)
        elif isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
    return found & modules


def import_graph() -> dict[str, set[str]]:
    """Module -> the project modules it imports, over lessons_core and lessons_cli."""
    root = Path(lessons_core.__file__).parents[1]
    paths = {}
    for package in ("lessons_core", "lessons_cli"):
        for path in (root / package).rglob("*.py"):
            parts = path.relative_to(root).with_suffix("").parts
            paths[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    modules = set(paths)
    return {name: _imports(path, modules) - {name} for name, path in paths.items()}


def test_no_module_imports_itself_back() -> None:
    """The import graph of lessons_core and lessons_cli has no cycle: every module can be
    read knowing only the modules below it."""
    graph = import_graph()
    assert len(graph) > 80
    done: set[str] = set()
    cycles = []

    def visit(name: str, path: list[str]) -> None:
        if name in path:
            cycles.append([*path[path.index(name) :], name])
            return
        if name in done:
            return
        for target in sorted(graph[name]):
            visit(target, [*path, name])
        done.add(name)

    for name in sorted(graph):
        visit(name, [])
    assert cycles == []
