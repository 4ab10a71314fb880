"""``lessons_core.project_commands``: a project's everyday commands, read from its CI, task
runners, package scripts, pre-commit hooks and the shell blocks of its docs, each with
where it was first seen; and how many of them a pattern fires on (``adoption_breadth``)."""

from __future__ import annotations

import json
import os
from pathlib import Path

from lessons_core.eval.adoption_breadth import fired, is_broad, prefixes
from lessons_core.matching.commands import compile_command
from lessons_core.project_commands import (
    ProjectCommand,
    doc_commands,
    everyday_commands,
    is_doc,
    project_commands,
)
from tests.conftest import make_repo

WORKFLOW = """\
name: ci
on: [push]
jobs:
  test:
    runs-on: ubuntu-latest
    steps:
      - uses: actions/checkout@v4
      - run: uv sync --frozen
      - name: Test
        run: |
          uv run pytest -q
          uv run ruff check .
"""
MAKEFILE = "test:\n\tuv run pytest\nlint:\n\t@uv run ruff check .\n"
PACKAGE = json.dumps({"scripts": {"build": "tsc -b", "test": "vitest run"}}, indent=2)
AGENTS = """\
# Notes

Run the tests:

```bash
uv run pytest tests/unit
```

```console
$ make docs
building...
```

```python
print("not a command")
```
"""


def commands_of(root: Path) -> list[str]:
    return [item.command for item in project_commands(root)]


def test_each_kind_of_file_gives_its_commands_once_with_where_it_was_seen(
    tmp_path: Path,
) -> None:
    """CI run: lines, Makefile recipes, package scripts and docs' shell blocks, each
    command once, at the first file and line that runs it."""
    root = make_repo(
        tmp_path / "p",
        {
            ".github/workflows/ci.yml": WORKFLOW,
            "Makefile": MAKEFILE,
            "package.json": PACKAGE,
            "AGENTS.md": AGENTS,
            "src/app.py": "print('x')\n",
        },
    )
    found = project_commands(root)
    assert [item.command for item in found] == [
        "uv sync --frozen",
        "uv run pytest -q",
        "uv run ruff check .",
        "uv run pytest tests/unit",
        "make docs",
        "uv run pytest",
        "make test",
        "make lint",
        "tsc -b",
        "vitest run",
        "npm run build",
        "npm run test",
    ]
    first = found[0].to_dict()
    assert first == {"command": "uv sync --frozen", "source": ".github/workflows/ci.yml", "line": 8}
    typed = {item.command: (item.source, item.line) for item in found}
    assert typed["make lint"] == ("Makefile", 3)
    assert typed["npm run test"] == ("package.json", 4)


def test_console_blocks_keep_only_prompted_lines_and_code_is_not_shell() -> None:
    """Output lines of a console block and Python blocks are not commands."""
    assert [item.command for item in doc_commands(AGENTS)] == [
        "uv run pytest tests/unit",
        "make docs",
    ]


def test_which_markdown_files_count_as_docs() -> None:
    """Instruction files anywhere, a root README, Copilot's and Cursor's files."""
    assert is_doc("AGENTS.md")
    assert is_doc("pkg/api/CLAUDE.md")
    assert is_doc("README.md")
    assert is_doc(".github/copilot-instructions.md")
    assert is_doc("web/.cursor/rules/x.mdc")
    assert not is_doc("docs/README.md")
    assert not is_doc("docs/guide.md")


def test_a_pattern_on_most_commands_is_broad_and_a_narrow_one_is_not(tmp_path: Path) -> None:
    """'uv run' fires on more than a third of a uv project's commands; 'make docs' does not."""
    root = make_repo(tmp_path / "p", {".github/workflows/ci.yml": WORKFLOW, "AGENTS.md": AGENTS})
    found = project_commands(root)
    assert is_broad(compile_command("uv run"), found)
    assert not is_broad(compile_command("make docs"), found)
    assert [item.command for item in fired(compile_command("ruff"), found)] == [
        "uv run ruff check ."
    ]
    assert not is_broad(compile_command("anything"), ())


def test_prefixes_count_programs_and_their_first_word() -> None:
    """Each command counts once per prefix; options are no first word; a compound
    command counts each of its simple commands."""
    root_commands = doc_commands(
        "```sh\nuv run pytest\nuv run ruff check .\nuv sync\ncd docs && make html\nls -la\n```\n"
    )
    items = [ProjectCommand(c.command, "AGENTS.md", c.line) for c in root_commands]
    counts = {prefix.words: prefix.commands for prefix in prefixes(items)}
    assert counts["uv"] == 3
    assert counts["uv run"] == 2
    assert counts["uv sync"] == 1
    assert counts["make html"] == 1
    assert counts["cd docs"] == 1
    assert "ls -la" not in counts
    assert counts["ls"] == 1
    assert prefixes(items)[0].words == "uv"


def test_a_tracked_link_out_of_the_repo_is_not_read(tmp_path: Path) -> None:
    """A Makefile that is a symbolic link leaving the repo is skipped by name."""
    outside = tmp_path / "outside.mk"
    outside.write_text("x:\n\tcurl http://example.invalid\n")
    root = make_repo(tmp_path / "p", {"AGENTS.md": "```sh\nmake test\n```\n"})
    os.symlink(outside, root / "Makefile")
    assert commands_of(root) == ["make test"]


def test_a_file_list_can_be_given_and_unknown_files_are_not_read(tmp_path: Path) -> None:
    """Only the files named are read; a file of no known kind gives nothing."""
    root = make_repo(tmp_path / "p", {"Makefile": MAKEFILE, "notes.txt": "uv run x\n"})
    assert [c.command for c in project_commands(root, ["notes.txt"])] == []
    assert [c.command for c in project_commands(root, ["Makefile"])] == [
        "uv run pytest",
        "uv run ruff check .",
        "make test",
        "make lint",
    ]


def test_an_executable_script_without_extension_is_read_and_other_files_are_not(
    tmp_path: Path,
) -> None:
    """script/test (executable, shell shebang) gives its commands; the same text in a
    file that is not executable is data."""
    root = make_repo(
        tmp_path / "p",
        {"script/test": "#!/bin/bash\ngo test ./...\n", "notes/todo": "#!/bin/sh\nrm -rf /\n"},
    )
    (root / "script" / "test").chmod(0o755)
    assert commands_of(root) == ["go test ./..."]


def test_comment_lines_of_a_shell_block_and_user_guides_give_no_commands(tmp_path: Path) -> None:
    """A ``# comment`` in a bash block is no prompt, and a guide below docs/ shows its
    users' commands, not the project's own."""
    block = "```bash\n# Install the dependencies\nuv sync\n```\n"
    root = make_repo(
        tmp_path / "p", {"AGENTS.md": block, "docs/install.md": "```sh\npip install x\n```\n"}
    )
    assert everyday_commands(root) == ["uv sync"]


def test_a_command_with_environment_assignments_is_kept_and_a_bare_assignment_is_not(
    tmp_path: Path,
) -> None:
    """``INSTA_UPDATE=always cargo test`` runs cargo; ``VERSION=1`` alone runs nothing."""
    block = "```sh\nINSTA_UPDATE=always cargo test -p x\nVERSION=1\n```\n"
    root = make_repo(tmp_path / "p", {"AGENTS.md": block})
    assert everyday_commands(root) == ["INSTA_UPDATE=always cargo test -p x"]


def test_a_code_span_of_three_backticks_opens_no_shell_block() -> None:
    """A line starting with ``` `x` ``` is inline code; the shell block below it is read."""
    text = "``` `a` ``` is a span.\n\n```sh\nmake docs\n```\n\n```sh\nmake lint\n```\n"
    assert [item.command for item in doc_commands(text)] == ["make docs", "make lint"]
