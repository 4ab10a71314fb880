"""Error classes and action identities of failed tool calls, from what the real clients
sent (tests/fixtures/*/post_tool_use_failure_*.json)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from lessons_core.delivery.tool_action import ToolAction
from lessons_core.feedback.failures import ERROR_PHRASES, error_class, first_error_line
from lessons_core.matching.commands import compile_command
from lessons_core.session.action import precise

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
    """Only the error's name is kept, so two occurrences with other values compare equal."""
    first = "Exit code 1\nerror: pathspec 'feature-7' did not match any file(s) known to git"
    second = "Exit code 1\nerror: pathspec 'fix/42' did not match any file(s) known to git"
    assert error_class(first) == error_class(second)
    assert error_class(first) == "exit 1: did not match any file(s) known to git"
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
    """Secrets, paths, addresses and hex ids in the error line are not kept."""
    text = (
        "Exit code 1\nfatal: token ghp_abcdefghijklmnopqrstuvwxyz0123456789 rejected by "
        "https://user:hunter2@example.com/org/repo.git at /home/me/x.py commit deadbeef12"
    )
    found = error_class(text)
    for value in ("ghp_", "hunter2", "/home/me", "deadbeef12", "example.com/org"):
        assert value not in found
    assert found == "exit 1: error"  # the line says fatal, in no other word of the vocabulary


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
    assert error_class(text) == "exit 1: ERR_PNPM_NO_SCRIPT"


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
    assert _identity(action.files, action.command) == identity


def test_an_action_naming_a_secret_has_no_identity() -> None:
    """A command whose words hold a credential is never stored, even as an identity."""
    assert _identity((), "deploy ghp_abcdefghijklmnopqrstuvwxyz0123") is None


@pytest.mark.parametrize(
    ("command", "identity"),
    [
        ("bash scripts/release.sh", "cmd ^bash scripts/release\\.sh"),
        ("python3 manage.py migrate --fake", "cmd ^python3 manage\\.py migrate"),
        ("node scripts/build.js --prod", "cmd ^node scripts/build\\.js"),
        ("cd web && sh ./deploy.sh", "cmd ^sh \\./deploy\\.sh"),
        ("uv run python tools/gen.py", "cmd ^uv run python tools/gen\\.py"),
        ("bash -c 'make all'", None),
        ("python3 -c 'import x'", None),
        ("bash <<EOF", None),
        ("python3", None),
    ],
)
def test_an_interpreter_is_identified_by_its_script(command: str, identity: str | None) -> None:
    """The script names what ran; an interpreter with no script names nothing precise."""
    assert _identity((), command) == identity


def test_two_scripts_of_one_interpreter_are_two_actions() -> None:
    """bash a.sh and bash b.sh failing once each is no recurrence; the pattern fires on
    its own script only."""
    first = _pattern("bash scripts/a.sh")
    second = _pattern("bash scripts/b.sh")
    assert first is not None
    assert second is not None
    assert first != second
    assert compile_command(first).matches("bash scripts/a.sh")
    assert not compile_command(first).matches("bash scripts/b.sh")
    assert not compile_command(first).matches("bash scripts/a_sh")


@pytest.mark.parametrize(
    ("error", "expected", "values"),
    [
        (
            "Exit code 1\ncustomer john.doe@example.com record 7 invalid",
            "exit 1",
            ("john", "example.com", "customer", "record"),
        ),
        (
            "Exit code 1\npsql: error: could not connect to server db-prod-3.internal as user",
            "exit 1: could not connect",
            ("db-prod", "internal", "server", "user"),
        ),
        (
            "Exit code 1\nError: Cannot find module 'lodash-internal-secretproject'",
            "exit 1: Cannot find module",
            ("lodash", "secretproject"),
        ),
        (
            "Exit code 2\nmake: *** No rule to make target 'deploy-acme'.  Stop.",
            "exit 2: No rule to make target",
            ("deploy-acme",),
        ),
        ("Exit code 2\nmake: *** [Makefile:3: check] Error 1", "exit 2: error", ("Makefile",)),
        ("Exit code 101\nerror[E0425]: cannot find value `acme`", "exit 101: error[E0425]", ()),
        ("Exit code 1\nnpm ERR! code E404 for @acme/private", "exit 1: E404", ("acme",)),
        ("Exit code 1\nthe build of acme-web went wrong", "exit 1", ("acme",)),
    ],
)
def test_the_class_is_built_from_a_fixed_vocabulary(
    error: str, expected: str, values: tuple[str, ...]
) -> None:
    """An exception or code name, a known phrase or "error": no word of the output."""
    found = error_class(error)
    assert found == expected
    for value in values:
        assert value not in found


def test_recorded_failures_keep_no_word_of_their_output() -> None:
    """Every recorded failure payload's class is the exit code and vocabulary words only."""
    classes = set()
    for path in sorted(FIXTURES.glob("*/post_tool_use_failure_*.json")):
        data = json.loads(path.read_text())
        error = data.get("error") or ""
        edit = "edit" in path.name
        found = error_class(str(error), edit=edit)
        head, _, name = found.partition(": ")
        assert head in ("edit", "error") or head.split(" ")[0] == "exit", found
        assert (
            name in ("", "error", "old_string not found")
            or name in ERROR_PHRASES
            or (name[:1].isupper() and name.isidentifier())
        ), found
        classes.add(found)
    assert classes


def _identity(files: tuple[str, ...], command: str | None) -> str | None:
    """The identity a failure of the call is counted under, or None."""
    found = precise(files, command)
    return found.identity if found is not None else None


def _pattern(command: str) -> str | None:
    """The command pattern a failure of ``command`` suggests, or None."""
    found = precise((), command)
    return found.value if found is not None else None
