"""The README's wiring commands are real: each runs and writes the file it names."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest
from click.testing import CliRunner

from lessons_cli.app import cli
from tests.conftest import make_repo

README = Path(__file__).resolve().parents[2] / "README.md"


def wiring_lines() -> list[tuple[list[str], str | None]]:
    """(arguments, file named in the comment) of each line of the wiring block."""
    section = README.read_text().split("## Wiring agent harnesses", 1)[1]
    block = re.search(r"```sh\n(.*?)```", section, re.S)
    assert block is not None
    lines = []
    for line in block.group(1).splitlines():
        command, _, comment = line.partition("#")
        named = re.search(r"(\.\w+/[\w./]+\.json|\.mcp\.json|AGENTS\.md)", comment)
        lines.append((shlex.split(command)[1:], named.group(1) if named else None))
    return lines


def test_every_wiring_command_in_the_readme_works(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each `lessons init --HARNESS` line exits 0 and creates the file its comment names."""
    lines = wiring_lines()
    assert len(lines) == 9
    monkeypatch.chdir(make_repo(tmp_path / "repo", {"a.txt": "a\n"}))
    for args, named in lines:
        result = CliRunner().invoke(cli, args)
        assert result.exit_code == 0, result.output
        if named and "--remove-hooks" not in args:
            assert Path(named).exists(), named
    # --remove-hooks, last: what held only lessons' part is gone with it
    assert not Path(".claude").exists()
    assert not Path("AGENTS.md").exists()
