"""The real OpenCode CLI and Kilo Code CLI, wired with `lessons init --opencode` / `--kilo`,
against a fake model.

`bash scripts/test` installs the pinned clients into ./.e2e. Each test drives `CLI run ...`
in a temp git repo whose home is a temp folder too; the model is
`fake_chat_completions.FakeModel` on a free loopback port, which issues scripted tool calls
and records every request. The client loads the plugin `lessons init` wrote
(`.opencode/plugin/lessons.js`, `.kilo/plugin/lessons.js`) in every run: what the tests read
in the requests came through it. Every test ends by checking that no hook failed
(`.lessons/local/hook.log` stays empty).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from lessons_core.delivery.binding import ENFORCE_HEAD, FORBID_HEAD
from lessons_core.delivery.deliver import GATE_PREFIX, session_note
from lessons_core.feedback.stop_capture import REQUEST_MARK
from lessons_core.store.layout import Layout
from tests.e2e.fake_chat_completions import (
    assert_refused_once_then_ran,
    first_with,
    messages_of,
    request_text,
    text_of,
    tool_results,
)
from tests.e2e.fake_server import ToolCall
from tests.e2e.opencode_project import (
    KILO,
    OPENCODE,
    Client,
    OpenCodeProject,
    edit_call,
    make_project,
    read_call,
    shell_call,
    write_call,
)
from tests.e2e.sample_repo import (
    APP_RULE,
    CHECK_RULE,
    RELEASE_RULE,
    assert_fix_captured,
    fix_scenario,
    log_recalls,
    logged_recalls,
)

pytestmark = pytest.mark.e2e

CLIENTS = {"opencode": OPENCODE, "kilo": KILO}


@pytest.fixture(params=sorted(CLIENTS))
def project(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[OpenCodeProject]:
    """The wired repo for each client; afterwards, proof that no hook call failed."""
    client: Client = CLIENTS[request.param]
    if not client.binary.exists():
        pytest.fail(f"{client.name} is not installed at {client.binary}; run 'bash scripts/test'")
    wired = make_project(tmp_path, client)
    try:
        yield wired
    finally:
        wired.server.close()
    hook_log = wired.root / ".lessons" / "local" / "hook.log"
    assert not hook_log.exists() or hook_log.read_text() == ""


def last_results(project: OpenCodeProject) -> list[str]:
    return tool_results(project.fake.requests[-1])


def test_the_note_and_a_prompt_rule_come_with_the_first_prompt(project: OpenCodeProject) -> None:
    """The plugin init wrote is what the client loads: session.created makes the note due,
    chat.message brings it with a keyword rule, as a part of the user's message in the
    first request."""
    written = (project.root / project.client.folder / "plugin" / "lessons.js").read_text()
    assert f'const HARNESS = "{project.client.name}";' in written
    rule = "Write a migration note in docs/migrations.md for every schema change."
    project.lessons("add", rule, "--topic", "db", "--trigger-keyword", "schema")
    project.fake.scenarios["hello"] = []
    project.run("SCENARIO:hello change the schema")
    main = [r for r in project.fake.requests if r.get("tools")]
    (user,) = [m for m in messages_of(main[0]) if m["role"] == "user"]
    said = [part["text"] for part in user["content"]]
    assert said[0] == '"SCENARIO:hello change the schema"'
    assert session_note(Layout(project.root)) in said[1]
    assert rule in said[1]
    assert request_text(main[-1]).count(rule) == 1


def test_a_read_brings_the_file_rule_before_the_edit_once(project: OpenCodeProject) -> None:
    """The rule is appended to the read's result, in the request the model answers with
    its edit, while the file is unchanged; the edits run unrefused and add nothing."""
    fake = project.fake
    fake.probe = (project.root / "src" / "app.py").read_text
    fake.scenarios["context"] = [
        read_call(project.root),
        edit_call(project.root, "VALUE = 1", "VALUE = 2"),
        edit_call(project.root, "VALUE = 2", "VALUE = 3"),
    ]
    project.run("SCENARIO:context change the app")
    first = first_with(fake.requests, APP_RULE)
    assert fake.observed[first] == "VALUE = 1\n"  # the model had the rule before the edit
    result = tool_results(fake.requests[first])[-1]
    assert "1: VALUE = 1" in result  # the read's own output, then the rules
    assert result.endswith(f"<lessons>\n- {APP_RULE}\n</lessons>")
    answer = messages_of(fake.requests[first + 1])[len(messages_of(fake.requests[first]))]
    assert answer["tool_calls"][0]["function"]["name"] == "edit"
    assert (project.root / "src" / "app.py").read_text() == "VALUE = 3\n"
    assert not any(GATE_PREFIX in r for r in last_results(project))
    assert request_text(fake.requests[-1]).count(APP_RULE) == 1


def test_a_command_rule_refuses_once_and_the_retry_runs(project: OpenCodeProject) -> None:
    """The rule reaches the model as the refused call's result while released.txt does not
    exist; the retry creates it; a second matching command is neither refused nor shown
    the rule again."""
    fake = project.fake
    fake.scenarios["gate"] = [
        shell_call("bash scripts/release.sh"),
        shell_call("bash scripts/release.sh"),
    ]
    project.run("SCENARIO:gate release it")
    assert_refused_once_then_ran(fake, RELEASE_RULE)
    assert (project.root / "released.txt").exists()


def test_a_new_file_and_a_shell_write_are_refused_once_with_their_rule(
    project: OpenCodeProject,
) -> None:
    """A write of a new file under a folder rule is refused with the rule before the file
    exists, and the retry writes it; a heredoc through the shell writing src/app.py is
    refused with its rule before the file changed, and its retry runs."""
    storage_rule = "Open files under src/storage through storage.paths only."
    project.lessons("add", storage_rule, "--topic", "storage", "--trigger-file", "src/storage/**")
    fresh = project.root / "src" / "storage" / "fresh.py"
    app = project.root / "src" / "app.py"
    fake = project.fake
    fake.probe = lambda: (fresh.exists(), app.read_text())
    fake.scenarios["new"] = [
        write_call(fresh, "X = 1\n"),
        shell_call("cat > src/app.py <<'EOF'\nVALUE = 2\nEOF"),
    ]
    project.run("SCENARIO:new add a module")
    first = first_with(fake.requests, storage_rule)
    assert fake.observed[first] == (False, "VALUE = 1\n")
    assert tool_results(fake.requests[first])[-1].startswith(GATE_PREFIX)
    second = first_with(fake.requests, APP_RULE)
    assert fake.observed[second] == (True, "VALUE = 1\n")
    assert tool_results(fake.requests[second])[-1].startswith(GATE_PREFIX)
    assert fresh.read_text() == "X = 1\n"
    assert app.read_text() == "VALUE = 2\n"
    assert [GATE_PREFIX in r for r in last_results(project)] == [True, False, True, False]


def test_uncovered_calls_and_pure_reads_add_no_text(project: OpenCodeProject) -> None:
    """A file no lesson covers, cat and a read of an uncovered file, a search, a plain
    command: the hooks ran on each (telemetry) and the model saw no rule."""
    fake = project.fake
    root = project.root
    fake.scenarios["quiet"] = [
        write_call(root / "docs.md", "# Notes\n"),
        shell_call("cat docs.md && ls scripts"),
        read_call(root, "docs.md"),
        ToolCall("grep", {"pattern": "VALUE"}),
        shell_call("echo done > out.txt"),
    ]
    log_recalls(root)
    project.run("SCENARIO:quiet look around")
    assert (root / "out.txt").exists()
    assert len(last_results(project)) == 5
    recalls = logged_recalls(root)
    assert {"docs.md", "cat docs.md && ls scripts", "echo done > out.txt"} <= set(recalls)
    assert not any(recalls.values()), recalls
    for request in fake.requests:
        text = request_text(request)
        assert APP_RULE not in text
        assert RELEASE_RULE not in text
        assert "<lessons>" not in text


def test_binding_rules_refuse_every_breaking_call(project: OpenCodeProject) -> None:
    """A forbid pattern refuses the edit adding it, and the edit without it runs; an
    enforced command lesson refuses its command each time it is made."""
    root = project.root
    rule = "Never push with --force; use --force-with-lease."
    project.lessons(
        "add", rule, "--topic", "git", "--trigger-cmd", r"git push .*--force\b", "--enforce"
    )
    forbid = "No print calls in src/app.py; use the logger."
    project.lessons(
        "add", forbid, "--topic", "code", "--trigger-file", "src/app.py", "--forbid", r"print\("
    )
    push = shell_call("git push --force origin main")
    project.fake.scenarios["bind"] = [
        read_call(root),
        edit_call(root, "VALUE = 1", "print(1)"),
        edit_call(root, "VALUE = 1", "VALUE = 2"),
        push,
        push,
    ]
    project.run("SCENARIO:bind change it")
    results = last_results(project)
    assert len(results) == 5
    assert results[1].startswith(FORBID_HEAD)
    assert forbid in results[1]
    assert not results[2].startswith(FORBID_HEAD)
    assert (root / "src" / "app.py").read_text() == "VALUE = 2\n"
    assert [r.startswith(ENFORCE_HEAD) for r in results[3:]] == [True, True]
    assert rule in results[3]


def test_a_crashing_launcher_and_a_missing_install_never_break_a_call(
    project: OpenCodeProject,
) -> None:
    """The launcher replaced by one that crashes with garbage on stdout, then removed: every
    call runs and the model sees no rule and no error of the plugin's."""
    root = project.root
    launcher = root / ".lessons" / "run"
    fake = project.fake
    fake.scenarios["open"] = [
        read_call(root),
        edit_call(root, "VALUE = 1", "VALUE = 2"),
        shell_call("bash scripts/release.sh"),
    ]
    launcher.write_text("echo 'not json {'; echo boom >&2; exit 3\n")
    project.run("SCENARIO:open go")
    assert (root / "src" / "app.py").read_text() == "VALUE = 2\n"
    assert (root / "released.txt").exists()
    results = last_results(project)
    assert len(results) == 3
    assert not any(GATE_PREFIX in r or "<lessons>" in r for r in results)
    launcher.unlink()
    (root / "released.txt").unlink()
    fake.requests.clear()
    fake.scenarios["open"][1] = edit_call(root, "VALUE = 2", "VALUE = 3")
    project.run("SCENARIO:open go")
    assert (root / "src" / "app.py").read_text() == "VALUE = 3\n"
    assert (root / "released.txt").exists()
    assert not any(GATE_PREFIX in r or "<lessons>" in r for r in last_results(project))


def test_after_compaction_the_rule_and_the_note_come_again(project: OpenCodeProject) -> None:
    """A compaction in the middle of a run (the model reports a nearly full context) ends
    with session.compacted: the note comes again with the next tool result, and the read
    of the file after it brings its rule again."""
    fake = project.fake
    root = project.root
    fake.scenarios["long"] = [
        read_call(root),
        edit_call(root, "VALUE = 1", "VALUE = 2"),
        shell_call("echo one"),  # its reply reports the full context: compaction follows
        shell_call("echo two"),
        read_call(root),  # a compacted session has to read the file again
        edit_call(root, "VALUE = 2", "VALUE = 3"),
    ]
    fake.full_at["long"] = 2
    project.run("SCENARIO:long edit")
    summaries = [i for i, r in enumerate(fake.requests) if "<conversation>" in request_text(r)]
    deliveries = [
        i for i, r in enumerate(fake.requests) if APP_RULE in (tool_results(r) or [""])[-1]
    ]
    assert len(summaries) == 1
    assert len(deliveries) == 2  # once with each read: before and after the compaction
    assert deliveries[0] < summaries[0] < deliveries[1]
    note = session_note(Layout(root))
    after = tool_results(fake.requests[-1])
    assert [note in r for r in after] == [True, False, False]  # with echo two's result
    assert request_text(fake.requests[-1]).count(APP_RULE) == 1
    assert (root / "src" / "app.py").read_text() == "VALUE = 3\n"


def test_a_failure_fixed_in_the_session_is_asked_for_when_it_goes_idle(
    project: OpenCodeProject,
) -> None:
    """`make check-all` exits 2 (the nudge comes with its result), `make check` passes:
    at session.idle the plugin sends the capture request as the session's next message,
    once; the model runs the prefilled line and the lesson appears. Shown with the
    client's server (`CLI serve`, what the TUI runs), which stays up after the idle."""
    root = project.root
    asked = fix_scenario(root, project.fake, shell_call)
    project.serve("SCENARIO:fix check the build", lambda: len(asked) == 1 and _saved(root))
    assert_fix_captured(root, asked)
    request = project.fake.requests[first_with(project.fake.requests, asked[0])]
    last = messages_of(request)[-1]  # a user message of its own (Kilo adds its details)
    assert last["role"] == "user"
    assert text_of(last).startswith(REQUEST_MARK)  # the request alone opens it


def _saved(root: Path) -> bool:
    return any(CHECK_RULE in p.read_text() for p in (root / ".lessons" / "lessons").glob("*"))
