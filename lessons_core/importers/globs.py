"""Foreign file globs (picomatch/minimatch style) as our gitignore-style file triggers.

Both dialects anchor at the repo root and agree on ``*``, ``**``, ``?`` and ``[...]``.
Braces (``src/*.{ts,tsx}``) are expanded into one trigger each, which matches the same
files. Negations and extglobs (``!(x)``, ``@(a|b)``) have no equivalent and are reported.
"""

from __future__ import annotations

import itertools
import re
from dataclasses import dataclass
from pathlib import Path

from lessons_core.matching.glob_match import normalise_glob
from lessons_core.matching.trigger_checks import TriggerProblem, judge_glob, repo_glob

MAX_EXPANSIONS = 64
_GROUP_CHARS = re.compile(r"[()|]")
_CLASS = re.compile(r"\[[^\]/]*\]")


@dataclass(frozen=True)
class GlobTranslation:
    """Our globs for one foreign glob; ``changed`` or ``lost`` says what happened on the way."""

    globs: tuple[str, ...]
    changed: str | None = None
    lost: str | None = None


def translate_glob(glob: str, root: Path) -> GlobTranslation:
    """Our globs for ``glob``, each judged as ``lessons add`` judges one (an absolute path
    in the repo made relative to ``root``); one that could never fire is lost, with why."""
    text = glob.strip()
    if text.startswith("!"):
        return GlobTranslation((), lost="is a negation; a file trigger names the files it is about")
    if _GROUP_CHARS.search(_CLASS.sub("", text)):
        return GlobTranslation((), lost="uses an extglob or (a|b) group, which has no equivalent")
    placed = repo_glob(text, root)
    if isinstance(placed, TriggerProblem):
        return GlobTranslation((), lost=f"{placed.reason}; {placed.fix}")
    try:
        expanded = expand_braces(placed)
    except ValueError as err:
        return GlobTranslation((), lost=str(err))
    globs: list[str] = []
    for item in expanded:
        judged = judge_glob(item)
        if isinstance(judged, TriggerProblem):
            return GlobTranslation((), lost=f"{judged.reason}; {judged.fix}")
        globs.append(judged.glob)
    globs = list(dict.fromkeys(globs))
    if len(expanded) > 1:
        return GlobTranslation(tuple(globs), changed=f"braces expanded to {', '.join(globs)}")
    if globs != [text]:
        return GlobTranslation(tuple(globs), changed=f"written as {globs[0]}")
    return GlobTranslation(tuple(globs))


def expand_braces(glob: str) -> list[str]:
    """``a/{b,c{d,e}}.ts`` -> ``a/b.ts``, ``a/cd.ts``, ``a/ce.ts``; ``{x}`` stays literal."""
    group = _first_group(glob)
    if group is None:
        if ".." in glob and "{" in glob:
            raise ValueError("uses a brace range ({a..b}), which is not supported")
        return [normalise_glob(glob)]
    start, end, options = group
    results: list[str] = []
    for option in options:
        results.extend(expand_braces(glob[:start] + option + glob[end + 1 :]))
        if len(results) > MAX_EXPANSIONS:
            raise ValueError(f"expands to more than {MAX_EXPANSIONS} globs")
    return results


def _first_group(glob: str) -> tuple[int, int, list[str]] | None:
    """The first ``{...}`` holding a top-level comma: its span and its options."""
    for start, char in enumerate(glob):
        if char != "{":
            continue
        depth, commas = 0, list[int]()
        for index in range(start, len(glob)):
            if glob[index] == "{":
                depth += 1
            elif glob[index] == "}":
                depth -= 1
                if depth == 0:
                    if not commas:
                        break
                    cuts = [start, *commas, index]
                    options = [glob[a + 1 : b] for a, b in itertools.pairwise(cuts)]
                    return start, index, options
            elif glob[index] == "," and depth == 1:
                commas.append(index)
    return None


def split_list(text: str) -> list[str]:
    """Split ``a, b/{c,d}`` at the commas outside braces (the form Cursor and Copilot use)."""
    parts: list[str] = []
    current: list[str] = []
    depth = 0
    for char in text:
        if char == "," and depth == 0:
            parts.append("".join(current))
            current = []
            continue
        depth += {"{": 1, "}": -1}.get(char, 0)
        current.append(char)
    parts.append("".join(current))
    return [part.strip() for part in parts if part.strip()]
