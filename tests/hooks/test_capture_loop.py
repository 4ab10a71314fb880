"""The ordinary loop is the work, not a mistake: through real Claude Code hook processes.

A test that fails, an edit, the test again (failing again, an edit, passing) brings no
capture nudge, no "find the cause", and no stop request. A failure a lesson could prevent
(a command not found) is still nudged, the same call failing the same way with nothing
changed between is still a recurrence, and no suggestion proposes a trigger that `lessons
add` refuses.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from lessons_core.store.layout import Layout
from tests.hooks.conftest import hook_process, payload

H = "claude-code"
SESSION = "loop-session"
TEST_RUN = "uv run pytest tests/test_a.py"
FAILED_TEST = (
    "Exit code 1\n"
    "FAILED tests/test_a.py::test_value - AssertionError: assert 1 == 2\n"
    "1 failed in 0.05s"
)


def _call(root: Path, fixture: str, **changes: Any) -> str:
    return hook_process(root, payload(H, fixture, root, session_id=SESSION, **changes))


def _run(root: Path, command: str) -> str:
    return _call(root, "pre_tool_use_bash_redirect", tool_input={"command": command})


def _failed(root: Path, command: str, error: str) -> str:
    tool_input = {"command": command, "description": "run it"}
    return _call(root, "post_tool_use_failure_bash", tool_input=tool_input, error=error)


def _edit(root: Path, new: str) -> str:
    tool_input = {"file_path": str(root / "src" / "a.py"), "old_string": "x", "new_string": new}
    return _call(root, "pre_tool_use_edit", tool_input=tool_input)


def _stop(root: Path) -> str:
    return _call(root, "stop", stop_hook_active=False)


def test_red_red_green_brings_no_nudge_and_no_stop_request(project: Layout) -> None:
    """Test fails, code edited, test fails again, edited, passes: silence throughout."""
    root = project.root
    assert _run(root, TEST_RUN) == ""
    assert _failed(root, TEST_RUN, FAILED_TEST) == ""  # no "capture it"
    assert _edit(root, "y") == ""
    assert _run(root, TEST_RUN) == ""
    assert _failed(root, TEST_RUN, FAILED_TEST) == ""  # no "find the cause"
    assert _edit(root, "z") == ""
    assert _run(root, TEST_RUN) == ""  # passes: no failure hook
    assert _stop(root) == ""  # the finish is not blocked


def test_a_failure_a_lesson_could_prevent_is_still_nudged(project: Layout) -> None:
    """A command not found is nudged once, with a line proposing its own command."""
    root = project.root
    command = "mycheck --all src"
    _run(root, command)
    said = _failed(root, command, "Exit code 127\n/bin/bash: mycheck: command not found")
    context = json.loads(said)["hookSpecificOutput"]["additionalContext"]
    assert "That call failed" in context
    assert "--trigger-cmd '^mycheck'" in context


def test_the_same_call_failing_the_same_way_with_nothing_between_recurs(
    project: Layout,
) -> None:
    """`make docs` failing twice with nothing changed between is a recurrence: the
    stronger nudge, whatever the error's kind."""
    root = project.root
    for _ in range(2):
        _run(root, "make docs")
        said = _failed(root, "make docs", "Exit code 2\nmake: *** [docs] Error 1")
    context = json.loads(said)["hookSpecificOutput"]["additionalContext"]
    assert "failed 2 times in this session with the same error" in context
    assert "--trigger-cmd '^make docs'" in context


def test_no_suggestion_proposes_a_trigger_add_refuses(project: Layout) -> None:
    """The test run failing twice the same way with nothing between recurs, but its
    trigger, `^uv run pytest`, is the runner and the test runner alone: neither the
    recurrence nudge nor the stop request proposes it."""
    root = project.root
    for _ in range(2):
        _run(root, TEST_RUN)
        said = _failed(root, TEST_RUN, FAILED_TEST)
    assert said == ""
    assert _stop(root) == ""
