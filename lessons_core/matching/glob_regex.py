"""Matching a glob's compiled regular expression against a path, in bounded time.

Matching runs in Python's backtracking ``re``, which is quick for the usual globs. Each
``*`` (``[^/]*``) and ``**`` (``.+``) of a glob is a point the engine may come back to, and
with three of them a path built to fail late takes cubic or exponential time: ``*a*a*b``
against 200 ``a``s, or ``**/a/**/a/**/b`` against ``a/a/a/...``, runs for seconds. Such a
regex is matched with RE2 instead, linear in the path whatever the glob (imported only
then). A hook matches a regex only for a glob without a plan
(``lessons_core.matching.glob_match``).
"""

from __future__ import annotations

import re
import warnings
from collections.abc import Callable
from functools import lru_cache

# Up to two unbounded repeats backtrack at most quadratically, bounded on a 4,096-character
# path (PATH_MAX), the longest a hook lets through.
MAX_BACKTRACKING_REPEATS = 2
_REPEAT = re.compile(r"(?<!\\)[*+]")


def regex_matches(regex: str, rel_path: str) -> bool:
    """Whether a glob's compiled ``regex`` matches ``rel_path``, in bounded time."""
    return _matcher(regex)(rel_path) is not None


@lru_cache(maxsize=4096)
def _matcher(regex: str) -> Callable[[str], object]:
    if len(_REPEAT.findall(regex)) <= MAX_BACKTRACKING_REPEATS:
        return re_compile(regex).match
    import re2  # noqa: PLC0415 (heavy: RE2)

    options = re2.Options()
    options.log_errors = False
    try:
        matcher: Callable[[str], object] = re2.compile(regex, options=options).match
    except re2.error:  # not seen with pathspec's output; correct but slow beats wrong
        return re_compile(regex).match
    return matcher


def re_compile(regex: str) -> re.Pattern[str]:
    """``re.compile`` without its FutureWarning on a class such as ``[[]`` (a file named
    '['): valid today, and a warning on stderr must not reach a hook's harness or fail a
    capture."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)
        return re.compile(regex)
