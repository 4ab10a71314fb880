"""The maintainer docs say what the code does: every code, every telemetry field."""

from __future__ import annotations

import json
import re
from pathlib import Path

from lessons_core.store.config import Config
from lessons_core.store.project import init_project
from lessons_core.telemetry.log import log_path, record_failure, record_recall
from lessons_core.validate import CODES

DOCS = Path(__file__).resolve().parent.parent / "docs"


def test_validate_doc_lists_every_code_with_example_and_fix() -> None:
    """Each code has a heading with its title and severity, an example and a fix."""
    text = (DOCS / "validate.md").read_text()
    sections = re.split(r"^#### ", text, flags=re.M)[1:]
    documented = {section.split(":", 1)[0]: section for section in sections}
    assert set(documented) == set(CODES)
    for code, entry in CODES.items():
        section = documented[code]
        assert section.startswith(f"{code}: {entry.title} ({entry.severity.value})\n")
        assert "Example:" in section
        assert f"{code} {entry.severity.value}: " in section  # the real output line
        assert "\nFix: " in section


def test_telemetry_doc_lists_every_field_written(tmp_path: Path) -> None:
    """Every key a real recall or failure record holds appears in the schema tables."""
    layout, _ = init_project(tmp_path)
    config = Config(telemetry=True)
    record_recall(
        layout, config, event="PreToolUse", key="a.py", candidates=["x"], delivered=["x"],
        tokens=3, session="s", about="files", action="file a.py", call="0123456789abcdef",
        gate=True, recurrence=True,
    )  # fmt: skip
    record_failure(
        layout, config, event="PostToolUseFailure", key="a.py", session="s",
        error_class="edit: old_string not found", action="file a.py",
    )  # fmt: skip
    keys = {k for line in log_path(layout).read_text().splitlines() for k in json.loads(line)}
    text = (DOCS / "telemetry.md").read_text()
    documented = set(re.findall(r"^\| `(\w+)` \|", text, flags=re.M))
    assert keys == documented


def test_format_doc_lists_every_setting_with_its_default() -> None:
    """Every config.json key has a row in docs/format.md giving its real default."""
    text = (DOCS / "format.md").read_text()
    rows = dict(re.findall(r"^\| `(\w+)` \| `([^`]*)` \|", text, flags=re.M))
    defaults = Config().to_dict()
    assert set(rows) == set(defaults)
    for key, value in defaults.items():
        assert json.loads(rows[key]) == value, key
