"""The real GitHub Copilot CLI, wired with `lessons init --copilot`, against a fake model.

`bash scripts/test` installs the pinned client into ./.e2e. Each test drives
`copilot -p ... --trust-folder` offline in a temp git repo whose home is a temp folder too;
the model is `fake_chat_completions.FakeModel` on a free loopback port, which issues
scripted tool calls and records every request, so the assertions read exactly what
reached the model and when. Every test ends by checking that no hook failed: lessons'
own log is empty and the client logged no hook error (a failing `preToolUse` hook would
refuse the call: Copilot fails closed).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from lessons_cli.harnesses import wirings
from lessons_core.delivery.deliver import GATE_PREFIX, session_note
from lessons_core.store.layout import Layout
from tests.e2e.copilot_project import (
    CopilotProject,
    bash_call,
    edit_call,
    session_id,
)
from tests.e2e.fake_chat_completions import (
    first_with,
    is_compaction,
    messages_of,
    request_text,
    text_of,
    tool_results,
)
from tests.e2e.fake_server import ToolCall
from tests.e2e.sample_repo import (
    ALWAYS_RULE,
    APP_RULE,
    NUDGE_MARK,
    RELEASE_RULE,
    assert_fix_captured,
    fix_scenario,
    nudge_line,
    payload_shape,
    recording_command,
    saved_lesson,
)

pytestmark = pytest.mark.e2e

DENIED = "Denied by preToolUse hook: "
PRE_CONTEXT = "Additional context from preToolUse hook:\n"
FAILURE_CONTEXT = 'Tool "edit" failed. Additional guidance from postToolUseFailure hooks:\n'


@pytest.fixture
def project(copilot_project: CopilotProject) -> Iterator[CopilotProject]:
    """The wired repo; afterwards, proof that every hook call exited 0 and logged nothing."""
    yield copilot_project
    hook_log = copilot_project.root / ".lessons" / "local" / "hook.log"
    assert not hook_log.exists() or hook_log.read_text() == ""
    client_log = copilot_project.client_log()
    assert "Loading repo hooks" in client_log
    assert (
        "hook" not in "".join(line for line in client_log.splitlines() if "[ERROR]" in line).lower()
    )


def test_the_file_init_writes_is_what_copilot_loads(project: CopilotProject) -> None:
    """init wrote Copilot's native format; the client ran its sessionStart and
    userPromptSubmitted hooks: the note opens the conversation, a keyword rule joins the
    prompt."""
    written = json.loads((project.root / ".github" / "hooks" / "lessons.json").read_text())
    assert written["version"] == 1
    spec = wirings()["copilot"]
    assert set(written["hooks"]) == {event.name for event in spec.events}
    for entries in written["hooks"].values():
        (entry,) = entries
        assert entry["type"] == "command"
        assert entry["timeoutSec"] == 10
        assert entry["bash"] == 'sh "$COPILOT_PROJECT_DIR/.lessons/run" hook copilot || true'
    rule = "Write a migration note in docs/migrations.md for every schema change."
    project.lessons("add", rule, "--topic", "db", "--trigger-keyword", "schema")
    project.fake.scenarios["hello"] = []
    project.copilot("SCENARIO:hello change the schema", "--trust-folder")
    (first,) = project.fake.requests
    users = [text_of(m) for m in messages_of(first) if m.get("role") == "user"]
    # sessionStart context comes first: the note, naming lessons as the agent's shell runs it
    assert users[0] == session_note(Layout(project.root))
    assert "SCENARIO:hello" in users[1]
    assert rule in users[1]  # userPromptSubmitted context is added to the prompt


def test_without_trust_no_hook_runs_and_doctor_says_so(project: CopilotProject) -> None:
    """Without --trust-folder or a trusted-folders entry the repo's hooks stay unloaded,
    and `lessons doctor` fails on exactly that; once trusted, both agree again."""
    assert project.doctor_says() == ["ok", "fail"]
    project.fake.scenarios["gate"] = [bash_call("bash scripts/release.sh")]
    project.copilot("SCENARIO:gate release it")
    assert (project.root / "released.txt").exists()
    note = session_note(Layout(project.root))
    assert all(note not in request_text(r) for r in project.fake.requests)
    assert all(RELEASE_RULE not in request_text(r) for r in project.fake.requests)
    project.trust_in_config()
    assert project.doctor_says() == ["ok", "ok"]
    project.copilot("SCENARIO:none hello")
    note = session_note(Layout(project.root))
    assert note in request_text(project.fake.requests[-1])  # trusted: the hooks ran


def test_gate_delivers_the_rule_before_the_command_runs_and_the_retry_runs(
    project: CopilotProject,
) -> None:
    """The rule reaches the model while released.txt does not exist; the retry creates it;
    a second matching command is neither refused nor shown the rule again."""
    fake = project.fake
    fake.scenarios["gate"] = [
        bash_call("bash scripts/release.sh"),
        bash_call("bash scripts/release.sh"),
    ]
    project.copilot("SCENARIO:gate release it", "--trust-folder")
    first = first_with(fake.requests, RELEASE_RULE)
    assert fake.observed[first] is False  # the model read the rule before anything ran
    denial = tool_results(fake.requests[first])[-1]
    assert denial.startswith(DENIED + GATE_PREFIX)
    assert (project.root / "released.txt").exists()  # the retried call ran
    results = tool_results(fake.requests[-1])
    assert len(results) == 3
    assert [r.startswith(DENIED) for r in results] == [True, False, False]
    assert request_text(fake.requests[-1]).count(RELEASE_RULE) == 1


def _view(root: Path, rel: str) -> ToolCall:
    return ToolCall("view", {"path": str(root / rel)})


def test_a_view_brings_the_rule_before_the_edit_and_only_once(project: CopilotProject) -> None:
    """view of src/app.py: the file rule arrives as a user message right after the view's
    result, in the request the model answers with its edit, while the file is unchanged;
    the edits run unrefused and add nothing."""
    fake = project.fake
    fake.probe = (project.root / "src" / "app.py").read_text
    fake.scenarios["view"] = [
        _view(project.root, "src/app.py"),
        edit_call(project.root, "VALUE = 1", "VALUE = 2"),
        edit_call(project.root, "VALUE = 2", "VALUE = 3"),
    ]
    project.copilot("SCENARIO:view change the app", "--trust-folder")
    first = first_with(fake.requests, APP_RULE)
    assert fake.observed[first] == "VALUE = 1\n"  # before the edit
    messages = messages_of(fake.requests[first])
    assert messages[-2]["role"] == "tool"
    assert "VALUE = 1" in text_of(messages[-2])  # the view's result
    assert messages[-1]["role"] == "user"
    assert text_of(messages[-1]).startswith(PRE_CONTEXT)
    assert APP_RULE in text_of(messages[-1])
    answer = messages_of(fake.requests[first + 1])[len(messages)]
    assert answer["tool_calls"][0]["function"]["name"] == "edit"
    assert (project.root / "src" / "app.py").read_text() == "VALUE = 3\n"
    assert not any(r.startswith(DENIED) for r in tool_results(fake.requests[-1]))
    assert request_text(fake.requests[-1]).count(APP_RULE) == 1


def test_a_new_file_and_a_shell_write_are_refused_once_with_their_rule(
    project: CopilotProject,
) -> None:
    """create of a new file under a folder rule is refused with the rule before the file
    exists, and the retry creates it; a heredoc through bash writing src/app.py is
    refused with its rule before the file changed, and its retry runs."""
    storage_rule = "Open files under src/storage through storage.paths only."
    project.lessons("add", storage_rule, "--topic", "storage", "--trigger-file", "src/storage/**")
    fresh = project.root / "src" / "storage" / "fresh.py"
    app = project.root / "src" / "app.py"
    fake = project.fake
    fresh.parent.mkdir()  # Copilot's create makes no folders
    fake.probe = lambda: (fresh.exists(), app.read_text())
    fake.scenarios["new"] = [
        ToolCall("create", {"path": str(fresh), "file_text": "X = 1\n"}),
        bash_call("cat > src/app.py <<'EOF'\nVALUE = 2\nEOF"),
    ]
    project.copilot("SCENARIO:new add a module", "--trust-folder")
    first = first_with(fake.requests, storage_rule)
    assert fake.observed[first] == (False, "VALUE = 1\n")
    assert tool_results(fake.requests[first])[-1].startswith(DENIED + GATE_PREFIX)
    second = first_with(fake.requests, APP_RULE)
    assert fake.observed[second] == (True, "VALUE = 1\n")
    assert tool_results(fake.requests[second])[-1].startswith(DENIED + GATE_PREFIX)
    assert fresh.read_text() == "X = 1\n"
    assert app.read_text() == "VALUE = 2\n"
    results = tool_results(fake.requests[-1])
    assert [r.startswith(DENIED) for r in results] == [True, False, True, False]


def test_after_compaction_the_rule_is_delivered_again(project: CopilotProject) -> None:
    """A compaction in the middle of a run (the model reports a nearly full prompt) resets
    the session: the view brought the rule before it, and the next edit of the file, not
    viewed since, is refused once with it after it; the retry runs."""
    fake = project.fake
    fake.scenarios["long"] = [
        _view(project.root, "src/app.py"),
        edit_call(project.root, "VALUE = 1", "VALUE = 2"),
        bash_call("echo one"),  # its reply reports the full prompt: compaction starts
        bash_call("echo two"),
        edit_call(project.root, "VALUE = 2", "VALUE = 3"),
    ]
    fake.full_at["long"] = 2
    project.copilot("SCENARIO:long edit", "--trust-folder")
    summaries = [i for i, r in enumerate(fake.requests) if is_compaction(messages_of(r))]
    assert len(summaries) == 1
    lasts = [text_of(messages_of(r)[-1]) for r in fake.requests]
    viewed = [i for i, t in enumerate(lasts) if t.startswith(PRE_CONTEXT) and APP_RULE in t]
    refused = [
        i
        for i, r in enumerate(fake.requests)
        if tool_results(r) and tool_results(r)[-1].startswith(DENIED) and APP_RULE in lasts[i]
    ]
    assert len(viewed) == 1
    assert viewed[0] < summaries[0] < refused[0]
    final = request_text(fake.requests[-1])
    assert "summarized" in final  # the conversation the model holds now is the summary...
    assert final.count(APP_RULE) == 1  # ...plus the rule the refusal after it brought
    assert (project.root / "src" / "app.py").read_text() == "VALUE = 3\n"


def test_a_resumed_session_is_shown_its_rules_again(project: CopilotProject) -> None:
    """Copilot resumes a conversation without the context hooks added to it: the rule the
    view brought is gone, and the first edit of the file after the resume is refused once
    with it again."""
    fake = project.fake
    project.trust_in_config()  # --resume refuses --trust-folder
    fake.scenarios["before"] = [
        _view(project.root, "src/app.py"),
        edit_call(project.root, "VALUE = 1", "VALUE = 2"),
    ]
    fake.scenarios["again"] = [edit_call(project.root, "VALUE = 2", "VALUE = 3")]
    session = session_id(project.copilot("SCENARIO:before edit"))
    assert request_text(fake.requests[-1]).count(APP_RULE) == 1
    start = len(fake.requests)
    project.copilot("SCENARIO:again edit", f"--resume={session}")
    counts = [request_text(r).count(APP_RULE) for r in fake.requests[start:]]
    assert counts[0] == 0  # the resumed conversation lost the context...
    assert counts[-1] == 1  # ...and the edit brought the rule again, refused once


def test_a_failed_edit_gets_no_capture_nudge(project: CopilotProject) -> None:
    """postToolUseFailure after an edit whose old text is not there: that is the work of
    editing, not a mistake a lesson prevents, so no `lessons add` line comes."""
    fake = project.fake
    fake.scenarios["fail"] = [
        edit_call(project.root, "NOT THERE", "x"),
        edit_call(project.root, "NOT THERE EITHER", "x"),
    ]
    project.copilot("SCENARIO:fail edit", "--trust-folder")
    last = messages_of(fake.requests[-1])
    assert [text_of(m) for m in last if text_of(m).startswith(FAILURE_CONTEXT)] == []


def test_the_agent_captures_a_lesson_with_the_line_the_nudge_gave(
    project: CopilotProject,
) -> None:
    """lessons is not on the client's PATH (only in ~/.local/bin, as pipx leaves it): a
    command that is not there brings the nudge; the model runs its line through the bash
    tool, with the rule filled in, and the lesson file appears."""
    project.on_path = False
    fake = project.fake
    fake.scenarios["fail"] = [bash_call("deploy-tool --env staging")]
    project.copilot("SCENARIO:fail deploy", "--trust-folder")
    texts = {t for r in fake.requests for t in map(text_of, messages_of(r))}
    (nudge,) = [t for t in texts if NUDGE_MARK in t]
    rule = "Deploy with scripts/deploy.sh; there is no deploy-tool here."
    command = nudge_line(nudge, rule, "deploy")
    assert command.startswith(f"sh {project.root}/.lessons/run add ")
    fake.scenarios["capture"] = [bash_call(command)]
    project.copilot("SCENARIO:capture keep it", "--trust-folder")
    assert saved_lesson(project.root, rule)["triggers"]["commands"]


def test_uncovered_calls_and_pure_reads_add_no_text(project: CopilotProject) -> None:
    """A file no lesson covers, cat and view of an uncovered file, a grep of the repo, a
    plain command: silence."""
    fake = project.fake
    root = project.root
    fake.scenarios["quiet"] = [
        ToolCall("create", {"path": str(root / "docs.md"), "file_text": "# Notes\n"}),
        bash_call("cat docs.md && ls scripts"),
        ToolCall("view", {"path": str(root / "docs.md")}),
        ToolCall("grep", {"pattern": "VALUE", "path": str(root)}),
        bash_call("echo done > out.txt"),
    ]
    project.copilot("SCENARIO:quiet look around", "--trust-folder")
    assert (root / "out.txt").exists()
    assert (root / "docs.md").exists()
    final = fake.requests[-1]
    assert len(tool_results(final)) == 5
    for request in fake.requests:
        text = request_text(request)
        assert APP_RULE not in text
        assert RELEASE_RULE not in text
        assert "preToolUse hook" not in text


def test_an_always_on_lesson_opens_the_conversation(project: CopilotProject) -> None:
    """`lessons add --always`: sessionStart's context, the first user message of the first
    request, is the note and then the rule, once."""
    project.lessons("add", ALWAYS_RULE, "--topic", "build", "--always")
    project.fake.scenarios["hello"] = []
    project.copilot("SCENARIO:hello say hi", "--trust-folder")
    first = project.fake.requests[0]
    users = [text_of(m) for m in messages_of(first) if m.get("role") == "user"]
    assert users[0].startswith(session_note(Layout(project.root)) + "\n<lessons>\n")
    assert f"{ALWAYS_RULE} (always on)" in users[0]
    assert request_text(first).count(ALWAYS_RULE) == 1


def test_a_failure_fixed_in_the_session_is_asked_for_at_its_stop(
    copilot_project: CopilotProject,
) -> None:
    """`make check-all` exits 2 (no such target), `make check` passes: agentStop asks once,
    the model runs the prefilled line through bash, and the lesson appears."""
    project = copilot_project
    asked = fix_scenario(project.root, project.fake, bash_call)
    project.copilot("SCENARIO:fix check the build", "--trust-folder")
    assert_fix_captured(project.root, asked)


COPILOT_FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "copilot"
COPILOT_EVENTS = (
    "sessionStart", "userPromptSubmitted", "preToolUse", "postToolUse", "postToolUseFailure",
    "preCompact", "agentStop",
)  # fmt: skip
FIXTURE_FAILING = "python3 -c 'import nosuchmod_xyz'"


def _copilot_fixture_kind(event: str, payload: dict[str, Any]) -> str | None:
    """The fixture file in tests/fixtures/copilot a payload of ``event`` is an instance of;
    None for a postToolUse other than the failing command's."""
    tool, args = payload.get("toolName"), payload.get("toolArgs", {})
    if event == "preToolUse" and tool == "bash":
        return (
            "pre_tool_use_bash_read" if args["command"].startswith("cat ") else "pre_tool_use_bash"
        )
    if event == "postToolUse":
        return "post_tool_use_bash_failing" if args.get("command") == FIXTURE_FAILING else None
    return {
        "sessionStart": f"session_start_{payload.get('source')}",
        "userPromptSubmitted": "user_prompt_submitted",
        "preToolUse": f"pre_tool_use_{tool}",
        "postToolUseFailure": f"post_tool_use_failure_{tool}",
        "preCompact": f"pre_compact_{payload.get('trigger')}",
        "agentStop": "agent_stop",
    }[event]


def test_the_fixtures_are_what_the_client_sends(project: CopilotProject, tmp_path: Path) -> None:
    """Each payload in tests/fixtures/copilot has the keys and types Copilot CLI sends its
    hooks now: a second hooks file beside lessons' records every event's stdin over a
    session (a create, edits, commands, a failing one, a failed edit, a compaction) and its
    resume. pre_compact_manual (`/compact` typed in the interactive client) is checked
    against the automatic compaction's payload: the same event."""
    recorded = tmp_path / "payloads"
    recorded.mkdir()
    handlers = {
        event: [{"type": "command", "bash": recording_command(recorded / event), "timeoutSec": 10}]
        for event in COPILOT_EVENTS
    }
    hooks = {"version": 1, "hooks": handlers}
    (project.root / ".github" / "hooks" / "record.json").write_text(json.dumps(hooks))
    project.trust_in_config()  # --resume refuses --trust-folder
    root, fake = project.root, project.fake
    fake.scenarios["rec"] = [
        ToolCall("create", {"path": str(root / "src" / "new.py"), "file_text": "X = 1\n"}),
        edit_call(root, "VALUE = 1", "VALUE = 2"),
        bash_call("cat src/app.py"),
        bash_call("bash scripts/release.sh"),
        bash_call(FIXTURE_FAILING),
        edit_call(root, "NOT THERE", "x"),
        bash_call("echo one"),  # its reply reports the full prompt: compaction starts
        bash_call("echo two"),
    ]
    fake.full_at["rec"] = 6
    fake.scenarios["again"] = []
    session = session_id(project.copilot("SCENARIO:rec do it"))
    project.copilot("SCENARIO:again hello", f"--resume={session}")
    kinds: dict[str, dict[str, Any]] = {}
    for event in COPILOT_EVENTS:
        file = recorded / event
        lines = file.read_text().splitlines() if file.exists() else []
        for payload in (json.loads(line) for line in lines if line):
            if (kind := _copilot_fixture_kind(event, payload)) is not None:
                kinds[kind] = payload
    expected = {path.stem for path in COPILOT_FIXTURES.glob("*.json")} - {"pre_compact_manual"}
    assert sorted(kinds) == sorted(expected)
    for path in sorted(COPILOT_FIXTURES.glob("*.json")):
        payload = kinds[path.stem.replace("_manual", "_auto")]
        assert payload_shape(json.loads(path.read_text())) == payload_shape(payload), path.name
