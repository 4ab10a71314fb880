"""The stop-time capture request, through each harness's hook, on payloads recorded from
the real clients: once per session, only with evidence, never when a lesson was kept."""

from __future__ import annotations

import json
import shlex
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from lessons_core.eval.transcripts import Result, Step, Transcript, stream_transcript
from lessons_core.feedback.stop_capture import REQUEST_MARK
from lessons_core.session import state as sessions
from lessons_core.store.layout import SESSIONS, Layout
from tests.e2e.harvest_recording import FIXTURES as HARVEST
from tests.e2e.harvest_recording import REPO_PLACEHOLDER
from tests.e2e.sample_repo import RULE_SLOT
from tests.hooks.conftest import answer, payload, write_lesson


class Harness:
    """A harness's recorded payloads for one session: an action, a prompt, a stop."""

    def __init__(
        self,
        name: str,
        action: tuple[str, dict[str, Any]],
        prompt: tuple[str, str],
        stop: str,
        session: str = "session_id",
        active: str = "stop_hook_active",
    ) -> None:
        self.name, self.action, self.prompt, self.stop = name, action, prompt, stop
        self.session, self.active = session, active

    def _payload(self, root: Path, fixture: str, **changes: Any) -> dict[str, Any]:
        return payload(self.name, fixture, root, **{self.session: "s-1"}, **changes)

    def act(self, root: Path, **changes: Any) -> dict[str, Any] | None:
        fixture, tool_changes = self.action
        return answer(self.name, self._payload(root, fixture, **{**tool_changes, **changes}))

    def say(self, root: Path, text: str) -> dict[str, Any] | None:
        fixture, key = self.prompt
        return answer(self.name, self._payload(root, fixture, **{key: text}))

    def finish(self, root: Path, active: bool = False) -> dict[str, Any] | None:
        return answer(self.name, self._payload(root, self.stop, **{self.active: active}))


HARNESSES = {
    "claude-code": Harness(
        "claude-code",
        ("pre_tool_use_edit", {}),
        ("user_prompt_submit", "prompt"),
        "stop",
    ),
    "codex": Harness(
        "codex",
        ("pre_tool_use_apply_patch", {}),
        ("user_prompt_submit", "prompt"),
        "stop",
    ),
    "gemini": Harness(
        "gemini",
        ("before_tool_write_file", {}),
        ("before_agent", "prompt"),
        "after_agent",
    ),
    "copilot": Harness(
        "copilot",
        ("pre_tool_use_edit", {}),
        ("user_prompt_submitted", "prompt"),
        "agent_stop",
        session="sessionId",
    ),
    "qwen": Harness(
        "qwen",
        ("pre_tool_use_edit", {}),
        ("user_prompt_submit", "prompt"),
        "stop",
    ),
}
CORRECTION = "No, don't touch that file; the generator writes it."


@pytest.fixture(params=sorted(HARNESSES))
def harness(request: pytest.FixtureRequest) -> Harness:
    return HARNESSES[request.param]


def _reason(answered: dict[str, Any] | None) -> str:
    assert answered is not None
    assert answered["decision"] == "block"
    return str(answered["reason"])


def test_a_correction_after_an_action_brings_the_request_once(
    project: Layout, harness: Harness
) -> None:
    """An edit, a correcting prompt, a stop: the agent is asked, with a prefilled line
    naming the edited file and quoting the correction; the next stop passes."""
    harness.act(project.root)
    harness.say(project.root, CORRECTION)
    reason = _reason(harness.finish(project.root))
    assert reason.startswith(REQUEST_MARK)
    assert "No, don't touch that file" in reason
    assert "--trigger-file" in reason
    assert RULE_SLOT in reason
    assert harness.finish(project.root) is None  # never twice in a session


def test_no_request_without_evidence(project: Layout, harness: Harness) -> None:
    """An edit followed by an ordinary prompt, or no prompt at all: the stop passes."""
    harness.act(project.root)
    assert harness.finish(project.root) is None
    harness.say(project.root, "no rush, add tests for it too")
    assert harness.finish(project.root) is None


def test_a_correction_with_no_action_before_it_is_no_evidence(
    project: Layout, harness: Harness
) -> None:
    """The first prompt of a session corrects nothing the agent did."""
    harness.say(project.root, "Never edit generated files.")
    harness.act(project.root)
    assert harness.finish(project.root) is None


def test_no_request_while_the_harness_already_continues(project: Layout, harness: Harness) -> None:
    """stop_hook_active true: the stop passes, and the request is still owed to a later
    stop."""
    harness.act(project.root)
    harness.say(project.root, CORRECTION)
    assert harness.finish(project.root, active=True) is None
    assert harness.finish(project.root) is not None


def test_no_request_when_a_lesson_was_captured_in_the_session(
    project: Layout, harness: Harness
) -> None:
    """A lesson file written after the session began counts as a capture."""
    harness.act(project.root)
    harness.say(project.root, CORRECTION)
    write_lesson(project, "gen-no-edit", "Regenerate instead of editing.", files=("src/*.py",))
    assert harness.finish(project.root) is None


def test_the_setting_turns_it_off_and_records_nothing(project: Layout, harness: Harness) -> None:
    """stop_capture false: no request, and no evidence file is written."""
    project.config_path.write_text(json.dumps({"stop_capture": False}) + "\n")
    harness.act(project.root)
    harness.say(project.root, CORRECTION)
    assert harness.finish(project.root) is None
    assert sessions.load(project, "s-1").evidence == {}


def test_claude_code_command_correction_gets_an_anchored_pattern(project: Layout) -> None:
    """After `pnpm test:e2e --filter web`, a correction: the line's trigger is the command's
    anchored pattern, never its arguments."""
    claude = HARNESSES["claude-code"]
    command = {"command": "cd web && pnpm test:e2e --filter web", "description": "run"}
    harness = Harness(
        "claude-code",
        ("pre_tool_use_bash_failing", {"tool_input": command}),
        claude.prompt,
        claude.stop,
    )
    harness.act(project.root)
    harness.say(project.root, "Wrong: build first, e2e runs dist/.")
    reason = _reason(harness.finish(project.root))
    assert "--trigger-cmd '^pnpm test:e2e'" in reason
    assert "--filter" not in reason


def test_a_secret_in_the_correction_is_masked(project: Layout) -> None:
    """A token typed into the correction never reaches the request nor the session file."""
    token = "ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"
    harness = HARNESSES["claude-code"]
    harness.act(project.root)
    harness.say(project.root, f"No, use the token {token} from the vault.")
    reason = _reason(harness.finish(project.root))
    assert token not in reason
    stored = "".join(p.read_text() for p in (project.local_dir / SESSIONS).glob("*.json"))
    assert token not in stored


def _run_line(root: Path, command: str) -> None:
    """Run a prefilled line in a shell, as an agent would, with lessons on the PATH."""
    done = subprocess.run(
        ["sh", "-c", command],
        cwd=root,
        capture_output=True,
        text=True,
        env={"PATH": str(Path(sys.executable).parent) + ":/usr/bin:/bin"},
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr


def test_the_prefilled_line_saves_the_lesson_and_the_next_session_stop_passes(
    project: Layout,
) -> None:
    """The line, its rule and topic filled in as an agent would, runs in a shell and saves
    a lesson on the edited file whose evidence quotes the correction."""
    harness = HARNESSES["claude-code"]
    harness.act(project.root)
    harness.say(project.root, CORRECTION)
    reason = _reason(harness.finish(project.root))
    line = next(ln.strip() for ln in reason.splitlines() if "/.lessons/run add " in ln)
    rule = "Regenerate src/a.py with make gen instead of editing it."
    command = line.replace(RULE_SLOT, rule).replace("<topic>", "gen")
    _run_line(project.root, command)
    (saved,) = [
        json.loads(p.read_text())
        for p in project.lessons_dir.glob("*.json")
        if json.loads(p.read_text())["rule"] == rule
    ]
    assert saved["triggers"]["files"] == ["src/a.py"]
    assert saved["evidence"] == [f"correction: {CORRECTION}"]
    assert shlex.split(command)[0] == "sh"


def test_a_broken_evidence_record_fails_open(project: Layout) -> None:
    """Evidence of the wrong shapes in the session file: the hooks stay silent, nothing
    is asked, and the rest of the session is kept."""
    harness = HARNESSES["claude-code"]
    harness.act(project.root)
    (path,) = (project.local_dir / SESSIONS).glob("*.json")
    data = json.loads(path.read_text())
    data["evidence"] = {"action": "src/a.py", "corrections": [1, {"action": 2}], "failed": []}
    path.write_text(json.dumps(data))
    assert harness.finish(project.root) is None
    harness.say(project.root, CORRECTION)
    assert harness.finish(project.root) is None
    assert not (project.local_dir / "hook.log").exists()


def _claude_call(root: Path, command: str, *, failed: bool) -> None:
    """A Claude Code Bash call of ``command`` in session s-1: its PreToolUse, and when
    ``failed`` its PostToolUseFailure (exit 1)."""
    tool_input = {"command": command, "description": "run it"}
    pre = payload("claude-code", "pre_tool_use_bash_failing", root, session_id="s-1")
    answer("claude-code", {**pre, "tool_input": tool_input})
    if failed:
        fail = payload("claude-code", "post_tool_use_failure_bash", root, session_id="s-1")
        answer("claude-code", {**fail, "tool_input": tool_input})


@pytest.mark.parametrize(
    "calls",
    [
        # the same command again after an ordinary failure (exit 1): the usual loop
        (("make gen-docs", True), ("make gen-docs", False)),
        # a changed form that failed as well: nothing worked
        (("make deploy-prod", True), ("make deploy ENV=prod", True)),
        # a changed form, but not right after the failure
        (("make deploy-prod", True), ("git commit -m wip", False), ("make deploy", False)),
        # one failure, then other work: nothing fixed, nothing recurred
        (("make gen-docs", True), ("make build", False)),
    ],
)
def test_failures_nothing_related_fixed_are_no_evidence(
    project: Layout, calls: tuple[tuple[str, bool], ...]
) -> None:
    """The stop passes untouched."""
    for command, failed in calls:
        _claude_call(project.root, command, failed=failed)
    assert HARNESSES["claude-code"].finish(project.root) is None


def _replay(root: Path, name: str) -> None:
    """A session built from the harvest fixture ``name``, recorded from the real Claude
    Code CLI: each call's PreToolUse, and for a call that failed its PostToolUseFailure
    with the error the client recorded, in session s-1."""
    text = (HARVEST / f"{name}.jsonl").read_text().replace(REPO_PLACEHOLDER, str(root))
    (root.parent / f"{name}.jsonl").write_text(text)
    calls: dict[str, dict[str, Any]] = {}
    for item in stream_transcript(root.parent / f"{name}.jsonl", Transcript()):
        if isinstance(item, Step) and item.call is not None:
            call = {"tool_name": item.call.name, "tool_input": item.call.input}
            calls[item.call.id] = call
            pre = payload("claude-code", "pre_tool_use_edit", root, session_id="s-1")
            answer("claude-code", {**pre, **call, "tool_use_id": item.call.id})
        elif isinstance(item, Result) and item.failed and item.call_id in calls:
            fail = payload("claude-code", "post_tool_use_failure_bash", root, session_id="s-1")
            error = {"error": item.text, "tool_use_id": item.call_id}
            answer("claude-code", {**fail, **calls[item.call_id], **error})
    assert len(calls) >= 3


def test_a_changed_form_that_worked_right_after_a_failure_is_evidence(project: Layout) -> None:
    """The recorded session: no deploy-prod target, then `make deploy ENV=prod`. The
    request names both, and its line (the failed command as trigger, the rule drafted from
    the one that worked) saves the lesson once its topic is filled in."""
    _replay(project.root, "fail_fix_other_target")
    reason = _reason(HARNESSES["claude-code"].finish(project.root))
    told = (
        "- the command 'make deploy-prod' failed (exit 2: No rule to make target); "
        "right after it, 'make deploy ENV=prod' worked"
    )
    assert told in reason
    line = next(x for x in reason.splitlines() if " add " in x).strip()
    assert "add \"Run 'make deploy ENV=prod', not 'make deploy-prod'.\" --topic <topic> " in line
    assert "--trigger-cmd '^make deploy-prod'" in line
    _run_line(project.root, line.replace("<topic>", "deploy"))
    (lesson,) = (
        json.loads(path.read_text())
        for path in project.lessons_dir.glob("*.json")
        if "deploy-prod" in path.read_text()
    )
    assert lesson["rule"] == "Run 'make deploy ENV=prod', not 'make deploy-prod'."
    assert lesson["triggers"]["commands"] == ["^make deploy-prod"]
    expected = "failed (exit 2: No rule to make target), then worked as: make deploy ENV=prod"
    assert lesson["evidence"] == [expected]


def test_a_changed_form_holding_a_secret_is_kept_as_its_words(project: Layout) -> None:
    """The form that worked passed a password: the session file and the request keep the
    words that name it, never the value; a pure read in between changes nothing."""
    _claude_call(project.root, "deployer push-prod", failed=True)
    _claude_call(project.root, "cat deploy.cfg", failed=False)
    _claude_call(project.root, "deployer push --password hunter2hunter2 prod", failed=False)
    stored = "".join(p.read_text() for p in (project.local_dir / SESSIONS).glob("*.json"))
    assert "deployer push" in stored
    assert "hunter2" not in stored
    reason = _reason(HARNESSES["claude-code"].finish(project.root))
    assert "right after it, 'deployer push' worked" in reason
    assert "hunter2" not in reason


def test_a_program_run_as_a_module_after_it_was_not_found_is_evidence(project: Layout) -> None:
    """The recorded session: `mycheck` is not found, `python3 -m mycheck` runs."""
    _replay(project.root, "fail_fix_module_runner")
    reason = _reason(HARNESSES["claude-code"].finish(project.root))
    assert "'mycheck' failed (exit 127: command not found); right after it, " in reason
    assert "\"Run 'python3 -m mycheck', not 'mycheck'.\"" in reason


def test_the_same_command_passing_after_a_missing_module_is_evidence(project: Layout) -> None:
    """The recorded session: a missing module, the module written, the same command
    passing: an environment error, so a request naming the command."""
    _replay(project.root, "fail_fix_missing_module")
    reason = _reason(HARNESSES["claude-code"].finish(project.root))
    told = "'python3 tools/gen.py' failed (exit 1: ModuleNotFoundError), then was made again"
    assert told in reason
    assert "--trigger-cmd '^python3 tools/gen\\.py'" in reason


@pytest.mark.parametrize(
    "name", ["test_edit_loop", "fail_fix_command", "fail_fix_after_other_error", "fail_fix_edit"]
)
def test_ordinary_loops_and_edit_slips_are_no_evidence(project: Layout, name: str) -> None:
    """The recorded sessions: a test failing until the code changed, a target the agent
    wrote itself, one failing two ways before it passed, an edit whose old text was not
    in the file: the stop passes untouched."""
    _replay(project.root, name)
    assert HARNESSES["claude-code"].finish(project.root) is None


def test_a_retry_that_fails_too_is_a_recurrence_not_a_fix(project: Layout) -> None:
    """Failing twice with one error class and no lesson about it: an uncovered recurrence,
    named with how often it failed."""
    _claude_call(project.root, "make gen-docs", failed=True)
    _claude_call(project.root, "make gen-docs", failed=True)
    reason = _reason(HARNESSES["claude-code"].finish(project.root))
    assert "failed 2 times (exit 1); no lesson covers it" in reason
    assert "then was made again" not in reason


def test_failures_a_lesson_covers_are_no_evidence(project: Layout) -> None:
    """A lesson about the command exists: neither its fix by a changed form nor its
    recurrence asks for another."""
    write_lesson(project, "docs-gen", "Run make deps before make gen-docs.", commands=("make",))
    _claude_call(project.root, "make gen-docs-all", failed=True)
    _claude_call(project.root, "make gen-docs", failed=False)
    _claude_call(project.root, "make lint", failed=True)
    _claude_call(project.root, "make lint", failed=True)
    assert HARNESSES["claude-code"].finish(project.root) is None


def test_gemini_fail_then_fix_from_its_after_tool_payloads(project: Layout) -> None:
    """Gemini CLI's failing AfterTool (Exit Code: 1), the same command again with a clean
    AfterTool: AfterAgent asks, naming the command."""
    gemini = HARNESSES["gemini"]
    for before, after in (
        ("before_tool_shell", "after_tool_shell_failing"),
        ("before_tool_shell", "after_tool_shell"),
    ):
        changes = {"session_id": "s-1", "tool_input": {"command": "python3 -m gen_docs"}}
        answer("gemini", payload("gemini", before, project.root, **changes))
        answer("gemini", payload("gemini", after, project.root, **changes))
    reason = _reason(gemini.finish(project.root))
    assert "--trigger-cmd '^python3 -m gen_docs'" in reason
    assert "then was made again without failing" in reason


def test_copilot_fail_then_fix_from_its_post_tool_use_payloads(project: Layout) -> None:
    """Copilot CLI's shell call that exits 1 (a postToolUse whose result ends with the
    exit code), made again: agentStop asks."""
    args = {"command": "python3 -m gen_docs", "description": "run it"}
    for name in ("pre_tool_use_bash", "post_tool_use_bash_failing", "pre_tool_use_bash"):
        answer("copilot", payload("copilot", name, project.root, sessionId="s-1", toolArgs=args))
    reason = _reason(HARNESSES["copilot"].finish(project.root))
    assert "--trigger-cmd '^python3 -m gen_docs'" in reason
