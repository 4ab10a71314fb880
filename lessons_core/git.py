"""The few git questions review and validate ask, answered by the ``git`` program."""

from __future__ import annotations

import subprocess
from pathlib import Path
from typing import NamedTuple

from lessons_core.errors import LessonsError


class GitError(LessonsError):
    """git failed or is missing; the message carries git's own words."""


def git(root: Path, *args: str, input_bytes: bytes | None = None) -> bytes:
    """Run ``git args`` in ``root``; raise ``GitError`` with git's message on failure."""
    try:
        result = subprocess.run(
            ["git", *args],
            cwd=root,
            input=input_bytes,
            capture_output=True,
            check=False,
            timeout=120,
        )
    except (OSError, subprocess.SubprocessError) as err:
        raise GitError(f"could not run git in {root}: {err}") from None
    if result.returncode != 0:
        message = result.stderr.decode(errors="replace").strip() or f"exit {result.returncode}"
        raise GitError(f"'git {' '.join(args)}' failed in {root}: {message}")
    return result.stdout


def prefix(root: Path) -> str:
    """``root``'s folder inside its git checkout (``''`` at the top, or outside git)."""
    try:
        return git(root, "rev-parse", "--show-prefix").decode().strip()
    except GitError:
        return ""


def top_level(root: Path) -> Path | None:
    """The top of the git work tree holding ``root``, or None outside git."""
    try:
        out = git(root, "rev-parse", "--show-toplevel").decode().strip()
    except GitError:
        return None
    return Path(out) if out else None


def main_checkout(root: Path) -> Path | None:
    """The checkout holding the common git directory of ``root``'s work tree (for a linked
    worktree, its main checkout; else the work tree itself), or None outside git."""
    try:
        out = git(root, "rev-parse", "--path-format=absolute", "--git-common-dir")
    except GitError:
        return None
    common = Path(out.decode().strip())
    return common.parent.resolve() if common.name == ".git" else None


def default_branch(root: Path) -> str:
    """origin/HEAD's branch if the clone knows it, else ``main`` or ``master``."""
    try:
        ref = git(root, "symbolic-ref", "-q", "--short", "refs/remotes/origin/HEAD")
        return ref.decode().strip()
    except GitError:
        pass
    for candidate in ("main", "master", "origin/main", "origin/master"):
        try:
            git(root, "rev-parse", "--verify", "-q", f"{candidate}^{{commit}}")
        except GitError:
            continue
        return candidate
    raise GitError(
        "no default branch found (no origin/HEAD, main or master); "
        "name the base, e.g. 'lessons review HEAD~3'"
    )


def merge_base(root: Path, left: str, right: str) -> str:
    return git(root, "merge-base", left, right).decode().strip()


def resolve(root: Path, rev: str) -> str:
    """The commit ``rev`` names; a ``GitError`` that says so when it names none."""
    try:
        return git(root, "rev-parse", "--verify", "-q", f"{rev}^{{commit}}").decode().strip()
    except GitError:
        raise GitError(f"'{rev}' names no commit in {root}; pass a branch, tag or sha") from None


def files_at(root: Path, rev: str, folder: str) -> dict[str, bytes]:
    """Every file under ``folder`` (repo-relative to ``root``) at ``rev``: name -> content."""
    top = prefix(root)
    listing = git(root, "ls-tree", "-r", "-z", "--full-name", "--name-only", rev, "--", folder)
    names = [name for name in listing.decode().split("\0") if name]
    if not names:
        return {}
    blobs = read_blobs(root, [f"{rev}:{name}" for name in names])
    found = zip(names, blobs, strict=True)
    return {name[len(top) :]: blob for name, blob in found if blob is not None}


def read_blobs(root: Path, objects: list[str]) -> list[bytes | None]:
    """The content of each object named in ``objects`` (``REV:PATH``), in order; None
    for one that is missing or is not a file. One ``cat-file --batch`` reads them all
    in a single process."""
    request = "".join(f"{name}\n" for name in objects).encode("utf-8", "surrogateescape")
    out = git(root, "cat-file", "--batch", input_bytes=request)
    contents: list[bytes | None] = []
    position = 0
    for _name in objects:
        header_end = out.index(b"\n", position)
        header = out[position:header_end].split()
        position = header_end + 1
        if len(header) < 3 or header[1] != b"blob":  # "missing", or a folder or submodule
            contents.append(None)
            continue
        size = int(header[2])
        contents.append(out[position : position + size])
        position += size + 1  # the blob is followed by a newline
    return contents


class Change(NamedTuple):
    """One file a commit changed: git's status letter (A, M, D, R, C, T), the path before
    (renames and copies; else the same) and after, relative to the folder git ran in."""

    status: str
    old: str
    new: str


class Commit(NamedTuple):
    sha: str
    time: int  # committer time, seconds since the epoch
    changes: tuple[Change, ...]


def recent_commits(root: Path, limit: int) -> list[Commit]:
    """The last ``limit`` commits of HEAD, newest first, with the files each changed under
    ``root`` (paths relative to it; renames detected; merges list no files, so a change
    is counted once, on the branch that made it). One ``git log`` for the whole window.
    ``GitError`` outside git or before the first commit."""
    out = git(
        root,
        "log",
        "-z",
        "-M",
        "--relative",
        "--name-status",
        "--format=%x01%H %ct",
        f"--max-count={limit}",
        "HEAD",
        "--",
    )
    commits: list[Commit] = []
    for chunk in out.split(b"\x01")[1:]:
        header, _, body = chunk.partition(b"\0")
        sha, _, stamp = header.decode().partition(" ")
        fields = body.lstrip(b"\n").split(b"\0")
        changes: list[Change] = []
        position = 0
        while position < len(fields) and fields[position]:
            status = fields[position].decode()[:1]
            paths = 2 if status in "RC" else 1
            names = [
                name.decode(errors="surrogateescape")
                for name in fields[position + 1 : position + 1 + paths]
            ]
            changes.append(Change(status, names[0], names[-1]))
            position += 1 + paths
        commits.append(Commit(sha, int(stamp or 0), tuple(changes)))
    return commits
