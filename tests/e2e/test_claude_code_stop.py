"""The stop-time capture request with the real Claude Code CLI against the fake model.

A session edits src/app.py; the next prompt (the same session, resumed) corrects that
edit. After the model's final answer Claude Code runs the Stop hook, which asks once to
capture the correction; the model runs the prefilled line through Bash with its rule
filled in; the lesson file appears; the stops after that pass. A session without
evidence stops untouched.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from lessons_core.feedback.stop_capture import REQUEST_MARK
from tests.e2e.claude_project import TOOLS, Project, bash_call, write_call
from tests.e2e.fake_anthropic import STOP_FEEDBACK, stop_feedback
from tests.e2e.fake_server import texts
from tests.e2e.sample_repo import CHECK_RULE, FIX_STEPS, request_line, saved_lesson, write_makefile

pytestmark = pytest.mark.e2e

CORRECTION = "No, don't edit src/app.py by hand; the generator writes it."
RULE = "Regenerate src/app.py with make gen instead of editing it by hand."


def _last_user_texts(request: dict[str, Any]) -> list[str]:
    """The texts of the request's newest user message (Claude Code may send a system note
    after it)."""
    users = [m for m in request["messages"] if m.get("role") == "user"]
    return texts(users[-1].get("content")) if users else []


def _asked(requests: list[dict[str, Any]]) -> list[str]:
    """The capture requests the model had before it: each request whose conversation holds
    a stop hook's feedback with the request, not answered yet."""
    found = (stop_feedback(request["messages"]) for request in requests)
    return [text for text in found if text is not None and REQUEST_MARK in text]


def _lesson_files(project: Project) -> set[str]:
    return {p.name for p in (project.root / ".lessons" / "lessons").glob("*.json")}


def test_a_corrected_session_is_asked_once_and_the_model_captures_it(project: Project) -> None:
    """The request reaches the model after its final answer, with the line prefilled; the
    model's Bash call saves the lesson; the next stop, and a later turn's, pass."""
    fake = project.fake
    fake.scenarios["edit"] = [write_call(project.root, "src/app.py", "VALUE = 2\n")]
    session = project.claude("SCENARIO:edit change the app", "--allowedTools", TOOLS)
    assert _asked(fake.requests) == []  # an edit alone is no evidence
    ran: list[str] = []

    def capture(feedback: str) -> Any:
        ran.append(request_line(feedback, RULE, "gen"))
        return bash_call(ran[-1])

    fake.answer_stop = capture
    before = len(fake.requests)
    result = project.claude(CORRECTION, "--resume", session["session_id"], "--allowedTools", TOOLS)
    asked = _asked(fake.requests[before:])
    assert len(asked) == 1
    assert f'after src/app.py the user said: "{CORRECTION}"' in asked[0]
    assert "--trigger-file src/app.py" in asked[0]
    assert ran[0].startswith(f"sh {project.root}/.lessons/run add ")
    lesson = saved_lesson(project.root, RULE)
    assert lesson["triggers"]["files"] == ["src/app.py"]
    assert lesson["evidence"] == [f"correction: {CORRECTION}"]
    # The capture call ran and the turn ended: the stop after it passed.
    last = fake.requests[-1]
    results = [b for m in last["messages"] for b in m.get("content") or [] if isinstance(b, dict)]
    stop_result = [b for b in results if str(b.get("tool_use_id", "")).startswith("toolu_stop_")]
    assert len(stop_result) == 1
    assert not stop_result[0].get("is_error")
    assert result["is_error"] is False
    # Another correction later in the session: never asked twice.
    fake.scenarios["again"] = [write_call(project.root, "docs/notes.md", "# Notes\n")]
    project.claude(
        "SCENARIO:again add notes", "--resume", session["session_id"], "--allowedTools", TOOLS
    )
    before = len(fake.requests)
    project.claude("Wrong file, never write notes there.", "--resume", session["session_id"])
    assert _asked(fake.requests[before:]) == []
    assert not (project.root / ".lessons" / "local" / "hook.log").exists()


def test_a_session_without_evidence_stops_untouched(project: Project) -> None:
    """An edit and an ordinary follow-up prompt: no stop feedback reaches the model, no
    lesson is added, and every request of the run ends on the model's own turn."""
    fake = project.fake
    fake.answer_stop = lambda feedback: bash_call("echo should-not-run > ran.txt")
    lessons_before = _lesson_files(project)
    fake.scenarios["edit"] = [write_call(project.root, "src/app.py", "VALUE = 2\n")]
    session = project.claude("SCENARIO:edit change the app", "--allowedTools", TOOLS)
    project.claude("Thanks, now add always-on logging too.", "--resume", session["session_id"])
    assert _asked(fake.requests) == []
    assert not any(
        STOP_FEEDBACK in text for request in fake.requests for text in _last_user_texts(request)
    )
    assert not (project.root / "ran.txt").exists()
    assert _lesson_files(project) == lessons_before
    assert json.loads((project.root / "src" / "app.py").read_text().replace("VALUE = ", "")) == 2


def test_a_failure_fixed_in_the_session_is_asked_for_at_its_stop(project: Project) -> None:
    """`make check-all` fails (no such target), `make check` passes right after: at the
    stop the model is asked about both and captures the drafted rule with the failed
    command's pattern."""
    write_makefile(project.root)
    fake = project.fake
    fake.scenarios["fix"] = [bash_call(command) for command in FIX_STEPS]
    rule = CHECK_RULE
    fake.answer_stop = lambda feedback: bash_call(request_line(feedback, rule, "build"))
    result = project.claude("SCENARIO:fix check the build", "--allowedTools", TOOLS)
    asked = _asked(fake.requests)
    assert len(asked) == 1
    first = next(i for i, r in enumerate(fake.requests) if stop_feedback(r["messages"]))
    assert "All steps are done." in json.dumps(fake.requests[first]["messages"])  # after it
    assert result["is_error"] is False  # the stop after the capture let the run end
    told = "the command 'make check-all' failed (exit 2: No rule to make target); right after it"
    assert f"{told}, 'make check' worked" in asked[0]
    lesson = saved_lesson(project.root, rule)
    assert lesson["triggers"]["commands"] == ["^make check-all"]
    expected = "failed (exit 2: No rule to make target), then worked as: make check"
    assert lesson["evidence"] == [expected]
