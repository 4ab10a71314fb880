"""Where things live: finding ``.lessons/`` and naming the files under it."""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path
from typing import NamedTuple

from lessons_core.errors import LessonsError, NotInitialised

DIR_NAME = ".lessons"


class Layout(NamedTuple):
    """Paths of one project's lesson store. ``root`` is the repo root (parent of .lessons)."""

    root: Path

    @property
    def base(self) -> Path:
        return self.root / DIR_NAME

    @property
    def lessons_dir(self) -> Path:
        return self.base / "lessons"

    @property
    def topics_dir(self) -> Path:
        return self.base / "topics"

    @property
    def config_path(self) -> Path:
        return self.base / "config.json"

    @property
    def local_dir(self) -> Path:
        """Per-clone state: never committed (``init`` writes the .gitignore)."""
        return self.base / "local"

    @property
    def lock_path(self) -> Path:
        return self.local_dir / "store.lock"

    def lesson_path(self, lesson_id: str) -> Path:
        return self.lessons_dir / f"{lesson_id}.json"


def find_layout(start: Path | None = None) -> Layout:
    """Walk up from ``start`` (default: the working directory) to the nearest ``.lessons/``."""
    found = find_root(start)
    if found is None:
        raise NotInitialised(Path(start or os.getcwd()))
    return contained(Layout(found))


def escaping_link(layout: Layout) -> Path | None:
    """The first folder of the store that is a symbolic link leading out of the repo.

    A cloned repo could commit ``.lessons/local`` (or ``.lessons``) as a link to anywhere;
    lessons writes session files, locks and logs there, so such a store is not used at
    all. Links that stay inside the repo are fine. Costs one ``lstat`` a folder when
    nothing is a link, which is the common case.
    """
    folders = (
        layout.base,
        layout.lessons_dir,
        layout.topics_dir,
        layout.local_dir,
        layout.local_dir / "sessions",  # lessons_core.sessions keeps its files here
    )
    if not any(os.path.islink(folder) for folder in folders):
        return None
    root = Path(os.path.realpath(layout.root))
    for folder in folders:
        if not Path(os.path.realpath(folder)).is_relative_to(root):
            return folder
    return None


def contained(layout: Layout) -> Layout:
    """``layout``, once no folder of its store leads out of the repo (``LessonsError``)."""
    link = escaping_link(layout)
    if link is not None:
        raise LessonsError(
            f"{link} is a symbolic link to {os.path.realpath(link)}, outside the repo; "
            "lessons only reads and writes inside it: replace the link with a folder"
        )
    return layout


def find_root(start: Path | None = None) -> Path | None:
    """The nearest directory at or above ``start`` holding ``.lessons/``, or None."""
    here = Path(os.path.abspath(start or os.getcwd()))
    if here.is_file():
        here = here.parent
    for candidate in (here, *here.parents):
        if (candidate / DIR_NAME).is_dir():
            return candidate
    return None


def repo_relative(path: str, root: Path, cwd: Path | None = None) -> str | None:
    """Normalise ``path`` to a POSIX path relative to ``root``; None when it lies outside.

    Accepts relative (to ``cwd``) or absolute paths, ``./x``, and Windows backslashes.
    """
    cleaned = path.replace("\\", "/").strip()
    if not cleaned:
        return None
    base = cwd if cwd is not None else Path(os.getcwd())
    absolute = os.path.normpath(os.path.join(str(base), cleaned))
    try:
        rel = os.path.relpath(absolute, str(root))
    except ValueError:
        return None
    rel = rel.replace(os.sep, "/")
    if rel in {".", ".."} or rel.startswith("../"):
        return None
    return rel


def layout_for_files(paths: Sequence[str], cwd: Path) -> tuple[Layout, tuple[str, ...]]:
    """The nearest ``.lessons/`` above ``paths`` (above ``cwd`` when there are none), and the
    paths relative to its root. In a monorepo each package may have its own store; every
    path must belong to the same one.
    """
    if not paths:
        return find_layout(cwd), ()
    roots: dict[Path, list[str]] = {}
    for path in paths:
        absolute = Path(os.path.normpath(os.path.join(str(cwd), path.replace("\\", "/"))))
        root = find_root(absolute)
        if root is None:
            raise NotInitialised(absolute.parent)
        roots.setdefault(root, []).append(path)
    if len(roots) > 1:
        stores = "; ".join(f"{', '.join(found)} -> {root}" for root, found in roots.items())
        raise LessonsError(
            f"the files belong to different lesson stores ({stores}); query each store separately"
        )
    root = next(iter(roots))
    relative = []
    for path in paths:
        rel = repo_relative(path, root, cwd)
        if rel is None:
            raise LessonsError(f"'{path}' is not inside {root}; pass a file in the repo")
        relative.append(rel)
    return contained(Layout(root)), tuple(dict.fromkeys(relative))
