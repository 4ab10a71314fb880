"""A pack's lesson files at a commit of the repository that holds it, for ``lessons
review``: from the repository's own tree for a vendored copy or a subtree, and for a git
submodule from the submodule's repository, at the commit the superproject records for
it at that revision. A submodule bump is then reviewed as the lesson changes it brings.
"""

from __future__ import annotations

from pathlib import Path

from lessons_core import git

GITLINK = "160000"  # the mode git records a submodule's commit with


def pack_files_at(root: Path, rev: str, pack: str) -> dict[str, bytes]:
    """Every file under ``pack``'s ``lessons/`` at ``rev`` of the repository at ``root``:
    repo-relative name -> content. A submodule whose commit its clone lacks (never
    fetched there) has none: ``lessons review`` then shows its lessons as added."""
    entry = git.git(root, "ls-tree", "-z", rev, "--", pack).decode().split("\0")[0]
    meta, _tab, _path = entry.partition("\t")
    fields = meta.split()
    if len(fields) == 3 and fields[0] == GITLINK:
        inside = root / pack
        try:
            found = git.files_at(inside, fields[2], "lessons")
        except git.GitError:
            return {}
        return {f"{pack}/{name}": data for name, data in found.items()}
    return git.files_at(root, rev, f"{pack}/lessons")
