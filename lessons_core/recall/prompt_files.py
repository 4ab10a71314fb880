"""The repo's files a prompt names, so that their rules come with the prompt.

"fix the bug in `src/storage/paths.py:12`" names ``src/storage/paths.py``; so does
"paths.py is wrong" when only one tracked file of the repo is called ``paths.py``. A
word names a file when, with the quotes, backticks, brackets and closing punctuation
around it removed, and a line number after it (``:12``, ``:12:5``, ``:12-20``,
``#L12``):

- it is a repo-relative path (``src/x.py``, ``./src/x.py``, or an absolute path inside
  the repo) whose last part has an extension or a leading dot, or that git tracks:
  it counts whether or not the file exists, since a file about to be created has rules
  too (recall then shows only the rules whose globs match it);
- or it is one name with an extension (``paths.py``): a file at the top of the repo, or
  the basename of exactly one tracked file.

A path that leaves the repo (``../x``, ``/etc/hosts``), a URL, a folder (``src/``) and a
word without ``.`` or ``/`` name nothing. At most ``MAX_NAMED`` files are taken, from
the first ``MAX_PROMPT_CHARS`` of the prompt.

Basenames are looked up in git's list of tracked files, kept under ``.lessons/local/``
(``REPO_FILES``) and refreshed by ``git ls-files`` when git's index file changed (its
size, modification time or inode): a prompt hook then reads one file and searches it with
``str`` methods instead of starting git each time.
Only a prompt holding such a name reads the list; a path with a ``/`` needs no list.
"""

from __future__ import annotations

import os
import posixpath
from typing import TYPE_CHECKING

from lessons_core.fsutil import NotRegularFile, atomic_write, read_regular
from lessons_core.store.layout import REPO_FILES

if TYPE_CHECKING:
    from lessons_core.store.layout import Layout

MAX_PROMPT_CHARS = 20_000
MAX_NAMED = 8
# Words that could be paths looked at, at most: each may search the list of files.
MAX_WORDS = 64
# How long ``git ls-files`` may take before a prompt goes on without basenames.
GIT_TIMEOUT_SECONDS = 2.0
# Characters around (or between) paths in prose and Markdown, never part of one here.
_SEPARATORS = str.maketrans(dict.fromkeys("`'\"()[]{}<>,;|*", " "))
_TRAILING = ".:!?"
_LIST_HEADER = "lessons repo files "


def prompt_words(prompt: str) -> list[str]:
    """The words of ``prompt`` that could be paths, cleaned (see the module docstring)."""
    found: dict[str, None] = {}
    for word in prompt[:MAX_PROMPT_CHARS].translate(_SEPARATORS).split():
        cleaned = _cleaned(word)
        if cleaned and ("." in cleaned or "/" in cleaned) and "://" not in word:
            found.setdefault(cleaned, None)
            if len(found) >= MAX_WORDS:
                break
    return list(found)


def _cleaned(word: str) -> str:
    """``word`` without closing punctuation, a line number or a leading ``./``."""
    word = word.rstrip(_TRAILING)
    anchor = word.find("#L")
    if anchor > 0 and word[anchor + 2 : anchor + 3].isdigit():
        word = word[:anchor]
    while True:  # :12, :12:5, :12-20
        head, colon, tail = word.rpartition(":")
        if not colon or not head or not tail.replace("-", "").isdigit():
            break
        word = head
    while word.startswith("./"):
        word = word[2:]
    return word.rstrip(_TRAILING)


def named_files(layout: Layout, prompt: str) -> tuple[str, ...]:
    """The repo-relative files ``prompt`` names, in the order it names them."""
    named: dict[str, None] = {}
    listing: str | None = None
    for word in prompt_words(prompt):
        if len(named) >= MAX_NAMED:
            break
        path = _inside(layout.top, word)
        if path is None:
            continue
        if "/" in path:
            if _file_like(path) or _listed(listing := _list(layout, listing), path):
                named.setdefault(path, None)
            continue
        if _file_like(path) and os.path.isfile(os.path.join(layout.top, path)):
            named.setdefault(path, None)
            continue
        listing = _list(layout, listing)
        unique = _unique_basename(listing, path)
        if unique is not None:
            named.setdefault(unique, None)
    return tuple(named)


def _inside(top: str, word: str) -> str | None:
    """``word`` as a repo-relative POSIX path, or None when it leaves the repo (or is
    the repo itself)."""
    if "\x00" in word or word.endswith("/"):
        return None
    if posixpath.isabs(word):
        for root in (top, os.path.realpath(top)):  # the prompt may spell out either
            prefix = root.rstrip("/") + "/"
            if word.startswith(prefix):
                word = word[len(prefix) :]
                break
        else:
            return None
    path = posixpath.normpath(word)
    if path in (".", "..") or path.startswith(("../", "/")):
        return None
    return path


def _file_like(path: str) -> bool:
    """Whether the last part of ``path`` reads as a file's name: ``x.py``, ``.env``."""
    name = path.rsplit("/", 1)[-1]
    core = name.strip(".")
    return bool(core) and ("." in core or name.startswith("."))


def _listed(listing: str, path: str) -> bool:
    return f"\n{path}\n" in listing


def _unique_basename(listing: str, name: str) -> str | None:
    """The one tracked file called ``name``, None when there are none or several."""
    needle = f"/{name}\n"
    at = listing.find(needle)
    if at < 0 or listing.find(needle, at + 1) >= 0 or _listed(listing, name):
        return None
    start = listing.rfind("\n", 0, at) + 1
    return listing[start : at + len(needle) - 1]


def _list(layout: Layout, known: str | None) -> str:
    """``known``, else the tracked files as ``"\\nPATH\\n...PATH\\n"`` (see the module)."""
    if known is not None:
        return known
    stamp = _index_stamp(layout.top)
    if stamp is None:
        return "\n"  # not in git: a prompt's basenames name nothing
    cache = layout.local(REPO_FILES)
    header = f"{_LIST_HEADER}{stamp}\n"
    try:
        text = read_regular(cache).decode("utf-8", "surrogateescape")
    except (OSError, NotRegularFile):
        text = ""
    if text.startswith(header):
        return text[len(header) - 1 :]
    listing = _git_files(layout.top)
    if listing is None:
        return "\n"
    data = (header + listing[1:]).encode("utf-8", "surrogateescape")
    try:
        atomic_write(cache, data, durable=False)
    except OSError:  # read-only or full: the next prompt asks git again
        return listing
    return listing


def _index_stamp(top: str) -> str | None:
    """Size, modification time and inode of the git index of the checkout holding
    ``top``: git rewrites it whenever the tracked files change. None outside git."""
    index = _index_path(top)
    if index is None:
        return None
    try:
        found = os.stat(index)
    except OSError:
        return None
    return f"{found.st_size} {found.st_mtime_ns} {found.st_ino}"


def _index_path(top: str) -> str | None:
    folder = os.path.abspath(top)
    while True:
        dot_git = os.path.join(folder, ".git")
        if os.path.isdir(dot_git):
            return os.path.join(dot_git, "index")
        if os.path.isfile(dot_git):  # a linked worktree: "gitdir: PATH"
            try:
                with open(dot_git, encoding="utf-8", errors="replace") as handle:
                    line = handle.readline(4096).strip()
            except OSError:
                return None
            if not line.startswith("gitdir:"):
                return None
            return os.path.join(folder, line[len("gitdir:") :].strip(), "index")
        parent = os.path.dirname(folder)
        if parent == folder:
            return None
        folder = parent


def _git_files(top: str) -> str | None:
    """``git ls-files`` in ``top`` (paths relative to it), as ``_list`` keeps them."""
    import subprocess  # noqa: PLC0415 (heavy: only when git's index changed)

    try:
        result = subprocess.run(
            ["git", "ls-files", "-z", "--cached"],
            cwd=top,
            capture_output=True,
            check=True,
            timeout=GIT_TIMEOUT_SECONDS,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    names = result.stdout.decode("utf-8", "surrogateescape").split("\0")
    kept = (name for name in names if name and "\n" not in name)
    return "\n" + "".join(f"{name}\n" for name in kept if not name.startswith(".lessons/"))
