"""The code a range changes, read from git: the files, the lines each adds, and the text
of the files whose added commands are looked for.

A few git calls whatever the size of the diff: ``diff --name-status`` for every changed
file, ``diff --unified=0`` only for the files the review needs lines of (their paths
taken literally, a thousand a call), and one ``cat-file --batch`` for the script files'
text at the head commit. With the working tree as head, the script files are read from
disk instead, each only if no part of its path leads out of the repo and it is a regular
file.
"""

from __future__ import annotations

import stat
from collections.abc import Iterable
from pathlib import Path
from typing import NamedTuple

from lessons_core.check.diff_lines import DIFF_OPTIONS, parse_diff
from lessons_core.containment import leaving_part
from lessons_core.fsutil import open_regular
from lessons_core.git import git, read_blobs
from lessons_core.review.ranges import Range

# The most of one script file read for its commands: a generated script can be huge, and
# the commands a person adds are near its top far more often than not.
MAX_SCRIPT_BYTES = 1_000_000
PATHS_PER_CALL = 1000


class FileChange(NamedTuple):
    """git's status letter (A, M, D, R, C, T), the path before and after (the same unless
    renamed or copied), relative to the store's root."""

    status: str
    old: str
    new: str


def _range_args(span: Range) -> list[str]:
    return [span.base] if span.head is None else [span.base, span.head]


def changed_files(root: Path, span: Range) -> list[FileChange]:
    """Every file the range changes, renames detected, in git's order (by path)."""
    out = git(
        root,
        "-c",
        "core.quotePath=false",
        "diff",
        "-z",
        "-M",
        "--no-ext-diff",
        "--relative",
        "--name-status",
        *_range_args(span),
        "--",
    )
    fields = out.decode("utf-8", "surrogateescape").split("\0")
    changes: list[FileChange] = []
    at = 0
    while at < len(fields) and fields[at]:
        status = fields[at][:1]
        count = 2 if status in "RC" else 1
        names = fields[at + 1 : at + 1 + count]
        changes.append(FileChange(status, names[0], names[-1]))
        at += 1 + count
    return changes


def added_lines(root: Path, span: Range, changes: Iterable[FileChange]) -> dict[str, list[int]]:
    """The head-side numbers of the lines the range adds to each of ``changes`` (by
    head-side path), in order; a file that adds none (a deletion, a pure rename, a binary
    file) is left out. The patch is the one ``lessons check`` reads, parsed by it
    (``lessons_core.check.diff_lines``). A renamed file's old path goes in the pathspec
    too, or git would see the new one as added whole."""
    wanted = sorted({path for change in changes for path in {change.old, change.new}})
    if span.head is None:  # git cannot hash a FIFO or a device, and fails the whole diff
        wanted = [path for path in wanted if _git_can_read(root / path)]
    found: dict[str, list[int]] = {}
    # Paths go on the command line (git diff reads no pathspec file), a batch at a time
    # so that no command line nears the system's limit on a diff of thousands of files.
    for start in range(0, len(wanted), PATHS_PER_CALL):
        out = git(
            root,
            "--literal-pathspecs",
            "-c",
            "core.quotePath=true",
            "diff",
            *DIFF_OPTIONS,
            *_range_args(span),
            "--",
            *wanted[start : start + PATHS_PER_CALL],
        )
        for added in parse_diff(out):
            found.setdefault(added.path, []).append(added.line)
    return found


def texts_at_head(root: Path, span: Range, paths: Iterable[str]) -> dict[str, str]:
    """The text of each of ``paths`` at the head (a file that is not there, or cannot be
    read safely, is left out), decoded as UTF-8 with undecodable bytes replaced."""
    wanted = sorted(set(paths))
    if not wanted:
        return {}
    if span.head is None:
        return {path: text for path in wanted if (text := _on_disk(root, path)) is not None}
    blobs = read_blobs(root, [f"{span.head}:./{path}" for path in wanted])
    return {
        path: blob[:MAX_SCRIPT_BYTES].decode("utf-8", "replace")
        for path, blob in zip(wanted, blobs, strict=True)
        if blob is not None
    }


def _git_can_read(path: Path) -> bool:
    """Whether ``path`` is absent, a regular file or a link (what git diffs), not a FIFO,
    a socket or a device."""
    try:
        mode = path.lstat().st_mode
    except OSError:
        return True
    return stat.S_ISREG(mode) or stat.S_ISLNK(mode) or stat.S_ISDIR(mode)


def _on_disk(root: Path, path: str) -> str | None:
    if leaving_part(root / path, root) is not None:
        return None
    try:
        with open_regular(root / path) as handle:
            data = handle.read(MAX_SCRIPT_BYTES)
    except OSError:  # gone, a link, a FIFO: nothing to read
        return None
    return data.decode("utf-8", "replace")
