"""A labelled project rebuilt as a real git repo: every tracked path of its file list as
an empty file, then the vendored files (instruction files, CI and task files) with their
text, all committed.

The importer and validate then see what they would see in a clone: the same paths, so
that a glob matches what it matches there, and the same instruction and CI files.
"""

from __future__ import annotations

import contextlib
import os
from pathlib import Path

from lessons_core.eval.adoption_labels import LabelError, Project
from lessons_core.git import git

VENDORED = ".vendored"
_IDENTITY = ("-c", "user.name=lessons eval", "-c", "user.email=eval@localhost")


def tracked_paths(project: Project) -> list[str]:
    """The project's file list, each path checked to stay inside the repo."""
    listing = project.dir / "files.txt"
    paths = [line for line in listing.read_text(encoding="utf-8").split("\n") if line]
    for path in paths:
        _check(path, listing)
    return paths


def vendored(project: Project) -> dict[str, Path]:
    """Repo-relative path -> the fixture file holding its text."""
    folder = project.dir / "files"
    found: dict[str, Path] = {}
    for path in sorted(folder.rglob(f"*{VENDORED}")) if folder.is_dir() else []:
        name = path.relative_to(folder).as_posix().removesuffix(VENDORED)
        _check(name, path)
        found[name] = path
    return found


def materialise(project: Project, root: Path) -> None:
    """Build the project's repo in the empty folder ``root``, committed on ``main``."""
    root.mkdir(parents=True, exist_ok=True)
    git(root, "init", "-q", "-b", "main")
    texts = vendored(project)
    paths = [path for path in tracked_paths(project) if path not in texts]
    folders = sorted({path.rpartition("/")[0] for path in [*paths, *texts] if "/" in path})
    for folder in folders:
        (root / folder).mkdir(parents=True, exist_ok=True)
    for path in paths:
        _touch(root / path)
    for path, source in texts.items():
        (root / path).write_bytes(source.read_bytes())
    git(root, "add", "-A")
    git(root, *_IDENTITY, "-c", "commit.gpgsign=false", "commit", "-q", "--no-verify", "-m", "x")


def _touch(target: Path) -> None:
    """An empty file at ``target``; a path that is also a folder of the list (a submodule
    listed as a file, with files below it in the list) stays the folder."""
    with contextlib.suppress(IsADirectoryError):
        os.close(os.open(target, os.O_WRONLY | os.O_CREAT | os.O_CLOEXEC, 0o644))


def _check(path: str, where: Path) -> None:
    parts = path.split("/")
    if path.startswith("/") or any(part in ("", ".", "..", ".git") for part in parts):
        raise LabelError(f"{where}: '{path}' is not a plain repo-relative path")
