"""Which of the files lessons wrote a plain ``git add`` would leave out, and the fix.

A repo that ignores ``.codex/*`` or ``.mcp.json`` makes ``git add .codex/hooks.json``
fail, so the hooks never reach a teammate's clone. git itself answers which paths its
ignore rules cover (``git check-ignore``, which counts a tracked file as not ignored) and
by which line; the fix names both ways out: ``git add -f`` once (a tracked file is no
longer ignored), or a ``!path`` line after the rule, which git honours only when no
folder above the file is itself ignored.
"""

from __future__ import annotations

from pathlib import Path
from typing import NamedTuple

from lessons_core.git import GitError, git


class Ignored(NamedTuple):
    path: str  # as asked, relative to the root
    source: str  # the ignore file and line: ".gitignore:3"
    pattern: str  # the rule there: ".codex/*"
    folder_ignored: bool  # a folder above it is ignored: a "!" line cannot bring it back

    def fix(self) -> str:
        """How to commit it anyway, in one sentence."""
        forced = f"git add -f -- '{self.path}'"
        if self.folder_ignored:
            return f"{forced} (once tracked, the ignore rule no longer applies to it)"
        return (
            f"{forced} (once tracked, the ignore rule no longer applies to it), or add the "
            f"line '!{self.path}' after '{self.pattern}' in {self.source.rsplit(':', 1)[0]}"
        )

    def said(self) -> str:
        return f"{self.path} is ignored by git ({self.source}: {self.pattern})"


def ignored(root: Path, paths: list[str]) -> list[Ignored]:
    """The ``paths`` (relative to ``root``, the work tree's top) that git would not add
    without ``-f``, in the order given; none outside git or when git cannot say."""
    if not paths:
        return []
    folders = sorted({str(Path(p).parent) for p in paths} - {"."})
    parents = {f for part in folders for f in _chain(part)}
    found = _check(root, [*paths, *sorted(parents)])
    ignored_folders = {p for p in parents if p in found}
    out = []
    for path in paths:
        if path not in found:
            continue
        source, pattern = found[path]
        above = any(folder in ignored_folders for folder in _chain(str(Path(path).parent)))
        out.append(Ignored(path, source, pattern, above))
    return out


def _chain(folder: str) -> list[str]:
    """``a/b`` -> ``a``, ``a/b`` (none for the top)."""
    parts = Path(folder).parts if folder not in ("", ".") else ()
    return ["/".join(parts[:n]) for n in range(1, len(parts) + 1)]


def _check(root: Path, paths: list[str]) -> dict[str, tuple[str, str]]:
    """path -> (source:line, pattern) for each of ``paths`` an ignore rule covers; a
    negated match (``!x``) means not ignored."""
    try:
        out = git(root, "check-ignore", "-v", "-z", "--stdin", input_bytes=_z(paths))
    except GitError:  # exit 1: nothing ignored; or not a repo, or no git
        return {}
    fields = out.decode("utf-8", "surrogateescape").split("\0")
    found: dict[str, tuple[str, str]] = {}
    for at in range(0, len(fields) - 3, 4):
        source, line, pattern, path = fields[at : at + 4]
        if not pattern.startswith("!"):
            found[path] = (f"{source}:{line}", pattern)
    return found


def _z(paths: list[str]) -> bytes:
    return "".join(f"{p}\0" for p in paths).encode("utf-8", "surrogateescape")
