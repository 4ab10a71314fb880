"""Where a Markdown code block opens and closes, as CommonMark reads a fence.

A fence opens with three or more backticks or tildes and an info string; after
backticks that string holds no backtick ("``` `${string}` ```" is a code span, and
taking it for a fence would read the rest of the file inside out). It closes with the
same character, at least as many times, alone on its line. Import, validate's reading of
instruction files and the everyday commands of a project's Markdown all read fences so.
"""

from __future__ import annotations

import re

_OPENING_FENCE = re.compile(r"^\s*(`{3,}(?!.*`)|~{3,})\s*([^\s`]*)")
_CLOSING_FENCE = re.compile(r"^\s*(`{3,}|~{3,})\s*$")


def opening_fence(line: str) -> tuple[str, str] | None:
    """(the fence, its info string's first word) when ``line`` opens a code block."""
    found = _OPENING_FENCE.match(line)
    return (found.group(1), found.group(2)) if found else None


def closes_fence(line: str, fence: str) -> bool:
    """Whether ``line`` closes the code block ``fence`` opened."""
    found = _CLOSING_FENCE.match(line)
    return found is not None and found.group(1)[0] == fence[0] and len(found.group(1)) >= len(fence)


def outside_fences(text: str) -> str:
    """``text`` with the lines of its code blocks, fences included, left blank: its prose,
    each line where it was."""
    kept: list[str] = []
    fence: str | None = None
    for line in text.splitlines():
        if fence is not None:
            fence = None if closes_fence(line, fence) else fence
            kept.append("")
            continue
        opened = opening_fence(line)
        fence = opened[0] if opened else None
        kept.append("" if opened else line)
    return "\n".join(kept)
