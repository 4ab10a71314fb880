"""File paths named by a patch in the ``apply_patch`` format (Codex CLI's edit tool).

Codex edits files by sending a patch, not a path, so the paths come from its ``*** Add
File:``, ``*** Update File:``, ``*** Delete File:`` and ``*** Move to:`` headers, read
by ``lessons_core.matching.patch_paths`` (shell commands that apply a patch use it too).
"""

from __future__ import annotations

from lessons_core.matching.patch_paths import BEGIN, is_patch
from lessons_core.matching.patch_paths import apply_patch_paths as patch_paths

__all__ = ["BEGIN", "is_patch", "patch_paths"]
