"""The code a range changes, read from git: the files, the lines each adds, and the text
of the files whose added commands are looked for.

A few git calls whatever the size of the diff: ``diff --name-status`` for every changed
file, ``diff -U0`` only for the files the review needs lines of (their paths taken
literally, a thousand a call), and one ``cat-file --batch`` for the script files' text at
the head commit. With the working tree as head, the script files are read from disk instead, each
only if no part of its path leads out of the repo and it is a regular file.
"""

from __future__ import annotations

import stat
from collections.abc import Iterable
from pathlib import Path
from typing import NamedTuple

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


class Hunk(NamedTuple):
    """Where a hunk starts on the head side, and how many lines it adds there (0: it only
    deletes, after line ``start``)."""

    start: int
    added: int

    @property
    def first_line(self) -> int:
        """The first added line, or for a deletion the line it follows (at least 1)."""
        return max(self.start, 1)


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


def hunks(root: Path, span: Range, changes: Iterable[FileChange]) -> dict[str, tuple[Hunk, ...]]:
    """The head-side hunks of each of ``changes`` (by head-side path). A renamed file's
    old path goes in the pathspec too, or git would see the new one as added whole."""
    wanted = sorted({path for change in changes for path in {change.old, change.new}})
    if span.head is None:  # git cannot hash a FIFO or a device, and fails the whole diff
        wanted = [path for path in wanted if _git_can_read(root / path)]
    found: dict[str, tuple[Hunk, ...]] = {}
    # Paths go on the command line (git diff reads no pathspec file), a batch at a time
    # so that no command line nears the system's limit on a diff of thousands of files.
    for start in range(0, len(wanted), PATHS_PER_CALL):
        out = git(
            root,
            "--literal-pathspecs",
            "-c",
            "core.quotePath=false",
            "diff",
            "-U0",
            "-M",
            "--no-color",
            "--no-ext-diff",
            "--relative",
            *_range_args(span),
            "--",
            *wanted[start : start + PATHS_PER_CALL],
        )
        found.update(parse_hunks(out))
    return found


def parse_hunks(patch: bytes) -> dict[str, tuple[Hunk, ...]]:
    """The hunks of a ``git diff -U0`` patch per head-side path (``+++ b/PATH``)."""
    found: dict[str, list[Hunk]] = {}
    current: list[Hunk] | None = None
    for raw in patch.split(b"\n"):
        if raw.startswith(b"+++ "):
            # git ends an unquoted name holding a space with a tab (for GNU patch); a
            # name that really ends in a tab is quoted, so the tab is never the name's.
            name = unquote(raw[4:].decode("utf-8", "surrogateescape").removesuffix("\t"))
            current = None if name == "/dev/null" else found.setdefault(name[2:], [])
        elif raw.startswith(b"@@ ") and current is not None:
            head_side = raw.split(b" ", 3)[2]  # +START[,COUNT]
            start, _, count = head_side[1:].partition(b",")
            current.append(Hunk(int(start), int(count) if count else 1))
        elif raw.startswith(b"diff --git "):
            current = None
    return {path: tuple(items) for path, items in found.items()}


def added_lines(file_hunks: Iterable[Hunk]) -> set[int]:
    """The head-side line numbers the hunks add."""
    return {line for hunk in file_hunks for line in range(hunk.start, hunk.start + hunk.added)}


def unquote(name: str) -> str:
    """A path as git prints it in a patch: C-quoted (``"b/a\\tb"``) when it holds a quote,
    a backslash or a control character, else as it is."""
    if not (name.startswith('"') and name.endswith('"') and len(name) > 1):
        return name
    body = name[1:-1].encode("utf-8", "surrogateescape")
    simple = {b"n": 10, b"t": 9, b"r": 13, b'"': 34, b"\\": 92, b"a": 7, b"b": 8, b"f": 12}
    simple[b"v"] = 11
    out = bytearray()
    at = 0
    while at < len(body):
        byte = body[at : at + 1]
        if byte == b"\\" and at + 1 < len(body):
            following = body[at + 1 : at + 2]
            if following.isdigit() and at + 3 < len(body):
                out.append(int(body[at + 1 : at + 4], 8))
                at += 4
                continue
            out.append(simple.get(following, following[0]))
            at += 2
            continue
        out += byte
        at += 1
    return out.decode("utf-8", "surrogateescape")


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
