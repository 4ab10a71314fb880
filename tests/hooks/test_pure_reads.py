"""Which tool calls and commands count as pure reads (exempt from recall)."""

from __future__ import annotations

import json

import pytest

from lessons_core.matching.pure_reads import is_pure_read_command
from lessons_core.store.layout import Layout
from tests.hooks.conftest import hook_process, payload, write_lesson


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


DEPLOY_RULES = (
    "Tag the release in git before you deploy.",
    "Announce in the release channel before a deploy starts.",
    "Check that the staging deploy is green before production.",
    "Never deploy on a Friday afternoon.",
    "Run the smoke checks right after every deploy.",
    "Keep the rollback command at hand while a deploy runs.",
)


@pytest.mark.parametrize("command", ["make deploy", "make deploy > deploy.log"])
def test_a_command_not_known_to_read_is_an_action_with_its_keyword_rules(
    project: Layout, command: str
) -> None:
    """`make deploy` writes no file lessons can name, yet it is no read: the rules on the
    keyword `deploy` speak for it exactly as for `make deploy > deploy.log`."""
    for number, rule in enumerate(DEPLOY_RULES):
        write_lesson(project, f"deploy-{number}", rule, keywords=("deploy",))
    data = payload("claude-code", "pre_tool_use_bash_redirect", project.root)
    data["tool_input"] = {"command": command, "description": "deploy"}
    out = hook_process(project.root, data)
    assert out, f"{command!r} brought nothing"
    shown = json.loads(out)["hookSpecificOutput"]
    assert "deploy" in json.dumps(shown)
    assert any(rule in json.dumps(shown) for rule in DEPLOY_RULES)
