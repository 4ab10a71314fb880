"""docs/security.md stays true to the tests: every test file it names exists, and every
security test file is named there."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
DOC = ROOT / "docs" / "security.md"


def named_test_files() -> set[str]:
    return set(re.findall(r"`(tests/[\w/]+\.py)`", DOC.read_text()))


def test_every_test_file_the_doc_names_exists() -> None:
    """A renamed or deleted test file cannot leave the doc pointing at nothing."""
    named = named_test_files()
    assert len(named) >= 15
    assert [name for name in sorted(named) if not (ROOT / name).is_file()] == []


def test_every_security_test_file_is_in_the_doc() -> None:
    """A new file under tests/security/ says in the doc what guarantee it holds."""
    files = {
        str(path.relative_to(ROOT))
        for path in (ROOT / "tests" / "security").glob("test_*.py")
        if path.name != Path(__file__).name
    }
    assert files - named_test_files() == set()
