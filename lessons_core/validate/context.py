"""Everything a check may read, loaded once per run."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from lessons_core.errors import InvalidLessonFile
from lessons_core.matching.glob_counts import FileIndex
from lessons_core.store.config import Config
from lessons_core.store.files import Graph
from lessons_core.store.layout import Layout
from lessons_core.telemetry.log import TelemetryLog


@dataclass(frozen=True)
class Context:
    layout: Layout
    graph: Graph
    files: FileIndex
    config: Config
    config_errors: tuple[InvalidLessonFile, ...]  # each bad setting is at its default
    # None when telemetry is off: the telemetry checks then say nothing.
    telemetry: TelemetryLog | None

    def rel(self, path: Path) -> str:
        """``path`` relative to the project root, POSIX style."""
        try:
            return path.relative_to(self.layout.root).as_posix()
        except ValueError:
            return path.as_posix()

    def lesson_file(self, lesson_id: str) -> str:
        return f"{self.rel(self.layout.lessons_dir)}/{lesson_id}.json"
