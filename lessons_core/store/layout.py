"""Where things live: finding ``.lessons/`` and naming the files under it."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

from lessons_core.containment import LeavesRepo, is_within, leaving_part, require_inside
from lessons_core.errors import LessonsError, NotInitialised

if TYPE_CHECKING:
    from collections.abc import Sequence
    from pathlib import Path

    from lessons_core.errors import StrPath

DIR_NAME = ".lessons"
# Every file and folder lessons keeps in .lessons/local/ (per clone, never committed), each
# named here once; ``Layout.local`` gives its place.
LOCAL = "local"
SESSIONS = "sessions"  # a folder: one file per session (lessons_core.session.state)
HOOK_LOG = "hook.log"  # a hook's failures (lessons_core.delivery.hooklog)
STORE_LOCK = "store.lock"  # held while the store is written (Layout.lock_path)
LAUNCH = "launch"  # where .lessons/run found lessons (lessons_core/store/launcher.sh)
INDEX_CACHE = "recall-index.bin"  # the cached recall index (lessons_core.index.cache)
INDEX_LOCK = "recall-index.lock"  # held while the cache is rebuilt
# Which share of a large store's files the next hook checks (lessons_core.index.cache).
CHECK_WINDOW = "check-window"
TELEMETRY_LOG = "telemetry.jsonl"  # opt-in telemetry (lessons_core.telemetry.log)
TELEMETRY_ROTATED = "telemetry.1.jsonl"  # the log before the current one
TELEMETRY_LOCK = "telemetry.lock"  # held while the log rotates
REPO_FILES = "repo-files.txt"  # git's tracked files (lessons_core.recall.prompt_files)
LOCAL_FILES = (
    SESSIONS, HOOK_LOG, STORE_LOCK, LAUNCH, INDEX_CACHE, INDEX_LOCK, CHECK_WINDOW,
    TELEMETRY_LOG, TELEMETRY_ROTATED, TELEMETRY_LOCK, REPO_FILES,
)  # fmt: skip


class Layout:
    """Paths of one project's lesson store. ``root`` is the repo root (parent of .lessons).

    ``top`` and ``under`` give the same places as strings, for code that runs in a hook.
    """

    __slots__ = ("top",)
    # The mode of the files the store writes; None: what a plain open() gives (the
    # personal store's are private: ``lessons_core.store.sources``).
    file_mode: int | None = None

    def __init__(self, root: StrPath) -> None:
        self.top: str = os.fspath(root)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Layout) and os.path.normpath(self.top) == os.path.normpath(
            other.top
        )

    def __hash__(self) -> int:
        return hash(os.path.normpath(self.top))

    def __repr__(self) -> str:
        return f"Layout({self.top!r})"

    def under(self, *parts: str) -> str:
        """``.lessons/<parts>`` as a string: ``under("local", "hook.log")``."""
        return os.path.join(self.top, DIR_NAME, *parts)

    @property
    def root(self) -> Path:
        return _path(self.top)

    @property
    def base(self) -> Path:
        return _path(self.under())

    @property
    def lessons_dir(self) -> Path:
        return _path(self.under("lessons"))

    @property
    def topics_dir(self) -> Path:
        return _path(self.under("topics"))

    @property
    def config_file(self) -> str:
        """``.lessons/config.json`` as a string: what a hook loads (``config_path`` as a
        ``Path``)."""
        return self.under("config.json")

    @property
    def config_path(self) -> Path:
        return _path(self.config_file)

    @property
    def local_dir(self) -> Path:
        """Per-clone state: never committed (``init`` writes the .gitignore)."""
        return _path(self.under(LOCAL))

    @property
    def lock_path(self) -> Path:
        return _path(self.local(STORE_LOCK))

    def local(self, name: str) -> str:
        """``.lessons/local/<name>`` as a string, for one of ``LOCAL_FILES``."""
        return self.under(LOCAL, name)

    def lesson_path(self, lesson_id: str) -> Path:
        return _path(self.under("lessons", f"{lesson_id}.json"))


def _path(text: str) -> Path:
    """``text`` as a ``Path``, for the command line: a hook keeps to strings (``top``,
    ``under``) and never loads pathlib."""
    from pathlib import Path  # noqa: PLC0415 (the CLI's only: a hook keeps to strings)

    return Path(text)


_SH_SAFE = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789@%+=:,./-_")


def lessons_command(layout: Layout) -> str:
    """How a shell runs lessons for this store, in any install mode.

    The committed launcher by its absolute path (``sh /repo/.lessons/run``), which finds
    the install even where ``lessons`` is not on the agent's ``PATH`` (a project venv, or
    pipx's ``~/.local/bin`` missing from a harness's environment); plain ``lessons`` for a
    store made before the launcher.
    """
    launcher = layout.under("run")
    if not os.path.isfile(launcher):
        return "lessons"
    if not all(char in _SH_SAFE for char in launcher):
        launcher = "'" + launcher.replace("'", "'\\''") + "'"
    return f"sh {launcher}"


def find_layout(start: StrPath | None = None) -> Layout:
    """Walk up from ``start`` (default: the working directory) to the nearest ``.lessons/``."""
    found = find_root(start)
    if found is None:
        raise NotInitialised(start or os.getcwd())
    return contained(Layout(found))


def _leaving_folder(layout: Layout) -> tuple[str, str] | None:
    """The first folder of the store that leads out of the repo, and where it leads: a
    symbolic link on it, or on a folder above it below the repo root.

    A cloned repo could commit ``.lessons/local`` (or ``.lessons``) as a link to anywhere;
    lessons writes session files, locks and logs there, so such a store is not used at
    all. Links that stay inside the repo are fine. Costs one ``lstat`` a folder when
    nothing is a link, which is the common case.
    """
    folders = tuple(
        layout.under(*parts)
        for parts in ((), ("lessons",), ("topics",), (LOCAL,), (LOCAL, SESSIONS))
    )
    if not any(os.path.islink(folder) for folder in folders):
        return None
    for folder in folders:
        found = leaving_part(folder, layout.top)
        if found is not None:
            return found
    return None


def contained(layout: Layout) -> Layout:
    """``layout``, once no folder of its store leads out of the repo (``LeavesRepo``)."""
    found = _leaving_folder(layout)
    if found is not None:
        raise LeavesRepo(*found, fix="replace the link with a folder")
    return layout


def find_root(start: StrPath | None = None) -> str | None:
    """The nearest directory at or above ``start`` holding ``.lessons/``, or None.

    The walk stops at the top of the git work tree (the first folder with ``.git``, a
    folder or, for worktrees and submodules, a file): a store above the repository is
    never used, while nested stores in a monorepo are. Outside git it walks to ``/`` but
    never takes a store in the home folder, which would otherwise serve every project
    under it. One extra ``stat`` a level below the store; none at the store itself.
    """
    here = os.path.abspath(start or os.getcwd())
    if os.path.isfile(here):
        here = os.path.dirname(here)
    home = os.environ.get("HOME") or "/"
    while True:
        if os.path.isdir(os.path.join(here, DIR_NAME)) and not _same_folder(here, home):
            return here
        if os.path.exists(os.path.join(here, ".git")):
            return None
        parent = os.path.dirname(here)
        if parent == here:
            return None
        here = parent


def _same_folder(one: str, other: str) -> bool:
    """Whether two paths name one folder, through links too (a linked $HOME)."""
    try:
        return os.path.samefile(one, other)
    except OSError:
        return False


def repo_relative(path: str, root: StrPath, cwd: StrPath | None = None) -> str | None:
    """Normalise ``path`` to a POSIX path relative to ``root``; None when it lies outside.

    Accepts relative (to ``cwd``) or absolute paths, ``./x``, and Windows backslashes.
    """
    cleaned = path.replace("\\", "/").strip()
    if not cleaned:
        return None
    base = os.fspath(cwd) if cwd is not None else os.getcwd()
    absolute = os.path.normpath(os.path.join(base, cleaned))
    try:
        rel = os.path.relpath(absolute, os.fspath(root))
    except ValueError:
        return None
    rel = rel.replace(os.sep, "/")
    if rel in {".", ".."} or rel.startswith("../"):
        return None
    return rel


def layout_for_files(paths: Sequence[str], cwd: Path) -> tuple[Layout, tuple[str, ...]]:
    """The nearest ``.lessons/`` above ``paths`` (above ``cwd`` when there are none), and the
    paths relative to its root. In a monorepo each package may have its own store; every
    path must belong to the same one. A store below ``cwd``'s must be reached without a
    link out of it (``LeavesRepo``).
    """
    if not paths:
        return find_layout(cwd), ()
    roots: dict[str, list[str]] = {}
    for path in paths:
        absolute = os.path.normpath(os.path.join(str(cwd), path.replace("\\", "/")))
        root = find_root(absolute)
        if root is None:
            raise NotInitialised(os.path.dirname(absolute))
        roots.setdefault(root, []).append(path)
    if len(roots) > 1:
        stores = "; ".join(f"{', '.join(found)} -> {root}" for root, found in roots.items())
        raise LessonsError(
            f"the files belong to different lesson stores ({stores}); query each store separately"
        )
    root = next(iter(roots))
    here = find_root(cwd)
    if here is not None and root != here and is_within(root, here):
        # A nested store reached through a link (vendor -> ../other) is another repo's.
        require_inside(root, here, fix="pass the file by the path it has in that repo")
    relative = []
    for path in paths:
        rel = repo_relative(path, root, cwd)
        if rel is None:
            raise LessonsError(f"'{path}' is not inside {root}; pass a file in the repo")
        relative.append(rel)
    return contained(Layout(root)), tuple(dict.fromkeys(relative))
