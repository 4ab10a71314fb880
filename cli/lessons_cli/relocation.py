"""Paths a session recorded in another clone, moved onto this repo.

A transcript names files by absolute path under the folder the session ran in. When that
folder is not inside this repo (a session recorded in another clone, or in a temp copy),
each string of a tool call's input has that folder's prefix replaced by this repo's root,
so the call is about the same repo-relative files and runs the same commands here.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from lessons_core.store.layout import Layout


@dataclass(frozen=True)
class Relocation:
    root: str
    origin: str | None  # the recorded folder, None when it is inside this repo

    @classmethod
    def of(cls, layout: Layout, recorded: str | None) -> Relocation:
        root = str(layout.root)
        inside = recorded is None or recorded == root or recorded.startswith(root.rstrip("/") + "/")
        return cls(root, None if inside or recorded is None else recorded.rstrip("/"))

    def path(self, value: str) -> str:
        if self.origin is None:
            return value
        if value == self.origin:
            return self.root
        return value.replace(self.origin + "/", self.root.rstrip("/") + "/")

    def tool_input(self, tool_input: dict[str, Any]) -> dict[str, Any]:
        """String values with the recorded folder moved onto this repo (paths, commands)."""
        return {
            key: self.path(value) if isinstance(value, str) else value
            for key, value in tool_input.items()
        }
