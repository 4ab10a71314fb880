"""The programs a project builds: its own command line, named in its rules.

"DO NOT use `bd edit`" names a command of the project itself (beads builds `bd` from
`cmd/bd/`), which no list of developer tools holds and which need not be installed on
the machine that imports the rule. The names come from the project's own files only:

- Go: a folder ``cmd/NAME/`` holding a ``main.go``;
- Rust: a ``[[bin]]`` name of a ``Cargo.toml``, or the package's name where it has a
  ``src/main.rs``;
- Python: the keys of ``[project.scripts]`` in a ``pyproject.toml``;
- JavaScript: the ``bin`` of a ``package.json`` (its keys, or the package's name).

A manifest that cannot be read, or that leads out of the repo through a link, gives no
name: the import judges the rule without it.
"""

from __future__ import annotations

import json
import posixpath
import re
import sys
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from lessons_core.fsutil import read_repo_text
from lessons_core.project_commands import MAX_FILE_BYTES

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - the test matrix runs 3.11
    import tomli as tomllib

# A program's name as a rule writes it in a code span.
_NAME = re.compile(r"^[A-Za-z][\w.-]*$")


def own_programs(root: Path, paths: Iterable[str]) -> frozenset[str]:
    """The names of the programs the project at ``root`` (tracking ``paths``) builds."""
    tracked = set(paths)
    names: set[str] = set()
    for path in tracked:
        folder, name = posixpath.split(path)
        if name == "main.go" and posixpath.basename(posixpath.dirname(folder)) == "cmd":
            names.add(posixpath.basename(folder))
        elif name == "Cargo.toml":
            names.update(
                _cargo(_toml(root, path), posixpath.join(folder, "src/main.rs") in tracked)
            )
        elif name == "pyproject.toml":
            names.update(_table(_table(_toml(root, path), "project"), "scripts"))
        elif name == "package.json":
            names.update(_package_bin(_json(root, path)))
    return frozenset(name for name in names if _NAME.match(name))


def _cargo(manifest: dict[str, Any], has_main: bool) -> list[str]:
    bins = manifest.get("bin")
    names = [b.get("name") for b in bins if isinstance(b, dict)] if isinstance(bins, list) else []
    package = _table(manifest, "package").get("name")
    if has_main:
        names.append(package)
    return [name for name in names if isinstance(name, str)]


def _package_bin(package: dict[str, Any]) -> list[str]:
    found = package.get("bin")
    if isinstance(found, dict):
        return [name for name in found if isinstance(name, str)]
    name = package.get("name")
    if isinstance(found, str) and isinstance(name, str):
        return [name.rsplit("/", 1)[-1]]  # "@scope/tool" installs "tool"
    return []


def _table(data: dict[str, Any], key: str) -> dict[str, Any]:
    found = data.get(key)
    return found if isinstance(found, dict) else {}


def _toml(root: Path, path: str) -> dict[str, Any]:
    try:
        found: dict[str, Any] = tomllib.loads(read_repo_text(root, path, MAX_FILE_BYTES) or "")
    except tomllib.TOMLDecodeError:
        return {}
    return found


def _json(root: Path, path: str) -> dict[str, Any]:
    try:
        found = json.loads(read_repo_text(root, path, MAX_FILE_BYTES) or "{}")
    except ValueError:
        return {}
    return found if isinstance(found, dict) else {}
