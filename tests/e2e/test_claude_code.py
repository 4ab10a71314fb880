"""The real Claude Code CLI, wired with `lessons init --claude-code`, against a fake model.

`bash scripts/test` installs the pinned client into ./.e2e. Each test drives `claude -p`
in a temp git repo whose home and config directories are temp folders too; the model is
`fake_anthropic.FakeModel` on a free loopback port, which issues scripted tool calls and
records every request, so the assertions read exactly what reached the model and when.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from lessons_core.delivery.deliver import GATE_PREFIX
from tests.e2e.claude_project import (
    CLAUDE_EVENTS,
    TOOLS,
    Project,
    bash_call,
    edit_call,
    record_payloads,
    write_call,
)
from tests.e2e.fake_anthropic import result_text, tool_results
from tests.e2e.fake_server import ToolCall
from tests.e2e.sample_repo import (
    ALWAYS_RULE,
    APP_RULE,
    NUDGE_MARK,
    RELEASE_RULE,
    lessons,
    log_recalls,
    logged_recalls,
    nudge_line,
    payload_shape,
    saved_lesson,
)

pytestmark = pytest.mark.e2e


def _blob(request: dict[str, Any]) -> str:
    return json.dumps(request["messages"])


def _first_with(requests: list[dict[str, Any]], text: str) -> int:
    return next(i for i, r in enumerate(requests) if text in _blob(r))


def test_gate_delivers_the_rule_before_the_command_runs_and_the_retry_runs(
    project: Project,
) -> None:
    """The rule reaches the model while released.txt does not exist; the retry creates it."""
    fake = project.fake
    fake.scenarios["gate"] = [
        bash_call("bash scripts/release.sh"),
        bash_call("bash scripts/release.sh"),
    ]
    result = project.claude("SCENARIO:gate release it", "--allowedTools", TOOLS)
    first = _first_with(fake.requests, RELEASE_RULE)
    assert fake.observed[first] is False  # the model read the rule before anything ran
    denial = tool_results(fake.requests[first])[-1]
    assert denial["is_error"] is True
    assert GATE_PREFIX in result_text(denial)
    assert (project.root / "released.txt").exists()  # the retried call ran
    assert [d["tool_name"] for d in result["permission_denials"]] == ["Bash"]
    # The second matching call in the same session added nothing: shown once, gated once.
    assert _blob(fake.requests[-1]).count(RELEASE_RULE) == 1


def _answer_to(requests: list[dict[str, Any]], index: int) -> str:
    """The tool the model called in its answer to request ``index``: the last tool call
    of the request after it (Claude Code merges a turn's calls into one message)."""
    later = requests[index + 1]["messages"]
    answer = next(m for m in reversed(later) if m.get("role") == "assistant")
    content = answer.get("content")
    blocks = content if isinstance(content, list) else []
    calls = [str(b["name"]) for b in blocks if isinstance(b, dict) and b.get("type") == "tool_use"]
    return calls[-1]


def _first_refusal_with(requests: list[dict[str, Any]], text: str) -> int:
    """The first request whose newest tool result is an error holding ``text``."""
    return next(
        i
        for i, r in enumerate(requests)
        if tool_results(r)
        and tool_results(r)[-1].get("is_error")
        and text in result_text(tool_results(r)[-1])
    )


def _app_text(project: Project) -> Callable[[], str]:
    return (project.root / "src" / "app.py").read_text


def test_a_read_brings_the_file_rule_before_the_edit_and_the_edit_runs(
    project: Project,
) -> None:
    """Read, then Edit: the rule arrives beside the Read's result, in the request the
    model answers with its Edit, while the file is unchanged; the Edit runs unrefused
    and adds nothing."""
    fake = project.fake
    fake.probe = _app_text(project)
    fake.scenarios["read"] = [
        ToolCall("Read", {"file_path": str(project.root / "src" / "app.py")}),
        edit_call(project.root, "VALUE = 1", "VALUE = 2"),
    ]
    result = project.claude("SCENARIO:read change the app", "--allowedTools", TOOLS)
    assert result["permission_denials"] == []
    first = _first_with(fake.requests, APP_RULE)
    assert fake.observed[first] == "VALUE = 1\n"  # the model had the rule before the change
    assert _answer_to(fake.requests, first) == "Edit"
    assert "VALUE = 1" in result_text(tool_results(fake.requests[first])[-1])  # the Read's
    assert (project.root / "src" / "app.py").read_text() == "VALUE = 2\n"
    assert _blob(fake.requests[-1]).count(APP_RULE) == 1


def test_a_second_session_is_answered_by_hooks_that_leave_no_process(
    project: Project,
) -> None:
    """Two real sessions: each hook answers in the process Claude Code started for it,
    the rule comes with the read before the edit in both, and once the client has exited
    no process that carries its environment is left."""
    fake = project.fake
    mark = f"lessons-e2e-{uuid.uuid4().hex}"
    fake.scenarios["read"] = [
        ToolCall("Read", {"file_path": str(project.root / "src" / "app.py")}),
        edit_call(project.root, "VALUE = 1", "VALUE = 2"),
    ]
    project.claude("SCENARIO:read change the app", "--allowedTools", TOOLS, LESSONS_E2E_MARK=mark)
    fake.requests.clear()
    fake.observed.clear()
    fake.probe = _app_text(project)
    fake.scenarios["read"] = [
        ToolCall("Read", {"file_path": str(project.root / "src" / "app.py")}),
        edit_call(project.root, "VALUE = 2", "VALUE = 3"),
    ]
    result = project.claude(
        "SCENARIO:read change it again", "--allowedTools", TOOLS, LESSONS_E2E_MARK=mark
    )
    assert result["permission_denials"] == []
    first = _first_with(fake.requests, APP_RULE)
    assert fake.observed[first] == "VALUE = 2\n"
    assert _answer_to(fake.requests, first) == "Edit"
    assert _processes_with(f"LESSONS_E2E_MARK={mark}") == []


def _processes_with(variable: str) -> list[str]:
    """Command lines of the processes whose environment holds ``variable``."""
    found = []
    for entry in Path("/proc").iterdir():
        try:
            if entry.name.isdigit() and variable.encode() in (
                (entry / "environ").read_bytes().split(b"\0")
            ):
                found.append((entry / "cmdline").read_bytes().decode(errors="replace"))
        except OSError:  # gone meanwhile
            continue
    return found


def test_a_new_file_is_refused_once_with_its_rule_and_the_retry_writes_it(
    project: Project,
) -> None:
    """Write of a new file under a folder rule: nothing can be read first, so the first
    Write is refused with the rule before the file exists; the retry writes it."""
    storage_rule = "Open files under src/storage through storage.paths only."
    lessons(
        project.root, "add", storage_rule, "--topic", "storage", "--trigger-file", "src/storage/**"
    )
    fake = project.fake
    fresh = project.root / "src" / "storage" / "fresh.py"
    fake.probe = fresh.exists
    fake.scenarios["new"] = [write_call(project.root, "src/storage/fresh.py", "X = 1\n")]
    result = project.claude("SCENARIO:new add a storage module", "--allowedTools", TOOLS)
    first = _first_with(fake.requests, storage_rule)
    assert fake.observed[first] is False
    denial = tool_results(fake.requests[first])[-1]
    assert denial["is_error"] is True
    assert GATE_PREFIX in result_text(denial)
    assert [d["tool_name"] for d in result["permission_denials"]] == ["Write"]
    assert fresh.read_text() == "X = 1\n"
    assert _blob(fake.requests[-1]).count(storage_rule) == 1


def test_a_shell_write_is_refused_once_and_a_shell_read_brings_the_rule(
    project: Project,
) -> None:
    """A heredoc through Bash writing a new file under a folder rule is refused with the
    rule before the file exists, and the retry writes it; `sed -n` of a covered file
    brings its rule beside the output, so the Edit after it runs unrefused."""
    storage_rule = "Open files under src/storage through storage.paths only."
    glob = "src/storage/**"
    lessons(project.root, "add", storage_rule, "--topic", "storage", "--trigger-file", glob)
    fake = project.fake
    generated = project.root / "src" / "storage" / "gen.py"
    fake.probe = lambda: (generated.exists(), _app_text(project)())
    (project.root / "src" / "storage").mkdir()
    fake.scenarios["shell"] = [
        bash_call("cat > src/storage/gen.py <<'EOF'\nX = 1\nEOF"),
        bash_call("sed -n 1,200p src/app.py"),
        edit_call(project.root, "VALUE = 1", "VALUE = 2"),
    ]
    result = project.claude("SCENARIO:shell generate and change", "--allowedTools", TOOLS)
    refused = _first_refusal_with(fake.requests, storage_rule)
    assert fake.observed[refused] == (False, "VALUE = 1\n")
    assert generated.read_text() == "X = 1\n"
    first = _first_with(fake.requests, APP_RULE)
    assert fake.observed[first] == (True, "VALUE = 1\n")
    assert "VALUE = 1" in result_text(tool_results(fake.requests[first])[-1])  # sed's output
    assert _answer_to(fake.requests, first) == "Edit"
    assert [d["tool_name"] for d in result["permission_denials"]] == ["Bash"]
    assert (project.root / "src" / "app.py").read_text() == "VALUE = 2\n"


def test_a_lesson_added_after_the_read_refuses_the_edit_once(project: Project) -> None:
    """The Read brought the file's rule; a lesson added since (through Bash) had not come:
    the Edit is refused once with it alone, before the file changed; the retry runs."""
    added = "Keep VALUE an int literal in src/app.py; a tool parses it."
    add = f"sh {project.root}/.lessons/run add '{added}' --topic code --trigger-file src/app.py"
    fake = project.fake
    fake.probe = _app_text(project)
    fake.scenarios["added"] = [
        ToolCall("Read", {"file_path": str(project.root / "src" / "app.py")}),
        bash_call(add),
        edit_call(project.root, "VALUE = 1", "VALUE = 2"),
    ]
    result = project.claude("SCENARIO:added change the app", "--allowedTools", TOOLS)
    refused = _first_refusal_with(fake.requests, added)
    assert _first_with(fake.requests, APP_RULE) < refused
    assert fake.observed[refused] == "VALUE = 1\n"
    denial = tool_results(fake.requests[refused])[-1]
    assert GATE_PREFIX in result_text(denial)
    assert APP_RULE not in result_text(denial)  # shown with the read: not again
    assert [d["tool_name"] for d in result["permission_denials"]] == ["Edit"]
    assert (project.root / "src" / "app.py").read_text() == "VALUE = 2\n"


def test_after_compact_the_rule_is_delivered_again(project: Project) -> None:
    """/compact (run with --resume) resets the session: the next edit, with no read since,
    is refused once with the rule again, and its retry runs."""
    fake = project.fake
    fake.scenarios["before"] = [write_call(project.root, "src/app.py", "VALUE = 2\n")]
    fake.scenarios["again"] = [edit_call(project.root, "VALUE = 2", "VALUE = 3")]
    fake.scenarios["after"] = [edit_call(project.root, "VALUE = 3", "VALUE = 4")]
    session = project.claude("SCENARIO:before edit", "--allowedTools", TOOLS)["session_id"]
    assert _blob(fake.requests[-1]).count(APP_RULE) == 1
    start = len(fake.requests)
    project.claude("SCENARIO:again edit", "--resume", session, "--allowedTools", TOOLS)
    assert all(_blob(r).count(APP_RULE) == 1 for r in fake.requests[start:])  # resume keeps
    project.claude("/compact", "--resume", session)
    start = len(fake.requests)
    project.claude("SCENARIO:after edit", "--resume", session, "--allowedTools", TOOLS)
    counts = [_blob(r).count(APP_RULE) for r in fake.requests[start:]]
    assert counts[0] == 0  # compaction dropped it from the conversation...
    assert counts[-1] == 1  # ...and the next edit delivered it again, refusing it once
    denials = [b for r in fake.requests[start:] for b in tool_results(r) if b.get("is_error")]
    assert any(APP_RULE in result_text(b) for b in denials)
    assert (project.root / "src" / "app.py").read_text() == "VALUE = 4\n"


def test_uncovered_calls_and_pure_reads_add_no_text(project: Project) -> None:
    """A write no lesson covers, cat and Read of an uncovered file: no hook text at all."""
    fake = project.fake
    fake.scenarios["quiet"] = [
        write_call(project.root, "docs/notes.md", "# Notes\n"),
        bash_call("cat docs/notes.md && ls scripts"),
        ToolCall("Read", {"file_path": str(project.root / "docs" / "notes.md")}),
        bash_call("echo done > out.txt"),
    ]
    log_recalls(project.root)
    result = project.claude("SCENARIO:quiet look around", "--allowedTools", TOOLS)
    assert result["permission_denials"] == []
    assert (project.root / "out.txt").exists()
    # The hooks ran on those calls (telemetry logs each recall) and delivered nothing.
    recalls = logged_recalls(project.root)
    quiet = {"docs/notes.md", "cat docs/notes.md && ls scripts", "echo done > out.txt"}
    assert quiet <= set(recalls), recalls
    assert not any(recalls.values()), recalls
    for request in fake.requests:
        text = _blob(request)
        assert APP_RULE not in text
        assert RELEASE_RULE not in text
        assert "PreToolUse:" not in text  # Claude Code labels every hook's added context


def test_a_broken_trigger_and_a_bad_setting_silence_nothing(project: Project) -> None:
    """A lesson file edited by hand to hold the glob '[z-a]' (beside its good one), and a
    config.json with a setting of the wrong type: the real client's model still gets the
    command rule as a gate before the call ran, and both file rules with the refusal of
    the Write (not read first)."""
    broken_rule = "Regenerate generated code instead of editing it by hand."
    (project.root / ".lessons" / "lessons" / "gen-broken-glob.json").write_text(
        json.dumps(
            {
                "id": "gen-broken-glob",
                "rule": broken_rule,
                "topics": ["gen"],
                "triggers": {"files": ["[z-a]", "src/app.py"], "commands": [], "keywords": []},
                "evidence": [],
                "status": "active",
                "created": "2026-01-01",
            }
        )
    )
    config = project.root / ".lessons" / "config.json"
    config.write_text(json.dumps({**json.loads(config.read_text()), "max_tokens": "600"}))
    fake = project.fake
    fake.scenarios["broken"] = [
        bash_call("bash scripts/release.sh"),
        write_call(project.root, "src/app.py", "VALUE = 2\n"),
    ]
    project.claude("SCENARIO:broken release and change", "--allowedTools", TOOLS)
    gated = _first_with(fake.requests, RELEASE_RULE)
    assert fake.observed[gated] is False  # the gate still came before the command ran
    after_write = _first_with(fake.requests, APP_RULE)
    assert broken_rule in _blob(fake.requests[after_write])
    assert not (project.root / ".lessons" / "local" / "hook.log").exists()


def _strings(value: Any) -> Iterator[str]:
    """Every string inside a request body, however deeply nested."""
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for item in value.values():
            yield from _strings(item)
    elif isinstance(value, list):
        for item in value:
            yield from _strings(item)


def test_the_agent_captures_a_lesson_with_the_line_the_nudge_gave(project: Project) -> None:
    """lessons is not on the client's PATH (only in ~/.local/bin, as pipx leaves it): a
    failed command brings the nudge; the model runs its line through the Bash tool, with
    the rule filled in, and the lesson file appears."""
    project.on_path = False
    fake = project.fake
    fake.scenarios["fail"] = [bash_call("make deploy-staging")]
    project.claude("SCENARIO:fail deploy it", "--allowedTools", TOOLS)
    nudges = {t for r in fake.requests for t in _strings(r["messages"]) if NUDGE_MARK in t}
    assert len(nudges) == 1
    rule = "Deploy to staging with scripts/deploy.sh; make has no deploy target."
    command = nudge_line(nudges.pop(), rule, "deploy")
    assert command.startswith(f"sh {project.root}/.lessons/run add ")
    fake.scenarios["capture"] = [bash_call(command)]
    project.claude("SCENARIO:capture keep it", "--allowedTools", TOOLS)
    assert saved_lesson(project.root, rule)["triggers"]["commands"] == ["^make deploy-staging"]


def test_an_always_on_lesson_reaches_the_first_request_and_again_after_compact(
    project: Project,
) -> None:
    """`lessons add --always`: the rule is in the very first request the model gets (no
    tool call needed), and in the first request after /compact, once each time."""
    lessons(project.root, "add", ALWAYS_RULE, "--topic", "build", "--always")
    fake = project.fake
    session = project.claude("say hello")["session_id"]
    first = _first_with(fake.requests, "say hello")
    assert _blob(fake.requests[first]).count(ALWAYS_RULE) == 1
    assert all(ALWAYS_RULE not in _blob(r) for r in fake.requests[:first])
    project.claude("/compact", "--resume", session)
    start = len(fake.requests)
    project.claude("say hello again", "--resume", session)
    after = fake.requests[start:]
    assert after
    assert _blob(after[0]).count(ALWAYS_RULE) == 1  # compaction dropped it; the start re-added it


def test_a_prompt_naming_a_file_brings_its_rule_to_the_first_request(project: Project) -> None:
    """The prompt names the file by its basename and a line number: the model's first
    request carries the file's rule, labelled, before any tool call; once only."""
    fake = project.fake
    session = project.claude("why is `app.py:1` slow to import?")["session_id"]
    first = _first_with(fake.requests, "slow to import")
    blob = _blob(fake.requests[first])
    assert blob.count(APP_RULE) == 1
    assert "(named in the prompt: src/app.py)" in blob
    assert not tool_results(fake.requests[first])
    start = len(fake.requests)
    project.claude("and src/app.py:1 again?", "--resume", session)
    assert all(_blob(r).count(APP_RULE) == 1 for r in fake.requests[start:])


CLAUDE_FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "claude_code"
FIXTURE_FAILING = "false && exit 3"
# Fixtures of the same event whose payload only a particular call produces (a subagent's
# write, a failure of another kind): each is checked against the payload named here.
SAME_SHAPE = {
    "post_tool_use_failure_bash_module": "post_tool_use_failure_bash",
    "post_tool_use_failure_bash_not_found": "post_tool_use_failure_bash",
    "pre_tool_use_write_subagent": None,  # needs the Agent tool: recorded by hand
}


def _claude_fixture_kind(payload: dict[str, Any]) -> str:
    """The fixture file in tests/fixtures/claude_code a recorded payload is an instance of."""
    event = payload["hook_event_name"]
    if event == "SessionStart":
        return f"session_start_{payload['source']}"
    if event == "PreCompact":
        return f"pre_compact_{payload['trigger']}"
    if event == "PostToolUseFailure":
        return "post_tool_use_failure_bash"
    if event == "PreToolUse":
        if payload["tool_name"] == "Bash":
            failing = payload["tool_input"]["command"] == FIXTURE_FAILING
            return "pre_tool_use_bash_failing" if failing else "pre_tool_use_bash_redirect"
        return f"pre_tool_use_{payload['tool_name'].lower()}"
    return {"UserPromptSubmit": "user_prompt_submit", "Stop": "stop"}[event]


def test_the_fixtures_are_what_the_client_sends(project: Project, tmp_path: Path) -> None:
    """Each payload in tests/fixtures/claude_code has the keys and types Claude Code sends
    its hooks now: a user-level hook beside the repo's wiring records every event's stdin
    over a session (edits, a read, a command, a failing one, the stop) and its /compact."""
    recorded = tmp_path / "payloads.jsonl"
    record_payloads(project.home / ".claude" / "settings.json", recorded, CLAUDE_EVENTS)
    fake = project.fake
    fake.scenarios["rec"] = [
        write_call(project.root, "src/app.py", "VALUE = 2\n"),
        edit_call(project.root, "VALUE = 2", "VALUE = 3"),
        ToolCall("Read", {"file_path": str(project.root / "src" / "app.py")}),
        bash_call("echo built > side.txt"),
        bash_call(FIXTURE_FAILING),
    ]
    session = project.claude("SCENARIO:rec do it", "--allowedTools", TOOLS)["session_id"]
    project.claude("/compact", "--resume", session)
    payloads = [json.loads(line) for line in recorded.read_text().splitlines() if line]
    kinds = {_claude_fixture_kind(payload): payload for payload in payloads}
    expected = {path.stem for path in CLAUDE_FIXTURES.glob("*.json")} - set(SAME_SHAPE)
    assert sorted(kinds) == sorted(expected)
    for path in sorted(CLAUDE_FIXTURES.glob("*.json")):
        kind = SAME_SHAPE.get(path.stem, path.stem)
        if kind is None:
            continue
        fixture = json.loads(path.read_text())
        assert payload_shape(fixture) == payload_shape(kinds[kind]), path.name
