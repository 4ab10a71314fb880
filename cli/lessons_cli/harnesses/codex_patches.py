"""File paths named by a patch in the ``apply_patch`` format (Codex CLI's edit tool).

Codex edits files by sending a patch, not a path, so the paths come from its ``*** Add
File:``, ``*** Update File:``, ``*** Delete File:`` and ``*** Move to:`` headers, read
by ``lessons_core.matching.patch_paths`` (shell commands that apply a patch use it too),
and so do the lines it adds, which a ``forbid`` pattern is searched in.
"""

from __future__ import annotations

from lessons_core.matching.patch_paths import BEGIN, is_patch, patch_added
from lessons_core.matching.patch_paths import apply_patch_paths as patch_paths

__all__ = ["BEGIN", "is_patch", "patch_added", "patch_paths"]
