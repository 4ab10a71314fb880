"""Error classes and action identities of failed tool calls, from what the real clients
sent (tests/fixtures/*/post_tool_use_failure_*.json)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from lessons_core.delivery.deliver import ToolAction
from lessons_core.feedback.failures import action_identity, error_class, first_error_line

FIXTURES = Path(__file__).resolve().parent / "fixtures"


def _error(harness: str, name: str) -> str:
    data = json.loads((FIXTURES / harness / f"{name}.json").read_text())
    error: str = data["error"]
    return error


@pytest.mark.parametrize(
    ("harness", "name", "edit", "expected"),
    [
        ("claude_code", "post_tool_use_failure_bash", False, "exit 1"),
        ("claude_code", "post_tool_use_failure_bash_module", False, "exit 1: ModuleNotFoundError"),
        (
            "claude_code",
            "post_tool_use_failure_bash_not_found",
            False,
            "exit 127: command not found",
        ),
        ("qwen", "post_tool_use_failure_shell", False, "exit 1"),
        ("qwen", "post_tool_use_failure_edit", True, "edit: old_string not found"),
        ("copilot", "post_tool_use_failure_edit", True, "edit: old_string not found"),
    ],
)
def test_recorded_failures_get_their_class(
    harness: str, name: str, edit: bool, expected: str
) -> None:
    """Each client's own error text gives the exit code and the first error line's shape."""
    assert error_class(_error(harness, name), edit=edit) == expected


def test_the_same_error_with_other_values_is_one_class() -> None:
    """Quoted values, paths and numbers are masked, so two occurrences compare equal."""
    first = "Exit code 1\nerror: pathspec 'feature-7' did not match any file(s) known to git"
    second = "Exit code 1\nerror: pathspec 'fix/42' did not match any file(s) known to git"
    assert error_class(first) == error_class(second)
    assert error_class(first) == "exit 1: pathspec <q> did not match any file(s) known to git"
    module_a = "Exit code 1\nModuleNotFoundError: No module named 'a'"
    module_b = "Exit code 1\nModuleNotFoundError: No module named 'b.c'"
    assert error_class(module_a) == error_class(module_b)


def test_different_errors_and_exit_codes_are_different_classes() -> None:
    """A different exit code or error line is another class."""
    classes = {
        error_class("Exit code 1\nModuleNotFoundError: No module named 'a'"),
        error_class("Exit code 1\nImportError: cannot import name 'x'"),
        error_class("Exit code 2\nModuleNotFoundError: No module named 'a'"),
        error_class("Exit code 1\nls: /tmp/x: No such file or directory"),
    }
    assert len(classes) == 4


def test_no_value_of_the_run_survives() -> None:
    """Secrets, paths, addresses and hex ids in the error line become placeholders."""
    text = (
        "Exit code 1\nfatal: token ghp_abcdefghijklmnopqrstuvwxyz0123456789 rejected by "
        "https://user:hunter2@example.com/org/repo.git at /home/me/x.py commit deadbeef12"
    )
    found = error_class(text)
    for value in ("ghp_", "hunter2", "/home/me", "deadbeef12", "example.com/org"):
        assert value not in found
    assert found.startswith("exit 1: fatal: token")
    assert len(found) <= len("exit 1: ") + 60


def test_a_python_traceback_is_classed_by_its_exception() -> None:
    """The traceback's frame lines are skipped; the exception names the class."""
    text = (
        "Traceback (most recent call last):\n"
        '  File "/x/y.py", line 3, in <module>\n'
        "    import z\n"
        "KeyError: 'PATH'\n"
    )
    assert error_class(text, exit_code=1) == "exit 1: KeyError"


def test_client_frames_around_a_shell_result_are_skipped() -> None:
    """Qwen Code's and Gemini CLI's labelled result: the quoted output's error line counts."""
    text = (
        "Command: pnpm test\nDirectory: (root)\nOutput: ERR_PNPM_NO_SCRIPT  Missing script: "
        "test\nError: (none)\nExit Code: 1\nSignal: (none)\nProcess Group PGID: 4242"
    )
    assert first_error_line(text) == "ERR_PNPM_NO_SCRIPT  Missing script: test"
    assert error_class(text) == "exit 1: ERR_PNPM_NO_SCRIPT Missing script: test"


def test_an_error_without_code_or_text_still_has_a_class() -> None:
    """Nothing to read: the class says only which kind of call failed."""
    assert error_class("") == "error"
    assert error_class("", edit=True) == "edit"
    assert error_class("\n\n", exit_code=137) == "exit 137"


def test_huge_output_is_read_only_at_its_start() -> None:
    """A megabyte of output costs no more than its first 16 KiB."""
    text = "Exit code 1\n" + "x" * 2_000_000 + "\nValueError: late"
    assert error_class(text).startswith("exit 1")


@pytest.mark.parametrize(
    ("action", "identity"),
    [
        (ToolAction(files=("src/app.py",)), "file src/app.py"),
        (ToolAction(command="cd web && pnpm test:e2e --filter x"), "cmd ^pnpm test:e2e"),
        (ToolAction(command="python3 -m pytest tests/a.py -q"), "cmd ^python3 -m pytest"),
        (ToolAction(command="git checkout no-such-branch-7"), "cmd ^git checkout no-such-branch-7"),
        (ToolAction(command="ls -la"), None),
        (ToolAction(), None),
    ],
)
def test_action_identity_is_the_nudges_trigger(action: ToolAction, identity: str | None) -> None:
    """The file, or the command's program and sub-commands, as the capture nudge has it."""
    assert action_identity(action.files, action.command) == identity


def test_an_action_naming_a_secret_has_no_identity() -> None:
    """A command whose words hold a credential is never stored, even as an identity."""
    assert action_identity((), "deploy ghp_abcdefghijklmnopqrstuvwxyz0123") is None
