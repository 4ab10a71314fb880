"""File paths named by a patch in the ``apply_patch`` format (Codex CLI's edit tool).

Codex edits files by sending a patch, not a path, so the paths come from its headers::

    *** Begin Patch
    *** Update File: src/app.py
    *** Move to: src/main.py
    *** Add File: docs/new.md
    *** Delete File: old.txt
    *** End Patch
"""

from __future__ import annotations

import re

# The path runs to the end of the line and is stripped afterwards: a lazy ``(.+?)\s*$``
# would rescan trailing white space once per character of a long header line.
_HEADER = re.compile(r"^\*\*\* (?:Add File|Update File|Delete File|Move to): (.+)$", re.M)
BEGIN = "*** Begin Patch"


def is_patch(text: str) -> bool:
    return BEGIN in text


def patch_paths(text: str) -> list[str]:
    """Every path the patch adds, updates, deletes or moves to, in order, without repeats."""
    paths = (match.group(1).strip() for match in _HEADER.finditer(text))
    return list(dict.fromkeys(path for path in paths if path))
