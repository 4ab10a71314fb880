"""The language of a repo, or of one of its folders, by the manifest nearest to it.

A Python project's ``frontend/`` with its own ``package.json`` holds TypeScript; a Rust
or Go project often keeps a ``package.json`` for its tooling beside its ``Cargo.toml``
or ``go.mod``, which says what the project is written in.
"""

from __future__ import annotations

import posixpath

# The manifests that name a language, in the order a root's are read.
_MANIFESTS = (
    ("Cargo.toml", "rust"),
    ("go.mod", "go"),
    ("pyproject.toml", "python"),
    ("setup.py", "python"),
    ("package.json", "javascript"),
)


def main_language(paths: list[str]) -> str | None:
    """The language of the repo's root manifest (``Cargo.toml``, ``go.mod``,
    ``pyproject.toml``, ``package.json``, first found in that order: a Rust or Go project
    often keeps a ``package.json`` for its tooling), or None."""
    return folder_language(paths, "")


def folder_language(paths: list[str], base: str) -> str | None:
    """The language of the nearest manifest at or above ``base`` ("" or "web/app/"): a
    Python project's ``frontend/`` with its own ``package.json`` holds TypeScript, and its
    tests are ``*.test.ts``, not ``test_*.py``."""
    folder = base.rstrip("/")
    while True:
        prefix = f"{folder}/" if folder else ""
        present = {
            path for path in paths if path.startswith(prefix) and "/" not in path[len(prefix) :]
        }
        found = next((lang for name, lang in _MANIFESTS if prefix + name in present), None)
        if found or not folder:
            return found
        folder = posixpath.dirname(folder)
