"""Recurring failures through each harness's hooks, with payloads recorded from the real
clients: the recurrence gate before the third attempt when a lesson covers the action,
the stronger nudge when none does, each once per action and session."""

from __future__ import annotations

from pathlib import Path
from typing import Any, NamedTuple

import pytest

from lessons_core.delivery.binding import ENFORCE_HEAD, FORBID_HEAD
from lessons_core.delivery.deliver import GATE_PREFIX
from lessons_core.feedback.recurrence import MAX_RECURRENCE_RULES
from lessons_core.session import failure_history as history
from lessons_core.session import state as sessions
from lessons_core.store.layout import Layout
from tests.hooks.conftest import answer, payload, write_lesson

# The recorded payloads ran ``python3 -c 'import nosuchmod_xyz'``: inline code names no
# action, so the calls here run a script (the recorded error text is kept).
COMMAND = "python3 scripts/nosuchmod_xyz/check.py"
COMMAND_RULE = "Install the dev extras before importing nosuchmod_xyz."
FILE_RULE = "Read src/app.py again before editing it: a formatter rewrites it."


class Case(NamedTuple):
    """A harness, its recorded failure of an action, and its recorded pre-tool call."""

    harness: str
    failure: str
    before: str
    file: bool  # the action is an edit of src/app.py, not COMMAND


CASES = [
    Case("claude-code", "post_tool_use_failure_bash_module", "pre_tool_use_bash_failing", False),
    Case("qwen", "post_tool_use_failure_shell_module", "pre_tool_use_shell", False),
    Case("qwen", "post_tool_use_failure_edit", "pre_tool_use_edit", True),
    Case("copilot", "post_tool_use_bash_failing", "pre_tool_use_bash", False),
    Case("copilot", "post_tool_use_failure_edit", "pre_tool_use_edit", True),
    Case("gemini", "after_tool_shell_failing", "before_tool_shell", False),
    Case("gemini", "after_tool_replace_failing", "before_tool_replace", True),
]
SESSION = "recurring-session"


def _session(harness: str) -> str:
    return "sessionId" if harness == "copilot" else "session_id"


def _call(case: Case, name: str, root: Path) -> dict[str, Any]:
    """A recorded payload of ``case``'s harness, in one session, about ``case``'s action."""
    data = payload(case.harness, name, root, **{_session(case.harness): SESSION})
    if case.file:
        return data
    args = "toolArgs" if case.harness == "copilot" else "tool_input"
    data[args] = {**data[args], "command": COMMAND}
    return data


def _refusal(harness: str, got: dict[str, Any] | None) -> str | None:
    """The reason of a refusal in the harness's own answer, or None when it let the call
    through."""
    if got is None:
        return None
    if harness == "gemini":
        return str(got["reason"]) if got.get("decision") == "deny" else None
    output = got.get("hookSpecificOutput", got)
    if output.get("permissionDecision") != "deny":
        return None
    return str(output["permissionDecisionReason"])


def _context(got: dict[str, Any] | None) -> str:
    if got is None:
        return ""
    return str(got.get("hookSpecificOutput", got).get("additionalContext", ""))


@pytest.mark.parametrize("case", CASES, ids=lambda c: f"{c.harness}-{c.failure}")
def test_a_covered_recurrence_brings_its_lesson_back_before_the_next_attempt(
    project: Layout, case: Case
) -> None:
    """Failed twice with one error class: the next attempt is refused once with the
    covering lesson, though the session was shown it already; the retry runs, and a
    third failure brings no second recurrence gate."""
    if case.file:
        write_lesson(project, "app-reread", FILE_RULE, files=("src/app.py",))
    else:
        write_lesson(project, "dev-extras", COMMAND_RULE, commands=("nosuchmod_xyz",))
    rule = FILE_RULE if case.file else COMMAND_RULE
    before = _call(case, case.before, project.root)
    failed = _call(case, case.failure, project.root)
    answer(case.harness, before)  # shown once, as any rule is (a gate, or context)
    answer(case.harness, before)  # a gate's retry runs
    answer(case.harness, failed)
    assert rule not in _context(answer(case.harness, failed))  # covered: no capture nudge
    reason = _refusal(case.harness, answer(case.harness, before))
    assert reason is not None
    assert "This call failed 2 times in this session" in reason
    assert rule in reason
    assert _refusal(case.harness, answer(case.harness, before)) is None  # the retry runs
    answer(case.harness, failed)
    assert _refusal(case.harness, answer(case.harness, before)) is None  # once a session


@pytest.mark.parametrize("case", CASES, ids=lambda c: f"{c.harness}-{c.failure}")
def test_an_uncovered_recurrence_gets_the_stronger_nudge_once(project: Layout, case: Case) -> None:
    """No lesson covers the action: the first failure brings the capture nudge (none for
    an edit tool's own error, the agent's slip), the second the stronger one with the
    same ready line, the third nothing."""
    failed = _call(case, case.failure, project.root)
    first = _context(answer(case.harness, failed))
    assert ("capture it" in first) is not case.file
    stronger = _context(answer(case.harness, failed))
    assert "failed 2 times in this session with the same error" in stronger
    assert "no project lesson covers it" in stronger
    if not case.file:
        assert stronger.rsplit("\n", 1)[1].strip() == first.rsplit("\n", 1)[1].strip()
    assert _context(answer(case.harness, failed)) == ""
    before = _call(case, case.before, project.root)
    assert _refusal(case.harness, answer(case.harness, before)) is None


def test_the_recurrence_gate_shows_at_most_two_rules(project: Layout) -> None:
    """Three lessons cover the failing command: the gate shows the best two."""
    case = CASES[0]
    for n in range(3):
        write_lesson(
            project, f"dev-extras-{n}", f"{COMMAND_RULE} Rule {n}.", commands=("nosuchmod_xyz",)
        )
    failed = _call(case, case.failure, project.root)
    answer(case.harness, failed)
    answer(case.harness, failed)
    reason = _refusal(case.harness, answer(case.harness, _call(case, case.before, project.root)))
    assert reason is not None
    assert reason.count(COMMAND_RULE) == MAX_RECURRENCE_RULES


def test_failures_of_other_classes_do_not_recur(project: Layout) -> None:
    """The same command failing with two different errors is no recurrence."""
    case = CASES[0]
    write_lesson(project, "dev-extras", COMMAND_RULE, commands=("nosuchmod_xyz",))
    failed = _call(case, case.failure, project.root)
    answer(case.harness, failed)
    answer(case.harness, {**failed, "error": "Exit code 2\nPermission denied"})
    before = _call(case, case.before, project.root)
    reason = _refusal(case.harness, answer(case.harness, before))
    assert reason is None or "failed 2 times" not in reason


def test_the_history_holds_classes_not_output(project: Layout) -> None:
    """The session file keeps a digest of the action and the error class, never the
    command or its output."""
    case = CASES[0]
    answer(case.harness, _call(case, case.failure, project.root))
    found = sessions.load(project, SESSION).failures
    ((mark, entry),) = found.items()
    assert history.classes(entry) == {"exit 1: ModuleNotFoundError": 1}
    text = Path(sessions._path(project, SESSION)).read_text()
    assert "nosuchmod_xyz" not in text
    assert "python3" not in text
    assert mark in text


def test_a_succeeding_shell_call_is_no_failure(project: Layout) -> None:
    """Copilot's and Gemini's post-tool hooks read a clean exit as no failure."""
    copilot = payload("copilot", "post_tool_use_bash_failing", project.root)
    copilot["toolResult"]["textResultForLlm"] = "ok\n<shellId: 0 completed with exit code 0>"
    assert answer("copilot", copilot) is None
    gemini = payload("gemini", "after_tool_shell", project.root)
    assert answer("gemini", gemini) is None
    assert sessions.load(project, str(copilot["sessionId"])).failures == {}


@pytest.mark.parametrize(
    ("harness", "failure", "success"),
    [
        ("gemini", "after_tool_shell_failing", "after_tool_shell"),
        ("qwen", "post_tool_use_failure_shell_module", "post_tool_use_write_file"),
        ("copilot", "post_tool_use_bash_failing", "post_tool_use_bash_failing"),
    ],
)
def test_a_success_after_a_failure_is_the_last_outcome(
    project: Layout, harness: str, failure: str, success: str
) -> None:
    """Where the client reports a call that ran fine, the history's last outcome of a
    failed action becomes a success (a failure, then a fix)."""
    case = Case(harness, failure, success, False)
    answer(harness, _call(case, failure, project.root))
    ran = _call(case, success, project.root)
    if harness == "copilot":
        ran["toolResult"] = {
            "resultType": "success",
            "textResultForLlm": "ok\n<shellId: 1 completed with exit code 0>",
        }
    if harness == "qwen":
        ran = {**ran, "tool_name": "run_shell_command", "tool_input": {"command": COMMAND}}
    answer(harness, ran)
    ((entry),) = sessions.load(project, SESSION).failures.values()
    assert entry["last"] == history.SUCCEEDED


@pytest.mark.parametrize("head", [GATE_PREFIX, ENFORCE_HEAD, FORBID_HEAD])
def test_a_refusal_by_lessons_is_no_failure(project: Layout, head: str) -> None:
    """A client that reports lessons' own refusal (the gate's, or a binding rule's, which
    refuses every time) as a failed call counts nothing and nudges nothing: refused twice
    is no recurrence."""
    case = CASES[0]
    failed = _call(case, case.failure, project.root)
    refused = {**failed, "error": f"PreToolUse:Bash hook error: {head}\n<lessons>..."}
    assert answer(case.harness, refused) is None
    assert answer(case.harness, refused) is None
    assert sessions.load(project, SESSION).failures == {}
