"""docs/architecture.md is the map of the code: it names every module."""

from __future__ import annotations

import re
from pathlib import Path

import lessons_cli
import lessons_core

DOC = Path(lessons_core.__file__).parents[1] / "docs" / "architecture.md"


def modules() -> list[str]:
    """Every module and package of lessons_core and lessons_cli, dotted."""
    found = []
    for package in (lessons_core, lessons_cli):
        root = Path(package.__path__[0]).parent  # the checkout, or its cli/ folder
        for path in sorted(Path(package.__path__[0]).rglob("*.py")):
            parts = path.relative_to(root).with_suffix("").parts
            found.append(".".join(parts[:-1] if parts[-1] == "__init__" else parts))
    return found


def named(module: str, text: str) -> bool:
    """Named in full (``lessons_core.recall.rank``), or as a `leaf` beside its package's name
    (``lessons_cli.commands`` ... ``add``), the way the page lists a package's modules."""
    package, _, leaf = module.rpartition(".")
    return f"`{module}`" in text or (
        bool(package) and f"`{package}`" in text and f"`{leaf}`" in text
    )


def test_the_architecture_page_names_every_module() -> None:
    """A module added without a place on the map fails here: give it one in
    docs/architecture.md, under the concept it belongs to."""
    text = DOC.read_text()
    assert len(modules()) > 90
    assert [module for module in modules() if not named(module, text)] == []


def test_the_architecture_page_names_no_module_that_is_gone() -> None:
    """Every `lessons_core.X` / `lessons_cli.X` the page names is a module, or an
    attribute of one (`lessons_cli.hook_runner.run_hook`)."""
    text = DOC.read_text()
    known = set(modules())
    mentioned = set(re.findall(r"`(lessons_(?:core|cli)\.[\w.]+)`", text))
    assert len(mentioned) > 50
    assert {
        name for name in mentioned if name not in known and name.rpartition(".")[0] not in known
    } == set()
