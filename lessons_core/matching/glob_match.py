"""Matching a repo-relative path against a file trigger, without a regex for the usual globs.

Every glob has a regex (``lessons_core.matching.globs.compile_glob``). Compiling one costs a hook
more than matching it with ``str`` methods, so the index also keeps, for each glob
made only of literal text, ``*`` inside a segment and ``**`` as a whole segment (nearly
every real one: ``src/cli/**``, ``**/*.test.ts``, ``packages/*/package.json``), a *plan*:
its segments as pathspec reads them, which this module matches with ``str`` methods. The
index stores a plan only when rendering it back gives that exact regex
(``lessons_core.matching.globs.matching_plan``), and a plan matches exactly the paths its regex
matches under ``re.match``, quirks included:

- ``*`` is ``[^/]*`` (within one segment, a newline included) and a whole-segment ``*`` is
  ``[^/]+`` (never an empty segment);
- ``**`` is ``.+`` between slashes: one or more whole segments (a leading ``**/`` and an
  inner ``/**/`` also none), never an empty text, never across a newline;
- a trailing ``/**`` is a prefix: anything after the slash, nothing after it included;
- the regex ends with ``$``, which also matches before a final newline, and a trailing
  whole-segment ``*`` also lets one trailing slash through (``/?$``).

Matching is a walk over the path's segments keeping every position the plan can have
reached, so it takes time linear in the path for each segment of the plan, whatever the
path: no backtracking.

Only the standard library's builtins are used here; other globs keep their regex (``?``,
``[...]`` and odd forms) and import ``lessons_core.matching.glob_regex`` only when one is evaluated.
"""

from __future__ import annotations

from lessons_core.matching.glob_regex import regex_matches

# A plan: the glob's segments, "**" for a whole-segment globstar. ("**",) alone is the
# regex "." (any non-empty path not starting with a newline): pathspec gives it for "**"
# and "**/*".
Plan = tuple[str, ...]
GLOBSTAR = "**"
# The longest path and file name any common file system accepts (Linux PATH_MAX and
# NAME_MAX). A hook ignores a longer "path" (it names no file, and refusing it bounds every
# matcher's work), so a glob that only such a path could match never fires.
MAX_PATH_CHARS = 4096
MAX_NAME_CHARS = 255


def normalise_glob(glob: str) -> str:
    """Strip ``./`` and a leading ``/``, turn backslashes into slashes."""
    text = glob.strip().replace("\\", "/")
    while text.startswith("./"):
        text = text[2:]
    return text.lstrip("/")


def glob_matches(matcher: str | Plan, path: str) -> bool:
    """Whether a glob's indexed ``matcher`` (its plan, else its regex) matches ``path``."""
    if isinstance(matcher, tuple):
        return plan_matches(matcher, path)

    return regex_matches(matcher, path)


def plan_matches(plan: Plan, path: str) -> bool:
    """Whether ``path`` matches ``plan``, exactly as the glob's regex would."""
    if plan == (GLOBSTAR,):
        return path[:1] not in ("", "\n")
    if plan[-1] == GLOBSTAR:  # a prefix: the rest must be followed by a slash
        segments = path.split("/")
        return any(end < len(segments) for end in _ends(plan[:-1], segments))
    # "$" also matches before a final newline; "/?$" after a whole-segment "*" also
    # before a final slash.
    texts = [path, path[:-1]] if path.endswith("\n") else [path]
    if plan[-1] == "*":
        texts += [text[:-1] for text in texts if text.endswith("/")]
    for text in texts:
        segments = text.split("/")
        if len(segments) in _ends(plan, segments):
            return True
    return False


def _ends(plan: Plan, segments: list[str]) -> set[int]:
    """Every ``n`` such that ``plan`` matches exactly the first ``n`` segments."""
    starts = [0]  # where the next segment of the plan may start, ascending
    for glob in plan:
        if glob == GLOBSTAR:
            starts = _skip(starts, segments)
        else:
            starts = [
                at + 1
                for at in starts
                if at < len(segments) and segment_matches(glob, segments[at])
            ]
        if not starts:
            return set()
    return set(starts)


def _skip(starts: list[int], segments: list[str]) -> list[int]:
    """Where the plan may go on after a ``**`` entered at any of ``starts``.

    The ``**`` takes no segment, or segments ``start..end`` whose joined text is not empty
    (two or more segments, or one that is not) and holds no newline (``.`` skips it).
    One pass, keeping the earliest start no newline separates from the current segment.
    """
    entered = set(starts)
    found: list[int] = []
    earliest = -1  # no usable start yet
    for end in range(starts[0], len(segments)):
        if end in entered or (earliest >= 0 and (end - earliest >= 2 or segments[earliest] != "")):
            found.append(end)
        if earliest < 0 and end in entered:
            earliest = end
        if "\n" in segments[end]:
            earliest = -1
    return found


def segment_matches(glob: str, segment: str) -> bool:
    """Whether one path segment matches one segment of a plan (``*`` within it).

    Greedy: the literal pieces between stars are found left to right, each as early as it
    can be, which finds a match whenever there is one.
    """
    if "*" not in glob:
        return glob == segment
    if glob == "*":
        return segment != ""
    first, *middle, last = glob.split("*")
    start, stop = len(first), len(segment) - len(last)
    if stop < start or not segment.startswith(first) or not segment.endswith(last):
        return False
    for piece in middle:
        found = segment.find(piece, start, stop)
        if found < 0:
            return False
        start = found + len(piece)
    return True
