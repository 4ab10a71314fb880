"""The repo's files, indexed so that counting a glob's matches does not scan them all.

Most file triggers start with a literal folder (``src/db/**``) or end in an extension
(``**/*.ts``). The index narrows a glob to the paths under its literal prefix, then to those
with its extension, and runs the file matcher recall uses (``glob_match.glob_matches``) only
on what is left; results are cached per glob, since lessons share globs.
"""

from __future__ import annotations

import bisect
from collections.abc import Iterable

from lessons_core.matching.glob_match import glob_matches
from lessons_core.matching.globs import CompiledGlob, file_matcher, has_glob_chars, literal_prefix


class FileIndex:
    """Sorted repo-relative paths with fast, cached glob matching."""

    def __init__(self, paths: Iterable[str]) -> None:
        self.paths: list[str] = sorted(set(paths))
        self.folders: frozenset[str] = frozenset(
            path[:cut] for path in self.paths for cut in _slashes(path)
        )
        self._cache: dict[str, tuple[str, ...]] = {}

    def __len__(self) -> int:
        return len(self.paths)

    def matching(self, glob: CompiledGlob) -> tuple[str, ...]:
        """Every indexed path ``glob`` matches, sorted."""
        found = self._cache.get(glob.regex)
        if found is None:
            matcher = file_matcher(glob)  # the one file matcher, as recall runs it
            found = tuple(p for p in self._narrowed(glob.glob) if glob_matches(matcher, p))
            self._cache[glob.regex] = found
        return found

    def count(self, glob: CompiledGlob) -> int:
        return len(self.matching(glob))

    def is_folder(self, rel_path: str) -> bool:
        return rel_path.rstrip("/") in self.folders

    def _narrowed(self, glob: str) -> list[str]:
        prefix = literal_prefix(glob)
        paths = self.paths
        if prefix:
            start = bisect.bisect_left(paths, prefix)
            end = bisect.bisect_left(paths, prefix + "0")  # '0' sorts right after '/'
            paths = [p for p in paths[start:end] if p == prefix or p[len(prefix)] == "/"]
        last = glob.rsplit("/", 1)[-1]
        if last.startswith("*") and not has_glob_chars(last[1:]):
            suffix = last[1:]
            paths = [p for p in paths if p.endswith(suffix)]
        return paths


def _slashes(path: str) -> list[int]:
    return [i for i, char in enumerate(path) if char == "/"]
