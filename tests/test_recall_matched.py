"""A recall reports every lesson that matched, for telemetry's candidates."""

from __future__ import annotations

from pathlib import Path

from lessons_core.recall.rank import recall
from lessons_core.recall.types import Allowance, RecallRequest
from lessons_core.store.config import Config
from tests.lesson_graphs import make_project, write_lesson


def test_matched_lists_excluded_and_cut_lessons_in_rank_order(tmp_path: Path) -> None:
    """Exclusion and the budget shrink hits, never matched."""
    layout = make_project(tmp_path)
    write_lesson(layout, "db-exact", "Declare columns non-null.", files=["src/db/models.py"])
    write_lesson(layout, "db-folder", "Quote identifiers in raw SQL.", files=["src/db/**"])
    write_lesson(layout, "src-tree", "Keep modules import-free.", files=["src/**"])
    write_lesson(layout, "docs-other", "Link every page.", files=["docs/**"])
    found = recall(
        layout,
        RecallRequest(files=("src/db/models.py",)),
        config=Config(max_trigger_matches=1),
        allowance=Allowance(exclude=frozenset({"db-exact"})),
    )
    assert [hit.lesson_id for hit in found.hits] == ["db-folder"]
    assert found.matched == ("db-exact", "db-folder", "src-tree")
