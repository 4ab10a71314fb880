"""Cursor's failed calls, through its hook, on payloads shaped as the Cursor hooks
reference gives them (its client cannot run offline, so none are recorded): the
recurrence gate before the third attempt when a lesson covers the action, the capture
nudges held until a hook that can add context, and the stop-time request."""

from __future__ import annotations

import itertools
import shlex
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from lessons_core.feedback.stop_capture import REQUEST_MARK
from lessons_core.session import failure_history as history
from lessons_core.session import state as sessions
from lessons_core.store.layout import Layout
from lessons_core.telemetry.log import read_log
from tests.hooks.conftest import answer, call_hook, payload, write_lesson

SESSION = "c-recurring"
COMMAND = "python3 scripts/check.py"
COMMAND_RULE = "Install the dev extras before running scripts/check.py."
FILE_RULE = "Read src/app.py again before editing it: a formatter rewrites it."
MODULE_MISSING = '{"output":"ModuleNotFoundError: No module named \'x\'\\n","exitCode":1}'
EARLIER = "About an earlier call in this session (the command 'python3 scripts/check.py'):"


def _call(name: str, root: Path, **changes: Any) -> dict[str, Any]:
    return payload("cursor", name, root, conversation_id=SESSION, **changes)


def _shell(root: Path) -> dict[str, Any]:
    return _call("before_shell_execution", root, command=COMMAND)


CALLS = itertools.count(1)


def _failed_shell(root: Path, **changes: Any) -> dict[str, Any]:
    """A failed run of COMMAND: a new call each time (Cursor's ``tool_use_id``)."""
    return _call("post_tool_use_failure_shell", root, tool_use_id=f"call-{next(CALLS)}", **changes)


def _edit(root: Path, event: str) -> dict[str, Any]:
    data = _call(event, root, tool_use_id=f"call-{next(CALLS)}")
    data["tool_input"] = {**data["tool_input"], "file_path": str(root / "src" / "app.py")}
    return data


def _refusal(got: dict[str, Any] | None) -> str | None:
    if got is None or got.get("permission") != "deny":
        return None
    return str(got["agent_message"])


def _context(got: dict[str, Any] | None) -> str:
    return "" if got is None else str(got.get("additional_context", ""))


def test_a_covered_command_recurrence_is_refused_once_before_the_next_attempt(
    project: Layout,
) -> None:
    """Failed twice with one error: the next command is refused once with its lesson,
    though the session was shown it; the retry runs; a third failure refuses no more."""
    write_lesson(project, "dev-extras", COMMAND_RULE, commands=("scripts/check",))
    root = project.root
    assert COMMAND_RULE in str(_refusal(answer("cursor", _shell(root))))
    assert call_hook("cursor", _shell(root)) == b""  # the gate's retry runs
    assert call_hook("cursor", _failed_shell(root)) == b""  # the event cannot add context
    assert call_hook("cursor", _failed_shell(root)) == b""
    reason = _refusal(answer("cursor", _shell(root)))
    assert reason is not None
    assert reason.startswith("This call failed 2 times in this session (")
    assert COMMAND_RULE in reason
    assert call_hook("cursor", _shell(root)) == b""  # the retry runs
    answer("cursor", _failed_shell(root))
    assert call_hook("cursor", _shell(root)) == b""  # once a session


def test_a_covered_edit_recurrence_is_refused_at_pre_tool_use(project: Layout) -> None:
    """An edit failing twice (its text not found) brings its file lesson back before the
    third edit."""
    write_lesson(project, "app-reread", FILE_RULE, files=("src/app.py",))
    root = project.root
    answer("cursor", _edit(root, "post_tool_use_failure_edit"))
    answer("cursor", _edit(root, "post_tool_use_failure_edit"))
    before = _edit(root, "pre_tool_use_write")
    reason = _refusal(answer("cursor", before))
    assert reason is not None
    assert "This call failed 2 times in this session (edit: old_string not found)" in reason
    assert FILE_RULE in reason
    assert _refusal(answer("cursor", before)) is None


def test_uncovered_failures_bring_their_nudges_with_the_next_tool_result(
    project: Layout,
) -> None:
    """No lesson covers the command: the first failure's capture nudge, then the second's
    stronger one, each follow with the next ``postToolUse``, naming the call they are
    about; a third failure adds nothing."""
    root = project.root
    after = _call("post_tool_use_write", root)
    assert call_hook("cursor", after) == b""  # nothing held yet
    answer("cursor", _failed_shell(root))
    first = _context(answer("cursor", after))
    assert first.startswith(f"{EARLIER} That call failed.")
    line = first.rsplit("\n", 1)[1].strip()
    assert "--trigger-cmd '^python3 scripts/check\\.py'" in line
    assert call_hook("cursor", after) == b""  # delivered once
    answer("cursor", _failed_shell(root))
    stronger = _context(answer("cursor", after))
    assert stronger.startswith(EARLIER)
    assert "failed 2 times in this session with the same error" in stronger
    assert stronger.rsplit("\n", 1)[1].strip() == line
    answer("cursor", _failed_shell(root))
    assert call_hook("cursor", after) == b""


def test_the_held_nudge_line_saves_the_lesson(project: Layout, tmp_path: Path) -> None:
    """The held nudge's ``lessons add`` line, rule and topic filled in, run in a shell in
    the project, saves a lesson with the trigger it names."""
    answer("cursor", _failed_shell(project.root))
    line = _context(answer("cursor", _call("post_tool_use_write", project.root)))
    line = line.rsplit("\n", 1)[1].strip()
    line = line.replace("<what to do instead, one imperative sentence>", COMMAND_RULE)
    line = line.replace("--topic <topic>", "--topic tooling")
    words = shlex.split(line)
    at = words.index("add")
    ran = subprocess.run(
        [sys.executable, "-m", "lessons_cli", *words[at:]],
        cwd=project.root,
        capture_output=True,
        text=True,
        check=False,
    )
    assert ran.returncode == 0, ran.stderr
    saved = list(project.lessons_dir.glob("*.json"))
    assert len(saved) == 1
    assert any("scripts/check" in path.read_text() for path in saved)


def test_a_shell_result_with_a_non_zero_exit_code_is_a_failure(project: Layout) -> None:
    """``postToolUse`` of a shell call that exited 1 counts as a failure and its nudge
    comes at once; exit 0 is a success, the action's last outcome."""
    root = project.root
    ran = _call("post_tool_use_shell", root)
    failing = {**ran, "tool_output": MODULE_MISSING}
    first = _context(answer("cursor", failing))
    assert first.startswith("That call failed.")
    ((entry,),) = [tuple(sessions.load(project, SESSION).failures.values())]
    assert history.classes(entry) == {"exit 1: ModuleNotFoundError": 1}
    assert call_hook("cursor", ran) == b""
    ((entry,),) = [tuple(sessions.load(project, SESSION).failures.values())]
    assert entry["last"] == history.SUCCEEDED


@pytest.mark.parametrize(
    "changes",
    [{"is_interrupt": True}, {"failure_type": "permission_denied", "error_message": "Denied"}],
    ids=["interrupted", "refused"],
)
def test_a_stopped_or_refused_call_is_no_failure(project: Layout, changes: dict[str, Any]) -> None:
    """A call the user interrupted, or one a hook or the user refused (lessons' own gate
    among them), counts nothing and holds no nudge."""
    answer("cursor", _failed_shell(project.root, **changes))
    answer("cursor", _failed_shell(project.root, **changes))
    state = sessions.load(project, SESSION)
    assert state.failures == {}
    assert state.held == []


@pytest.mark.parametrize("output", ["exit 1", "[" * 200_000, 7, None])
def test_output_that_is_not_the_documented_json_tells_nothing(
    project: Layout, output: object
) -> None:
    """A ``tool_output`` that is not the JSON Cursor documents: no failure is counted, and
    the context rules still arrive."""
    write_lesson(project, "checks", COMMAND_RULE, commands=("scripts/check",))
    answer("cursor", _failed_shell(project.root))
    ran = {**_call("post_tool_use_shell", project.root), "tool_output": output}
    assert COMMAND_RULE in _context(answer("cursor", ran))
    ((entry,),) = [tuple(sessions.load(project, SESSION).failures.values())]
    assert sum(history.classes(entry).values()) == 1


def test_a_call_reported_as_failed_twice_counts_once(project: Layout) -> None:
    """The same call (one ``tool_use_id``) as ``postToolUseFailure`` and as a
    ``postToolUse`` with exit code 1: one failure, so no recurrence."""
    write_lesson(project, "dev-extras", COMMAND_RULE, commands=("scripts/check",))
    root = project.root
    answer("cursor", _shell(root))  # shown once
    failed = _failed_shell(root)
    answer("cursor", failed)
    ran = _call("post_tool_use_shell", root, tool_use_id=failed["tool_use_id"])
    answer("cursor", {**ran, "tool_output": MODULE_MISSING})
    ((entry,),) = [tuple(sessions.load(project, SESSION).failures.values())]
    assert sum(history.classes(entry).values()) == 1
    assert call_hook("cursor", _shell(root)) == b""  # no recurrence gate
    project.config_path.write_text('{"telemetry": true}')
    again = _failed_shell(root)
    answer("cursor", again)
    answer("cursor", {**ran, "tool_use_id": again["tool_use_id"], "tool_output": MODULE_MISSING})
    assert len(read_log(project).failures) == 1  # logged once too


def test_nudges_for_different_calls_are_all_held(project: Layout) -> None:
    """A failed command, then an edit the file system refused, before any
    ``postToolUse``: both nudges follow with it, oldest first, each naming its call."""
    root = project.root
    answer("cursor", _failed_shell(root))
    refused = _edit(root, "post_tool_use_failure_edit")
    refused["error_message"] = "EACCES: permission denied, open 'src/app.py'"
    answer("cursor", refused)
    got = _context(answer("cursor", _call("post_tool_use_write", root)))
    assert got.index(EARLIER) < got.index("(src/app.py): That call failed.")


def _stop(root: Path, **changes: Any) -> dict[str, Any] | None:
    return answer("cursor", _call("stop", root, **changes))


def _fail_then_fix(root: Path) -> None:
    answer("cursor", _failed_shell(root))
    answer("cursor", _call("post_tool_use_shell", root))


def test_a_fixed_failure_brings_the_request_once_as_a_followup(project: Layout) -> None:
    """A failed command made again without failing: the run's ``stop`` answers with a
    ``followup_message`` holding the prefilled line, once a session."""
    _fail_then_fix(project.root)
    got = _stop(project.root)
    assert got is not None
    text = str(got["followup_message"])
    assert REQUEST_MARK in text
    assert "then was made again without failing" in text
    assert "--trigger-cmd '^python3 scripts/check\\.py'" in text
    assert _stop(project.root) is None


@pytest.mark.parametrize("changes", [{"loop_count": 1}, {"status": "aborted"}, {"status": "error"}])
def test_no_request_when_the_run_goes_on_already_or_did_not_complete(
    project: Layout, changes: dict[str, Any]
) -> None:
    """A run a follow-up already continues, or one stopped by the user or an error, is
    not asked (and the request stays for a run that completes)."""
    _fail_then_fix(project.root)
    assert _stop(project.root, **changes) is None
    assert _stop(project.root) is not None


def test_no_request_without_evidence(project: Layout) -> None:
    answer("cursor", _call("post_tool_use_shell", project.root))
    assert _stop(project.root) is None
