"""File triggers: gitignore-style globs anchored at the repo root.

A glob is compiled once, through pathspec, to a regular expression over repo-relative
POSIX paths. Anchoring every glob at the root (``*.md`` means top-level Markdown files,
``**/*.md`` means any) keeps one glob meaning one thing wherever it is read.

Every file trigger is matched by one function, ``lessons_core.matching.glob_match.glob_matches``,
given ``file_matcher(compiled)``: the glob's plan (``str`` methods, no regex) when it has
one, else its regex, matched in bounded time by ``lessons_core.matching.glob_regex``.
"""

from __future__ import annotations

import re
import warnings
from functools import lru_cache
from typing import NamedTuple

from lessons_core.matching.glob_match import (
    GLOBSTAR,
    MAX_NAME_CHARS,
    Plan,
    glob_matches,
    normalise_glob,
)

_GLOB_CHARS = frozenset("*?[")
_DIR_SUFFIX = "(?:/|$)"
# C0, DEL and C1: a line break would end a gitignore line, and no file in a repo has one.
_CONTROL = re.compile("[\x00-\x1f\x7f-\x9f]")


_RELATIVE_FIX = "use a path relative to the repo root, e.g. 'src/app.py'"


class GlobError(ValueError):
    """A glob that can never fire or reaches outside the repo: ``str(err)`` says why,
    ``fix`` what to write instead."""

    def __init__(self, reason: str, fix: str = _RELATIVE_FIX) -> None:
        super().__init__(reason)
        self.fix = fix


class CompiledGlob(NamedTuple):
    glob: str
    regex: str

    def matches(self, rel_path: str) -> bool:
        """The file matcher, as recall runs it on the index (``file_matcher``)."""
        return glob_matches(file_matcher(self), rel_path)


@lru_cache(maxsize=8192)  # lessons share globs; pathspec's translation is the costly part
def compile_glob(glob: str) -> CompiledGlob:
    """Compile ``glob``; raise ``GlobError`` for one that escapes the repo or cannot match."""
    text = normalise_glob(glob)
    if not text or text in {".", "/"}:
        raise GlobError("names the repo root; name the files it is about")
    if _CONTROL.search(text):
        raise GlobError(
            "contains a control character, which no file name in a repo holds",
            "retype it as plain text, e.g. 'src/app.py'",
        )
    if text.startswith(("!", "#")):
        raise GlobError("negations and comments never select a file; write the glob itself")
    parts = text.split("/")
    if ".." in parts:
        raise GlobError("reaches outside the repo ('..'); globs are relative to the repo root")
    _check_names(parts)
    # Only compiling needs pathspec, not normalising or matching.
    from pathspec.patterns.gitignore.basic import GitIgnoreBasicPattern  # noqa: PLC0415 (heavy: pathspec)

    try:
        with warnings.catch_warnings():  # see glob_regex.re_compile
            warnings.simplefilter("ignore", FutureWarning)
            pattern = GitIgnoreBasicPattern("/" + text)
    except (re.error, ValueError) as err:  # a class such as [z-a]; pathspec's own refusals
        raise GlobError(
            f"is not a valid glob ({err})",
            "write a character class from low to high, e.g. '[a-z]', or leave the brackets out",
        ) from None
    if pattern.regex is None or not pattern.include:
        raise GlobError("never selects a file")
    regex = pattern.regex.pattern
    # gitignore lets a pattern that names a directory select everything inside it; a file
    # trigger names files, so `src/*` means the files directly in src/, not the whole tree.
    if regex.endswith(_DIR_SUFFIX):
        regex = regex[: -len(_DIR_SUFFIX)] + "$"
    return CompiledGlob(glob=text, regex=regex)


def _check_names(parts: list[str]) -> None:
    """Refuse a glob that only a file name no file system allows could match (the hook
    ignores such paths, so it would never fire)."""
    for part in parts:
        # Each '*' may match nothing and every other character (but a class) is one.
        least = len(part) - part.count("*")
        if "[" not in part and least > MAX_NAME_CHARS:
            raise GlobError(
                f"names a file or folder of {least:,} characters; no file system allows "
                f"more than {MAX_NAME_CHARS}, so it never matches",
                "shorten that part with a wildcard, e.g. 'src/generated_*.py'",
            )


@lru_cache(maxsize=8192)
def file_matcher(compiled: CompiledGlob) -> Plan | str:
    """What the one file matcher, ``lessons_core.matching.glob_match.glob_matches``, takes
    for this glob: its plan, else its regex. The index stores it; explain, validate and
    capture (through ``CompiledGlob.matches``) match with it too."""
    return matching_plan(compiled) or compiled.regex


def matching_plan(compiled: CompiledGlob) -> Plan | None:
    """The glob as a plan ``lessons_core.matching.glob_match`` matches without a regex, or None.

    The plan is pathspec's reading of the glob's segments (a trailing ``/`` is ``/**``,
    ``**/**`` is one ``**``); it is kept only when it renders back to exactly the regex
    pathspec gave, so a glob with ``?``, a class or any form read otherwise keeps its regex.
    """
    segments = compiled.glob.split("/")
    if segments[-1] == "":
        segments[-1] = GLOBSTAR
    plan = tuple(
        segment
        for at, segment in enumerate(segments)
        if not (segment == GLOBSTAR and at > 0 and segments[at - 1] == GLOBSTAR)
    )
    if plan == (GLOBSTAR, "*"):  # "**/*": pathspec's shortcut for every path, as "**"
        plan = (GLOBSTAR,)
    return plan if _plan_regex(plan) == compiled.regex else None


def _plan_regex(plan: Plan) -> str:
    """The regex pathspec builds from these segments (anchored, ``$`` for ``(?:/|$)``)."""
    if plan == (GLOBSTAR,):
        return "."
    parts: list[str] = []
    last = len(plan) - 1
    for at, segment in enumerate(plan):
        if segment == GLOBSTAR:
            parts.append("^(?:.+/)?" if at == 0 else "(?:/.+)?" if at < last else "/")
            continue
        if at == 0:
            parts.append("^")
        elif not (at == 1 and plan[0] == GLOBSTAR):  # a leading "**" holds its slash
            parts.append("/")
        pieces = segment.split("*")
        parts.append("[^/]+" if segment == "*" else "[^/]*".join(map(re.escape, pieces)))
        if at == last:
            parts.append("/?$" if segment == "*" else "$")
    return "".join(parts)


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
