"""The real Claude Code CLI refusing binding rules every time: a file lesson's ``forbid``
pattern and an enforced command lesson, against the fake model (see test_claude_code.py).
"""

from __future__ import annotations

from typing import Any

import pytest

from lessons_core.delivery.binding import ENFORCE_HEAD, FORBID_HEAD
from tests.e2e.claude_project import TOOLS, Project, bash_call, edit_call
from tests.e2e.fake_anthropic import result_text, tool_results
from tests.e2e.fake_server import ToolCall

pytestmark = pytest.mark.e2e

SPLIT_RULE = "Use os.path.basename for file names in src/app.py, never split('/')."
DEPLOY_RULE = "Release only from CI; never run scripts/release.sh in a local session."


def _refusals(requests: list[dict[str, Any]], text: str) -> list[tuple[int, str]]:
    """(request index, refusal text) of each request whose newest tool result is an error
    holding ``text``, once per refusal (a later request repeats the same history)."""
    found: list[tuple[int, str]] = []
    seen: set[str] = set()
    for index, request in enumerate(requests):
        for result in tool_results(request):
            said = result_text(result)
            key = str(result.get("tool_use_id"))
            if result.get("is_error") and text in said and key not in seen:
                seen.add(key)
                found.append((index, said))
    return found


def _calls(request: dict[str, Any], command: str) -> int:
    """How many times the model's messages in ``request`` called Bash with ``command``."""
    return sum(
        1
        for message in request["messages"]
        if message.get("role") == "assistant" and isinstance(message.get("content"), list)
        for block in message["content"]
        if block.get("type") == "tool_use" and block.get("input", {}).get("command") == command
    )


def test_an_edit_adding_the_forbidden_text_is_refused_every_time_and_basename_applies(
    project: Project,
) -> None:
    """Read, then an Edit adding split('/'): refused with the rule and the match while the
    file is unchanged; the same Edit again: refused again; an Edit using basename()
    applies."""
    project.lessons("add", SPLIT_RULE, "--topic", "paths", "--trigger-file", "src/app.py",
                    "--forbid", r"split\('/'\)")  # fmt: skip
    app = project.root / "src" / "app.py"
    fake = project.fake
    fake.probe = app.read_text
    split = "VALUE = 1\nNAME = PATH.split('/')[-1]"
    fake.scenarios["forbid"] = [
        ToolCall("Read", {"file_path": str(app)}),
        edit_call(project.root, "VALUE = 1", split),
        edit_call(project.root, "VALUE = 1", split),
        edit_call(project.root, "VALUE = 1", "VALUE = 1\nNAME = os.path.basename(PATH)"),
    ]
    result = project.claude("SCENARIO:forbid name the file", "--allowedTools", TOOLS)
    refused = _refusals(fake.requests, FORBID_HEAD)
    assert len(refused) == 2  # both Edits that add the match
    for index, text in refused:
        assert fake.observed[index] == "VALUE = 1\n"  # nothing was written
        assert SPLIT_RULE in text
        assert "\"split('/')\": NAME = PATH.split('/')[-1]" in text
        assert 'a person removes "forbid" from .lessons/lessons/' in text
    assert [d["tool_name"] for d in result["permission_denials"]] == ["Edit", "Edit"]
    assert app.read_text() == "VALUE = 1\nNAME = os.path.basename(PATH)\n"


def test_an_enforced_command_is_refused_every_time(project: Project) -> None:
    """The same command twice: refused twice with the rule (the script never ran), and
    the next command runs."""
    project.lessons("add", DEPLOY_RULE, "--topic", "release", "--trigger-cmd",
                    r"scripts/release\.sh", "--enforce")  # fmt: skip
    fake = project.fake
    released = project.root / "released.txt"
    fake.probe = released.exists
    fake.scenarios["enforce"] = [
        bash_call("bash scripts/release.sh"),
        bash_call("bash scripts/release.sh"),
        bash_call("touch checked.txt"),
    ]
    result = project.claude("SCENARIO:enforce release it", "--allowedTools", TOOLS)
    refused = _refusals(fake.requests, ENFORCE_HEAD)
    # The first refusal also brings the command's other rule once (the once-a-session
    # gate), which this fake model answers by making the same call again: every attempt
    # is refused, the two scripted ones and that one.
    attempts = _calls(fake.requests[-1], "bash scripts/release.sh")
    assert attempts >= 2
    assert len(refused) == attempts
    for index, text in refused:
        assert fake.observed[index] is False  # the script never ran
        assert DEPLOY_RULE in text
        assert 'a person removes "enforce" from .lessons/lessons/' in text
    assert [d["tool_name"] for d in result["permission_denials"]] == ["Bash"] * attempts
    assert not released.exists()
    assert (project.root / "checked.txt").exists()
