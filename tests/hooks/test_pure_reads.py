"""Which tool calls and commands count as pure reads (exempt from recall)."""

from __future__ import annotations

import pytest

from lessons_core.matching.pure_reads import is_pure_read_command


@pytest.mark.parametrize(
    "command",
    [
        "cat README.md",
        "ls -la src",
        "rg -n TODO src",
        "grep -rn 'x' . | head -n 20",
        "git status",
        "git log --oneline -5",
        "git -C sub diff HEAD~1",
        "git --no-pager show HEAD",
        "sed -n '1,20p' main.py",
        "find . -name '*.py'",
        "cd src && ls",
        "wc -l $(git ls-files)",
        "cat a.txt 2>/dev/null",
        "ls 2>&1 | head",
    ],
)
def test_read_only_commands_are_pure_reads(command: str) -> None:
    """Commands that only look at the project are pure reads."""
    assert is_pure_read_command(command)


@pytest.mark.parametrize(
    "command",
    [
        "cat a.txt > b.txt",
        "echo x >> notes.md",
        "ls | tee listing.txt",
        "sed -i 's/a/b/' main.py",
        "find . -name '*.pyc' -delete",
        "find . -exec rm {} +",
        "ls && rm -rf build",
        "git push origin main",
        "git commit -m wip",
        "git branch new-feature",
        "sort -o out.txt in.txt",
        "pnpm test",
        "python3 script.py",
        "$(rm x)",
    ],
)
def test_state_changing_commands_are_not_pure_reads(command: str) -> None:
    """A redirect, tee, sed -i, find -delete, && rm or any unknown program changes state."""
    assert not is_pure_read_command(command)
