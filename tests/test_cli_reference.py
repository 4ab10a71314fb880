"""docs/cli.md is the commands' own help, and stays so."""

from __future__ import annotations

from pathlib import Path

from lessons_cli.reference import command_paths, render

PAGE = Path(__file__).resolve().parents[1] / "docs" / "cli.md"


def test_reference_page_matches_the_help() -> None:
    """Regenerate with: python -m lessons_cli.reference > docs/cli.md"""
    assert PAGE.read_text() == render()


def test_every_command_has_a_section() -> None:
    """Each command, nested ones included, has its own heading."""
    text = PAGE.read_text()
    for path in command_paths():
        assert f"## `{' '.join(('lessons', *path))}`" in text
