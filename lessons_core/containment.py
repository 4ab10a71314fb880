"""Paths that must stay inside the repo: the one check every read of project content and
every write of lessons makes before it touches a path.

A cloned repo can commit a symbolic link anywhere: ``.claude -> ~/.claude``,
``.cursor/rules/team.mdc -> ~/.aws/credentials``, ``.lessons -> /elsewhere``. Checking
only the last part of a path misses a link on a folder above it, so ``leaving_part``
walks the path from the repo root one name at a time and returns the first part that
resolves outside it (a link, or a ``..`` after one). A link that stays inside the repo is
fine: ``CLAUDE.md -> AGENTS.md`` keeps working.

The hook calls this through ``lessons_core.store.layout.contained`` on every tool call,
so it imports nothing beyond ``os`` and ``stat`` and costs one ``lstat`` a part when no
part is a link.
"""

from __future__ import annotations

import os
import stat
from typing import TYPE_CHECKING

from lessons_core.errors import LessonsError

if TYPE_CHECKING:
    from lessons_core.errors import StrPath


def is_within(path: str, folder: str) -> bool:
    """Whether ``path`` is ``folder`` or lies below it, by name (both absolute, normalised)."""
    return path == folder or path.startswith(folder.rstrip(os.sep) + os.sep)


def leaving_part(path: StrPath, root: StrPath) -> tuple[str, str] | None:
    """The first part of ``path`` that resolves outside ``root``, and where it leads; None
    when every part stays inside.

    ``path`` is absolute or relative to ``root``; one that does not lie below ``root`` by
    name leaves it as a whole (it is its own first part). Parts are ``root`` joined with
    one more name of ``path`` at a time, as written: a ``..`` is resolved after the link
    before it, as the kernel does. A part that does not exist ends the walk (nothing below
    it can lead anywhere); the caller then creates plain folders and files inside.
    """
    top = os.path.normpath(os.path.abspath(os.fspath(root)))
    full = os.path.join(top, os.fspath(path))
    if full != top and not full.startswith(top + os.sep):
        # Not written as below root ("/repo/../repo/x", "//repo/x"): it leaves unless both
        # its name, normalised, and what it resolves to are inside; then walk the name.
        real = os.path.realpath(full)
        full = os.path.normpath(os.path.abspath(full))
        if not (is_within(full, top) and is_within(real, os.path.realpath(top))):
            return full, real
    rest = full[len(top) :].split(os.sep)
    real_top: str | None = None
    here = top
    for name in rest:
        if name in ("", "."):
            continue
        here = os.path.join(here, name)
        if name != "..":
            try:
                if not stat.S_ISLNK(os.lstat(here).st_mode):
                    continue
            except OSError:
                return None
        real_top = real_top or os.path.realpath(top)
        real = os.path.realpath(here)
        if not is_within(real, real_top):
            return here, real
    return None


def outside_reason(part: str, target: str) -> str:
    """``part`` and where it leads, as a message names them."""
    how = "is a symbolic link to" if os.path.islink(part) else "leads to"
    return f"{part} {how} {target}, outside the repo"


class LeavesRepo(LessonsError):
    """A path of the repo whose part ``part`` leads to ``target``, outside the repo."""

    def __init__(self, part: str, target: str, fix: str) -> None:
        self.part = part
        self.target = target
        self.reason = outside_reason(part, target)
        super().__init__(f"{self.reason}; lessons only reads and writes inside it: {fix}")


def require_inside(
    path: StrPath, root: StrPath, fix: str = "replace the link with a folder or file of its own"
) -> None:
    """Raise ``LeavesRepo`` naming the first part of ``path`` that leads out of ``root``."""
    found = leaving_part(path, root)
    if found is not None:
        raise LeavesRepo(*found, fix=fix)
