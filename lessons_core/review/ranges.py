"""What ``lessons review`` compares: a base commit and a head (a commit, or the working tree).

The argument is ``BASE`` (the base against the working tree, uncommitted edits
included), ``BASE..HEAD`` or ``BASE...HEAD`` (HEAD against its merge base with BASE: what
a pull request adds, as ``lessons check`` reads the same range), or nothing (the merge
base of HEAD with the default branch, against the working tree). A ref that
names no commit is reported by name with the fix; in a shallow clone (what CI checks out
by default) the fix is to fetch more history.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from lessons_core import git
from lessons_core.git import GitError

FETCH_FIX = (
    "fetch more history: 'git fetch --deepen=200' or 'git fetch --unshallow' (in GitHub "
    "Actions, 'fetch-depth: 0' in actions/checkout)"
)


@dataclass(frozen=True)
class Range:
    base: str  # the base commit's sha
    base_ref: str  # the ref it was named by
    base_how: str  # how it was chosen, for the reader
    # The head commit's sha; None for the working tree (lesson files and code as they are
    # on disk, uncommitted edits included).
    head: str | None = None
    head_ref: str = ""

    @property
    def head_label(self) -> str:
        return self.head_ref or "the working tree"


def resolve_range(root: Path, argument: str | None) -> Range:
    """The base and head ``argument`` names (see the module docstring)."""
    if argument is None:
        ref = git.default_branch(root)
        base = _merge_base(root, "HEAD", ref)
        return Range(base, ref, f"the merge base of HEAD and {ref}")
    left, dots, right = argument.partition("...")
    if not dots:
        left, dots, right = argument.partition("..")
    if dots:
        left, right = left or "HEAD", right or "HEAD"
        head = commit(root, right)
        base = _merge_base(root, head, commit(root, left))
        return Range(base, left, f"the merge base of {left} and {right}", head, right)
    return Range(commit(root, argument), argument, f"{argument}, as given")


# What git hashes an empty tree to: the base of a repo before its first commit.
EMPTY_TREE = "4b825dc642cb6eb9a060e54bf8d69288fbee4904"


def commit(root: Path, ref: str) -> str:
    """The commit ``ref`` names, or a ``GitError`` naming it and the fix. ``HEAD`` before
    the first commit names the empty tree, so a pre-commit hook's ``lessons review HEAD``
    reviews the first commit too."""
    try:
        return git.resolve(root, ref)
    except GitError:
        pass
    if ref == "HEAD" and _unborn(root):
        return EMPTY_TREE
    if is_shallow(root):
        raise GitError(f"'{ref}' names no commit in this shallow clone of {root}; {FETCH_FIX}")
    raise GitError(
        f"'{ref}' names no commit in {root}; pass a branch, tag or sha that this clone has "
        "(a remote branch may need 'git fetch origin' first)"
    )


def _merge_base(root: Path, left: str, right: str) -> str:
    try:
        return git.merge_base(root, left, right)
    except GitError:
        pass
    for ref in (left, right):
        commit(root, ref)  # names the ref that does not resolve, with its fix
    if is_shallow(root):
        raise GitError(
            f"'{left}' and '{right}' have no common commit in this shallow clone of {root}; "
            f"{FETCH_FIX}"
        )
    raise GitError(
        f"'{left}' and '{right}' have no common commit in {root}; name the base commit "
        f"itself, e.g. 'lessons review {right}..{left}'"
    )


def _unborn(root: Path) -> bool:
    """Whether HEAD names a branch that has no commit yet."""
    try:
        git.git(root, "symbolic-ref", "-q", "HEAD")
    except GitError:
        return False
    try:
        git.git(root, "rev-parse", "--verify", "-q", "HEAD")
    except GitError:
        return True
    return False


def is_shallow(root: Path) -> bool:
    try:
        out = git.git(root, "rev-parse", "--is-shallow-repository")
    except GitError:
        return False
    return out.strip() == b"true"
