"""The lines a change adds, read from ``git diff --unified=0`` and parsed here.

What is checked is what git says the change adds, line by line, with each line's number
in the new file: the staged changes (``git diff --cached``, what a commit would record),
or the commits of a branch from its merge base with another (``git diff $(git merge-base
BASE HEAD) HEAD``, what a pull request adds; the same as ``git diff BASE...HEAD``).

The options pin down everything a user's git configuration could change about the
output: ``--no-color``, ``--no-ext-diff`` and ``--no-textconv`` (the bytes committed, not
a driver's rendering), ``-M`` (a renamed file adds only the lines it changed),
``--src-prefix``/``--dst-prefix`` (``diff.noprefix``, ``diff.mnemonicPrefix``) and
``core.quotePath`` (every name with a byte outside printable ASCII is C-quoted, so a
name that is not UTF-8 comes through byte for byte). ``--relative`` keeps the files below
the folder holding ``.lessons/``, named from it, as lesson globs are. Submodules are
left out: their "lines" are commit ids, not text of the repo.

Parsing follows the hunk headers' counts, so an added line that itself reads
``+++ b/x`` or ``diff --git`` is text, not a header. Binary files, pure renames and mode
changes have no hunks and add no lines; a deleted file adds none either; ``\\ No newline
at end of file`` is not a line.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import NamedTuple

from lessons_core.git import GitError, git

DIFF_OPTIONS = (
    "--unified=0",
    "--no-color",
    "--no-ext-diff",
    "--no-textconv",
    "--ignore-submodules=all",
    "-M",
    "--src-prefix=a/",
    "--dst-prefix=b/",
    "--relative",
)
_HUNK = re.compile(rb"^@@ -\d+(?:,(\d+))? \+(\d+)(?:,(\d+))? @@")
_OCTAL = re.compile(rb"\\([0-7]{3}|.)", re.S)
_ESCAPES = {b"a": 7, b"b": 8, b"t": 9, b"n": 10, b"v": 11, b"f": 12, b"r": 13}


class AddedLine(NamedTuple):
    """One line a change adds: its file (relative to the folder git ran in; a name that
    is not UTF-8 keeps its bytes as surrogates), its 1-based line in the new file, and
    its text (without the line break)."""

    path: str
    line: int
    text: str


class DiffRange(NamedTuple):
    """What a range check compares: the merge base and the head commit, as git names
    them, and the range as the user wrote it."""

    base: str
    head: str
    given: str


class NotARepo(GitError):
    """The folder is not in a git work tree."""


def require_repo(root: Path) -> None:
    """Raise ``NotARepo`` unless ``root`` is inside a git work tree."""
    try:
        inside = git(root, "rev-parse", "--is-inside-work-tree").strip() == b"true"
    except GitError:
        inside = False
    if not inside:
        raise NotARepo(
            f"{root} is not inside a git work tree: lessons check reads the changes from "
            "git; run it in a git checkout"
        )


def resolve_range(root: Path, given: str) -> DiffRange:
    """``BASE..HEAD``, ``BASE...HEAD`` or ``BASE`` (then HEAD is ``HEAD``), resolved; an
    empty side means ``HEAD``, as in git. ``GitError`` names the ref that resolves to no
    commit, or the two that have no merge base, and the fix."""
    base, dots, head = given.partition("...")
    if not dots:
        base, _, head = given.partition("..")
    base_sha = _commit(root, base or "HEAD")
    head_sha = _commit(root, head or "HEAD")
    try:
        merge_base = git(root, "merge-base", base_sha, head_sha).decode().strip()
    except GitError:
        raise GitError(
            f"'{base or 'HEAD'}' and '{head or 'HEAD'}' have no common commit in this clone; "
            "fetch the whole history (in GitHub Actions: actions/checkout with "
            "fetch-depth: 0), or pass two commits of one history"
        ) from None
    return DiffRange(merge_base, head_sha, given)


def _commit(root: Path, ref: str) -> str:
    try:
        return git(root, "rev-parse", "--verify", "-q", f"{ref}^{{commit}}").decode().strip()
    except GitError:
        raise GitError(
            f"'{ref}' names no commit in {root}; fetch it first (git fetch origin, or in "
            "GitHub Actions actions/checkout with fetch-depth: 0), or pass a branch, tag "
            "or sha"
        ) from None


def added_lines(root: Path, commits: DiffRange | None = None) -> Iterator[AddedLine]:
    """The lines the staged changes add (``commits`` None), or those the head of
    ``commits`` adds since its base, below ``root``."""
    where = ("--cached",) if commits is None else (commits.base, commits.head)
    out = git(root, "-c", "core.quotePath=true", "diff", *DIFF_OPTIONS, *where, "--")
    return parse_diff(out)


def parse_diff(out: bytes) -> Iterator[AddedLine]:
    """The added lines of ``git diff --unified=0`` output made with ``DIFF_OPTIONS``."""
    path: str | None = None
    lines = out.split(b"\n")
    position = 0
    while position < len(lines):
        line = lines[position]
        position += 1
        if line.startswith(b"diff --git "):
            path = None
        elif line.startswith(b"+++ "):
            path = _new_path(line[4:])
        elif (hunk := _HUNK.match(line)) is not None:
            old_count = 1 if hunk[1] is None else int(hunk[1])
            number = int(hunk[2])
            new_count = 1 if hunk[3] is None else int(hunk[3])
            while (old_count > 0 or new_count > 0) and position < len(lines):
                body = lines[position]
                position += 1
                if body.startswith(b"+"):
                    new_count -= 1
                    if path is not None:
                        yield AddedLine(path, number, _text(body[1:]))
                    number += 1
                elif body.startswith(b"-"):
                    old_count -= 1
                elif body.startswith(b" "):  # context, with --unified above 0
                    old_count -= 1
                    new_count -= 1
                    number += 1
                # "\ No newline at end of file" counts as no line


def _new_path(raw: bytes) -> str | None:
    """The file name of a ``+++`` line; None for ``/dev/null`` (a deleted file)."""
    # git ends an unquoted name holding a space with a tab (a name ending in a real tab
    # is quoted instead).
    name = unquote(raw) if raw.startswith(b'"') else raw.removesuffix(b"\t")
    if not name.startswith(b"b/"):
        return None
    return name[2:].decode("utf-8", "surrogateescape")


def unquote(quoted: bytes) -> bytes:
    """A name git C-quoted (``"caf\\303\\251.txt"``), as the bytes it stands for."""
    inner = quoted.strip()[1:-1] if quoted.strip().endswith(b'"') else quoted.strip()[1:]

    def byte(found: re.Match[bytes]) -> bytes:
        escape = found[1]
        if len(escape) == 3:
            return bytes([int(escape, 8)])
        return bytes([_ESCAPES[escape]]) if escape in _ESCAPES else escape

    return _OCTAL.sub(byte, inner)


def _text(body: bytes) -> str:
    """A line's text for matching: UTF-8, an invalid byte as U+FFFD, a CR of a CRLF
    line dropped."""
    return body.removesuffix(b"\r").decode("utf-8", "replace")
