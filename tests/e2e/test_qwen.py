"""The real Qwen Code CLI, wired with `lessons init --qwen`, against a fake model.

`bash scripts/test` installs the pinned client into ./.e2e. Each test drives
`qwen -p ... --yolo` in a temp git repo whose home is a temp folder too; the model is
`fake_chat_completions.FakeModel` on a free loopback port, which issues scripted tool calls
and records every request. Qwen Code drops PreToolUse context, so a file rule comes from
PostToolUse, appended to the edit's result. Every test ends by checking that no hook
failed (`.lessons/local/hook.log` stays empty).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from lessons_cli.harnesses import wirings
from lessons_core.delivery.deliver import GATE_PREFIX, session_note
from lessons_core.store.layout import Layout
from tests.e2e.change_gates import (
    assert_each_refused_once_then_applied,
    script_new_file_and_shell_write,
)
from tests.e2e.fake_chat_completions import (
    first_with,
    is_compaction,
    messages_of,
    request_text,
    tool_results,
)
from tests.e2e.fake_server import ToolCall
from tests.e2e.qwen_project import QwenProject, edit_call, read_call, shell_call
from tests.e2e.sample_repo import (
    APP_RULE,
    NUDGE_MARK,
    RELEASE_RULE,
    assert_fix_captured,
    fix_scenario,
    log_recalls,
    logged_recalls,
    nudge_line,
    saved_lesson,
)

pytestmark = pytest.mark.e2e


@pytest.fixture
def project(qwen_project: QwenProject) -> Iterator[QwenProject]:
    """The wired repo; afterwards, proof that no hook call failed."""
    yield qwen_project
    hook_log = qwen_project.root / ".lessons" / "local" / "hook.log"
    assert not hook_log.exists() or hook_log.read_text() == ""


def test_the_settings_init_writes_are_what_qwen_loads(project: QwenProject) -> None:
    """init wrote Claude Code's format in .qwen/settings.json, through the launcher; the
    client ran SessionStart and UserPromptSubmit: the note and a keyword rule reach the
    model with the prompt."""
    written = json.loads((project.root / ".qwen" / "settings.json").read_text())
    assert set(written["hooks"]) == {event.name for event in wirings()["qwen"].events}
    command = 'sh "$QWEN_PROJECT_DIR/.lessons/run" hook qwen || true'
    for entries in written["hooks"].values():
        (entry,) = entries
        assert entry["hooks"] == [{"type": "command", "command": command, "timeout": 10000}]
    rule = "Write a migration note in docs/migrations.md for every schema change."
    project.lessons("add", rule, "--topic", "db", "--trigger-keyword", "schema")
    project.fake.scenarios["hello"] = []
    project.qwen("SCENARIO:hello change the schema")
    first = request_text(project.fake.requests[0])
    assert session_note(Layout(project.root)) in first
    assert rule in first
    assert "[lessons]" in first
    assert "&lt;lessons" not in first


def test_gate_delivers_the_rule_before_the_command_runs_and_the_retry_runs(
    project: QwenProject,
) -> None:
    """The rule reaches the model while released.txt does not exist; the retry creates it;
    a second matching command is neither refused nor shown the rule again."""
    fake = project.fake
    fake.scenarios["gate"] = [
        shell_call("bash scripts/release.sh"),
        shell_call("bash scripts/release.sh"),
    ]
    project.qwen("SCENARIO:gate release it")
    first = first_with(fake.requests, RELEASE_RULE)
    assert fake.observed[first] is False  # the model read the rule before anything ran
    assert tool_results(fake.requests[first])[-1].startswith(GATE_PREFIX)
    assert (project.root / "released.txt").exists()  # the retried call ran
    results = tool_results(fake.requests[-1])
    assert [r.startswith(GATE_PREFIX) for r in results] == [True, False, False]
    assert request_text(fake.requests[-1]).count(RELEASE_RULE) == 1


def test_read_file_brings_the_rule_before_the_edit_once(project: QwenProject) -> None:
    """PreToolUse context is dropped by Qwen, so the rule comes from PostToolUse of the
    read: appended to read_file's result, in the request the model answers with its edit,
    while the file is unchanged; the edits run unrefused and add nothing."""
    fake = project.fake
    fake.probe = (project.root / "src" / "app.py").read_text
    fake.scenarios["context"] = [
        read_call(project.root),  # Qwen edits only files read in the session
        edit_call(project.root, "VALUE = 1", "VALUE = 2"),
        edit_call(project.root, "VALUE = 2", "VALUE = 3"),
    ]
    project.qwen("SCENARIO:context change the app")
    first = first_with(fake.requests, APP_RULE)
    assert fake.observed[first] == "VALUE = 1\n"  # the model had the rule before the edit
    result = tool_results(fake.requests[first])[-1]
    assert "VALUE = 1" in result  # the read's result
    assert APP_RULE in result
    assert "[lessons]" in result  # a fence that Qwen's HTML escaping leaves alone
    assert "&lt;" not in result
    answer = messages_of(fake.requests[first + 1])[len(messages_of(fake.requests[first]))]
    assert answer["tool_calls"][0]["function"]["name"] == "edit"
    assert (project.root / "src" / "app.py").read_text() == "VALUE = 3\n"
    assert not any(GATE_PREFIX in r for r in tool_results(fake.requests[-1]))
    assert request_text(fake.requests[-1]).count(APP_RULE) == 1


def test_a_new_file_and_a_shell_write_are_refused_once_with_their_rule(
    project: QwenProject,
) -> None:
    """write_file of a new file under a folder rule is refused with the rule before the
    file exists, and the retry writes it; a heredoc through the shell writing src/app.py
    is refused with its rule before the file changed, and its retry runs."""
    write = lambda path, text: ToolCall("write_file", {"file_path": path, "content": text})  # noqa: E731
    script_new_file_and_shell_write(project, write, shell_call)
    project.qwen("SCENARIO:new add a module")
    assert_each_refused_once_then_applied(project)


def test_after_compaction_the_rule_is_delivered_again(project: QwenProject) -> None:
    """A compaction in the middle of a run (the model reports a nearly full context) fires
    PreCompact: the read of the file after it brings its rule again."""
    fake = project.fake
    fake.scenarios["long"] = [
        read_call(project.root),
        edit_call(project.root, "VALUE = 1", "VALUE = 2"),
        shell_call("echo one"),  # its reply reports the full context: compaction follows
        shell_call("echo two"),
        read_call(project.root),  # a compacted session has to read the file again
        edit_call(project.root, "VALUE = 2", "VALUE = 3"),
    ]
    fake.full_at["long"] = 2
    project.qwen("SCENARIO:long edit")
    summaries = [i for i, r in enumerate(fake.requests) if is_compaction(messages_of(r))]
    deliveries = [
        i for i, r in enumerate(fake.requests) if APP_RULE in (tool_results(r) or [""])[-1]
    ]
    assert len(deliveries) == 2  # once with each read: before and after the compaction
    assert deliveries[0] < summaries[0] < deliveries[1]
    assert request_text(fake.requests[-1]).count(APP_RULE) == 1  # the first went with the summary
    assert (project.root / "src" / "app.py").read_text() == "VALUE = 3\n"


def test_failed_calls_get_one_capture_nudge_each(project: QwenProject) -> None:
    """PostToolUseFailure follows a failed edit and a command that exits non-zero: the
    edit whose old text is not there is the work (no nudge); the command a lesson could
    prevent (a script that is not there) carries one ready capture line."""
    fake = project.fake
    fake.scenarios["fail"] = [
        read_call(project.root),
        edit_call(project.root, "NOT THERE", "x"),
        edit_call(project.root, "NOT THERE EITHER", "x"),
        shell_call("bash scripts/deploy.sh"),
    ]
    project.qwen("SCENARIO:fail edit")
    results = tool_results(fake.requests[-1])
    nudged = [r for r in results if "/.lessons/run add " in r]
    assert len(nudged) == 1
    assert "--trigger-cmd" in nudged[0]
    assert "Exit Code: 127" in nudged[0]


def test_the_agent_captures_a_lesson_with_the_line_the_nudge_gave(project: QwenProject) -> None:
    """lessons is not on the client's PATH (only in ~/.local/bin, as pipx leaves it): a
    failed command brings the nudge; the model runs its line through the shell tool, with
    the placeholders (which Qwen shows HTML-escaped) filled in, and the lesson appears."""
    project.on_path = False
    fake = project.fake
    fake.scenarios["fail"] = [shell_call("make deploy-staging")]
    project.qwen("SCENARIO:fail deploy it")
    (nudge,) = [t for t in tool_results(fake.requests[-1]) if NUDGE_MARK in t]
    rule = "Deploy to staging with scripts/deploy.sh; make has no deploy target."
    command = nudge_line(nudge, rule, "deploy", escaped=True)
    assert command.startswith(f"sh {project.root}/.lessons/run add ")
    fake.scenarios["capture"] = [shell_call(command)]
    project.qwen("SCENARIO:capture keep it")
    assert saved_lesson(project.root, rule)["triggers"]["commands"] == ["^make deploy-staging"]


def test_uncovered_calls_and_pure_reads_add_no_text(project: QwenProject) -> None:
    """A file no lesson covers, cat and read_file of an uncovered file, a search, a plain
    command."""
    fake = project.fake
    root = project.root
    fake.scenarios["quiet"] = [
        ToolCall("write_file", {"file_path": str(root / "docs.md"), "content": "# Notes\n"}),
        shell_call("cat docs.md && ls scripts"),
        ToolCall("read_file", {"file_path": str(root / "docs.md")}),
        ToolCall("grep_search", {"pattern": "VALUE"}),
        shell_call("echo done > out.txt"),
    ]
    log_recalls(root)
    project.qwen("SCENARIO:quiet look around")
    assert (root / "out.txt").exists()
    assert (root / "docs.md").exists()
    assert len(tool_results(fake.requests[-1])) == 5
    # The hooks ran on those calls (telemetry logs each recall) and delivered nothing.
    recalls = logged_recalls(root)
    assert {"docs.md", "cat docs.md && ls scripts", "echo done > out.txt"} <= set(recalls)
    assert not any(recalls.values()), recalls
    for request in fake.requests:
        text = request_text(request)
        assert APP_RULE not in text
        assert RELEASE_RULE not in text
        assert "[lessons]" not in text  # no block, in either fence
        assert "lessons&gt;" not in text
        assert "<lessons>" not in text


FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "qwen"


def test_a_failure_fixed_in_the_session_is_asked_for_at_its_stop(project: QwenProject) -> None:
    """`make check-all` exits 2 (no such target), `make check` passes: Stop asks once, the
    model runs the prefilled line through the shell tool, the lesson appears, and the next
    Stop (``stop_hook_active``) lets the run end. A second Stop hook beside ours keeps
    what the client sent: the payload tests/fixtures/qwen/stop.json holds."""
    root = project.root
    stops = project.home / "stops.jsonl"
    settings = root / ".qwen" / "settings.json"
    wired = json.loads(settings.read_text())
    record = {"type": "command", "command": f"cat >> {stops} && echo >> {stops}"}
    wired["hooks"]["Stop"][0]["hooks"].append(record)
    settings.write_text(json.dumps(wired))
    asked = fix_scenario(root, project.fake, shell_call)
    project.qwen("SCENARIO:fix check the build")
    assert_fix_captured(root, asked)
    sent = [json.loads(line) for line in stops.read_text().splitlines() if line.strip()]
    assert [payload["stop_hook_active"] for payload in sent] == [False, True]
    stored = json.loads((FIXTURES / "stop.json").read_text())
    assert set(sent[0]) == set(stored)
    assert stored["hook_event_name"] == "Stop"
