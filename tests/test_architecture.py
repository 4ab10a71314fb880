"""Boundaries the code base keeps."""

from __future__ import annotations

import ast
import importlib.util
import pkgutil
import subprocess
import sys
from importlib import metadata
from pathlib import Path

import lessons_cli
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
    """The CLI ships as lessons_cli, never a generic top-level `cli`: the install's
    top-level names are lessons' two packages, wherever their sources live."""
    top = metadata.distribution("lessons").read_text("top_level.txt") or ""
    assert sorted(top.split()) == ["lessons_cli", "lessons_core"]
    assert importlib.util.find_spec("lessons_cli") is not None


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
    paths = {}
    for package in (lessons_core, lessons_cli):
        root = Path(package.__path__[0]).parent  # the checkout, or its cli/ folder
        for path in Path(package.__path__[0]).rglob("*.py"):
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


# The packages of lessons_core (a sub-package, or a module at its top), bottom first: a
# package imports only packages of the layers below its own, never one of its own layer
# nor one above (lessons_cli, the command line over the library, is the top layer). The
# recall index is built from the store; recall ranks over the index; a session's state
# names actions (matching) and masks secrets (authoring); feedback judges what a session
# holds; delivery answers a hook with all of these; validate judges the lessons, eval
# measures recall and validate's own checks; the commands at the top import, harvest,
# review and report over all of them. A project's everyday commands (project_commands)
# sit low, so that every judgement of a command trigger can read them.
LAYERS: tuple[frozenset[str], ...] = (
    frozenset(
        {
            "lessons_core",
            "errors",
            "markdown_fences",
            "platforms",
            "workflow_commands",
        }
    ),
    frozenset({"containment", "git", "matching"}),
    frozenset({"fsutil", "git_ignored"}),
    frozenset({"jsonio"}),
    frozenset({"store"}),
    frozenset({"index", "permission_rules"}),
    frozenset({"recall"}),
    frozenset({"authoring", "check", "export"}),
    frozenset({"session"}),
    frozenset({"project_commands"}),
    frozenset({"feedback", "telemetry"}),
    frozenset({"delivery"}),
    frozenset({"validate"}),
    frozenset({"eval"}),
    frozenset({"harvest", "importers", "report", "review"}),
    frozenset({"lessons_cli"}),
)
# An import from a package to one of its own layer or above, allowed by name with its
# reason: (importer, imported) -> why.
BACK_ARROWS_ALLOWED: dict[tuple[str, str], str] = {
    ("eval", "importers"): (
        "lessons eval --import runs the real importer on vendored public projects and "
        "judges what it writes"
    ),
    ("validate", "importers"): (
        "L205 and L206 read the project's CLAUDE.md and AGENTS.md lines into triggers and "
        "prohibitions the way lessons import does (importers.mentions, importers.normative), "
        "while import judges what it would write by validate's checks"
    ),
    ("project_commands", "review"): (
        "the breadth judgement reads a project's everyday commands from its CI, scripts and "
        "task files with the extractors review reads a diff's added commands with "
        "(review.script_commands, text only), so both see the same commands"
    ),
    ("project_commands", "telemetry"): (
        "the commands the hooks saw are everyday commands too, read from the telemetry log "
        "by its own reader (imported inside the function, only where telemetry is on)"
    ),
}


def package_of(module: str) -> str:
    """The package ``module`` belongs to in ``LAYERS``: ``lessons_core.recall.rank`` is
    ``recall``, ``lessons_core.errors`` is ``errors``, every module of lessons_cli is
    ``lessons_cli``."""
    parts = module.split(".")
    if parts[0] == "lessons_cli":
        return "lessons_cli"
    return parts[1] if len(parts) > 1 else parts[0]


def test_every_package_has_its_layer() -> None:
    """A package added without a place in ``LAYERS`` fails here: give it the layer
    above everything it imports (and say why in the comment above ``LAYERS``)."""
    named = [package for layer in LAYERS for package in layer]
    assert len(named) == len(set(named))
    assert {package_of(module) for module in import_graph()} == set(named)


def test_each_package_imports_only_the_layers_below_it() -> None:
    """No package imports one of its own layer or one above it, at module level, in a
    function or for type checking alike, beyond ``BACK_ARROWS_ALLOWED``: each layer can
    be read knowing only the layers below it."""
    layer_of = {package: index for index, layer in enumerate(LAYERS) for package in layer}
    back: dict[tuple[str, str], list[str]] = {}
    for module, imported in import_graph().items():
        for target in imported:
            pair = (package_of(module), package_of(target))
            if pair[0] != pair[1] and layer_of[pair[1]] >= layer_of[pair[0]]:
                back.setdefault(pair, []).append(f"{module} -> {target}")
    assert {
        pair: sorted(found) for pair, found in back.items() if pair not in BACK_ARROWS_ALLOWED
    } == {}
    assert set(BACK_ARROWS_ALLOWED) <= set(back)  # an allowance nothing uses is gone
