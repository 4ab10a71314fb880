"""File triggers: gitignore-style globs anchored at the repo root.

A glob is compiled once, through pathspec, to a regular expression over repo-relative
POSIX paths. Anchoring every glob at the root (``*.md`` means top-level Markdown files,
``**/*.md`` means any) keeps one glob meaning one thing wherever it is read.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import NamedTuple

_GLOB_CHARS = frozenset("*?[")
_DIR_SUFFIX = "(?:/|$)"


class GlobError(ValueError):
    """A glob that can never fire or reaches outside the repo; the message says why."""


class CompiledGlob(NamedTuple):
    glob: str
    regex: str

    def matches(self, rel_path: str) -> bool:
        return _compiled(self.regex).match(rel_path) is not None


def normalise_glob(glob: str) -> str:
    """Strip ``./`` and a leading ``/``, turn backslashes into slashes."""
    text = glob.strip().replace("\\", "/")
    while text.startswith("./"):
        text = text[2:]
    return text.lstrip("/")


@lru_cache(maxsize=8192)  # lessons share globs; pathspec's translation is the costly part
def compile_glob(glob: str) -> CompiledGlob:
    """Compile ``glob``; raise ``GlobError`` for one that escapes the repo or cannot match."""
    text = normalise_glob(glob)
    if not text or text in {".", "/"}:
        raise GlobError("names the repo root; name the files it is about")
    if "\x00" in text or "\n" in text:
        raise GlobError("contains a control character")
    if text.startswith(("!", "#")):
        raise GlobError("negations and comments never select a file; write the glob itself")
    parts = text.split("/")
    if ".." in parts:
        raise GlobError("reaches outside the repo ('..'); globs are relative to the repo root")
    # pathspec costs ~40 ms to import; only compiling needs it, not normalising or matching.
    from pathspec.patterns.gitignore.basic import GitIgnoreBasicPattern

    pattern = GitIgnoreBasicPattern("/" + text)
    if pattern.regex is None or not pattern.include:
        raise GlobError("never selects a file")
    regex = pattern.regex.pattern
    # gitignore lets a pattern that names a directory select everything inside it; a file
    # trigger names files, so `src/*` means the files directly in src/, not the whole tree.
    if regex.endswith(_DIR_SUFFIX):
        regex = regex[: -len(_DIR_SUFFIX)] + "$"
    return CompiledGlob(glob=text, regex=regex)


def has_glob_chars(text: str) -> bool:
    return any(char in _GLOB_CHARS for char in text)


def literal_prefix(glob: str) -> str:
    """The directories a glob fixes before its first wildcard (``src/cli/**`` -> ``src/cli``)."""
    fixed: list[str] = []
    for part in normalise_glob(glob).split("/"):
        if has_glob_chars(part):
            break
        fixed.append(part)
    return "/".join(fixed)


@lru_cache(maxsize=4096)
def _compiled(regex: str) -> re.Pattern[str]:
    return re.compile(regex)
