"""A hook call parses the shell command it is given once (``matching.shell_command``):
the action carries the parse, and every question about the command reads it."""

from __future__ import annotations

import json

import pytest

from lessons_core.matching import shell_command
from lessons_core.store.layout import Layout
from tests.hooks.conftest import call_hook, payload, write_lesson


@pytest.fixture
def texts(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The texts ``shell_command.parse`` is given, as it is given them."""
    given: list[str] = []
    original = shell_command.parse

    def counted(text: str) -> shell_command.ShellCommand:
        given.append(text)
        return original(text)

    monkeypatch.setattr(shell_command, "parse", counted)
    return given


def test_a_hook_call_parses_its_command_once(project: Layout, texts: list[str]) -> None:
    """One Bash call through the real hook runner, with a command rule and a file rule on
    the file it writes: the command is parsed once, and what it brings shows that files
    and match parts came from that parse."""
    write_lesson(
        project, "deploy", "Tag the release before make deploy.", commands=("make deploy",)
    )
    write_lesson(project, "app", "Keep src/a.py free of side effects.", files=("src/a.py",))
    command = "cd src && sed -i 's/x/y/' a.py && make deploy > /dev/null"
    data = payload("claude-code", "pre_tool_use_bash_redirect", project.root)
    data["tool_input"] = {"command": command, "description": "deploy"}
    out = call_hook("claude-code", data)
    assert texts == [command]
    shown = json.dumps(json.loads(out))
    assert "make deploy" in shown
    assert "src/a.py" in shown


def test_failures_and_retries_parse_their_command_once_each(
    project: Layout, texts: list[str]
) -> None:
    """A command that fails, is retried and fails again: each hook call (before the tool,
    after its failure) parses the command once, recurrence counting included."""
    write_lesson(project, "e2e", "Build before pnpm test:e2e.", commands=("pnpm test:e2e",))
    command = "cd web && pnpm test:e2e --filter x"
    before = payload("claude-code", "pre_tool_use_bash_redirect", project.root)
    before["tool_input"] = {"command": command, "description": "e2e"}
    failed = payload("claude-code", "post_tool_use_failure_bash", project.root)
    failed["tool_input"] = {"command": command, "description": "e2e"}
    for number, data in enumerate([before, failed, before, failed, before]):
        texts.clear()
        call_hook("claude-code", {**data, "tool_use_id": f"toolu_{number}"})
        assert texts == [command], (number, data["hook_event_name"])
