"""The real Cline CLI, wired with `lessons init --cline`, against a fake model.

`bash scripts/test` installs the pinned client into ./.e2e. Each test drives
`cline --json PROMPT` in a temp git repo whose home is a temp folder too; the model is
`fake_chat_completions.FakeModel` on a free loopback port, which issues scripted tool
calls and records every request. The client loads `.cline/plugins/lessons.js` in every
run. A refusal is the plugin's `{skip: true, reason}`: the reason is the tool's result;
anything else a hook says arrives as a `<hook_context>` user message after the tool's
result. Every run must leave no process behind (`ClineProject.cline`), and every test
ends by checking that no hook failed (`.lessons/local/hook.log` stays empty).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from lessons_cli.harnesses.cline import PLUGIN
from lessons_cli.harnesses.plugin_files import PLUGIN_FILES
from lessons_core.delivery.binding import ENFORCE_HEAD, FORBID_HEAD
from lessons_core.delivery.deliver import GATE_PREFIX, session_note
from lessons_core.store.layout import Layout
from tests.e2e.change_gates import (
    assert_each_refused_once_then_applied,
    script_new_file_and_shell_write,
)
from tests.e2e.cline_project import (
    ClineProject,
    create_call,
    edit_call,
    read_call,
    shell_call,
)
from tests.e2e.fake_chat_completions import (
    first_with,
    messages_of,
    request_text,
    text_of,
    tool_results,
)
from tests.e2e.fake_server import ToolCall
from tests.e2e.sample_repo import APP_RULE, RELEASE_RULE, log_recalls, logged_recalls

pytestmark = pytest.mark.e2e

CONTEXT_OPEN = "<hook_context source="


@pytest.fixture
def project(cline_project: ClineProject) -> Iterator[ClineProject]:
    """The wired repo; afterwards, proof that no hook call failed."""
    yield cline_project
    hook_log = cline_project.root / ".lessons" / "local" / "hook.log"
    assert not hook_log.exists() or hook_log.read_text() == ""


def after_results(request: dict[str, Any]) -> str:
    """What the model read after the newest assistant message: the tool results and the
    `<hook_context>` messages that follow them."""
    messages = messages_of(request)
    answers = [i for i, m in enumerate(messages) if m.get("role") == "assistant"]
    if not answers:
        return ""
    last = answers[-1]
    return "\n".join(text_of(m) for m in messages[last + 1 :])


def tool_names(request: dict[str, Any]) -> list[str]:
    """The tools the model called in ``request``'s history, oldest first."""
    return [
        call["function"]["name"]
        for message in messages_of(request)
        for call in message.get("tool_calls") or []
    ]


def refusals(requests: list[dict[str, Any]], text: str) -> list[int]:
    """The requests whose newest tool result is a refusal holding ``text``."""
    return [i for i, r in enumerate(requests) if text in (tool_results(r) or [""])[-1]]


# A plugin of the user's, beside ours: its own words at the start of every run.
THEIR_PLUGIN = """module.exports = {
  name: "theirs",
  manifest: { capabilities: ["hooks"] },
  hooks: { beforeRun() { return { appendContext: "THEIR PLUGIN RAN" }; } },
};
"""


def test_init_writes_the_plugin_cline_loads_and_the_note_reaches_the_first_request(
    project: ClineProject,
) -> None:
    """init wrote the plugin through the launcher and doctor agrees; a plugin of the
    user's beside it is left alone by a second init; the client loaded both: the session
    note is in the run's first request, as a `<hook_context>` after the prompt."""
    theirs = project.root / ".cline" / "plugins" / "theirs.js"
    theirs.write_text(THEIR_PLUGIN)
    assert "already wired cline" in project.lessons("init", "--cline")
    assert theirs.read_text() == THEIR_PLUGIN
    code, checks = project.doctor_checks(project.env(), "cline")
    assert (code, [check["status"] for check in checks]) == (0, ["ok"]), checks
    written = (project.root / PLUGIN).read_bytes()
    assert written.startswith(PLUGIN_FILES["cline"].mark)
    assert b'sh \\"$r/.lessons/run\\" hook cline || true' in written
    project.fake.scenarios["hello"] = []
    project.cline("SCENARIO:hello say hello")
    (first, *_) = project.fake.requests
    contexts = [text_of(m) for m in messages_of(first)[2:]]
    assert all(text.startswith('<hook_context source="RunStart">') for text in contexts)
    assert session_note(Layout(project.root)) in "\n".join(contexts)
    assert "THEIR PLUGIN RAN" in "\n".join(contexts)


def test_a_read_brings_the_rule_before_the_edit_once(project: ClineProject) -> None:
    """read_files of src/app.py: its rule follows the read's result in the request the
    model answers with its edit, while the file is unchanged; the edits run unrefused and
    add nothing."""
    fake = project.fake
    fake.probe = (project.root / "src" / "app.py").read_text
    fake.scenarios["context"] = [
        read_call(project.root),
        edit_call(project.root, "VALUE = 1", "VALUE = 2"),
        edit_call(project.root, "VALUE = 2", "VALUE = 3"),
    ]
    project.cline("SCENARIO:context change the app")
    first = first_with(fake.requests, APP_RULE)
    assert fake.observed[first] == "VALUE = 1\n"  # the model had the rule before the edit
    said = after_results(fake.requests[first])
    assert "VALUE = 1" in said  # the read's result, then the rule
    assert said.index("VALUE = 1") < said.index(CONTEXT_OPEN) < said.index(APP_RULE)
    answer = messages_of(fake.requests[first + 1])[len(messages_of(fake.requests[first]))]
    assert answer["tool_calls"][0]["function"]["name"] == "editor"
    assert (project.root / "src" / "app.py").read_text() == "VALUE = 3\n"
    assert not any(GATE_PREFIX in r for r in tool_results(fake.requests[-1]))
    assert request_text(fake.requests[-1]).count(APP_RULE) == 1


def test_a_new_file_and_a_shell_write_are_refused_once_with_their_rule(
    project: ClineProject,
) -> None:
    """editor without old_text (a new file under a folder rule) is refused with the rule
    before the file exists, and the retry creates it; a heredoc writing src/app.py through
    run_commands is refused with its rule before the file changed, and its retry runs."""
    create = lambda path, text: create_call(Path(path), text)  # noqa: E731
    script_new_file_and_shell_write(project, create, shell_call)
    project.cline("SCENARIO:new add a module")
    assert_each_refused_once_then_applied(project)


def test_a_command_rule_is_refused_once_and_the_retry_runs(project: ClineProject) -> None:
    """The rule reaches the model while released.txt does not exist; the retry creates it;
    a second matching command is neither refused nor shown the rule again."""
    fake = project.fake
    fake.scenarios["gate"] = [
        shell_call("bash scripts/release.sh"),
        shell_call("bash scripts/release.sh"),
    ]
    project.cline("SCENARIO:gate release it")
    first = first_with(fake.requests, RELEASE_RULE)
    assert fake.observed[first] is False  # the model read the rule before anything ran
    assert GATE_PREFIX in tool_results(fake.requests[first])[-1]
    assert (project.root / "released.txt").exists()  # the retried call ran
    results = tool_results(fake.requests[-1])
    assert [GATE_PREFIX in r for r in results] == [True, False, False]
    assert request_text(fake.requests[-1]).count(RELEASE_RULE) == 1


# About 56 KB of output each (Cline keeps that much of a command's). Cline compacts when a
# request nears the context it assumes for a model it does not know (128,000 tokens),
# scaled down by how much larger the model reported the previous prompt than Cline
# estimated it (at most 4 times): with two of these in the history and a reply reporting
# a huge prompt, the next request compacts.
BULK = "head -c 160000 /dev/zero | tr '\\\\0' a | fold -w 100"


def test_after_compaction_the_read_brings_the_rule_again(project: ClineProject) -> None:
    """A compaction in the middle of a run (a tool-less summary request, then a history
    that starts with the summary): the runtime tells the plugin, and the read of the file
    after it brings its rule again."""
    fake = project.fake
    fake.scenarios["long"] = [
        read_call(project.root),
        edit_call(project.root, "VALUE = 1", "VALUE = 2"),
        shell_call(BULK),
        shell_call(BULK),
        shell_call("echo after"),  # its reply reports the full context: compaction follows
        read_call(project.root),
        edit_call(project.root, "VALUE = 2", "VALUE = 3"),
    ]
    fake.full_at["long"] = 4
    events = project.cline("SCENARIO:long edit")
    notices = [e["event"] for e in events if e.get("type") == "agent_event"]
    assert "auto-compacted" in [n["message"] for n in notices if n.get("type") == "notice"]
    summaries = [i for i, r in enumerate(fake.requests) if not r.get("tools")]
    deliveries = [i for i, r in enumerate(fake.requests) if APP_RULE in after_results(r)]
    # Once with each read, before and after the compaction. (Cline may compact again
    # between the second read and the edit: then the edit is refused once with the rule.)
    assert deliveries[0] < summaries[0] < deliveries[1]
    assert deliveries[0] + 1 < summaries[0]  # not again before the compaction
    assert tool_names(fake.requests[deliveries[1]])[-1] == "read_files"
    assert (project.root / "src" / "app.py").read_text() == "VALUE = 3\n"


SPLIT_RULE = "Use os.path.basename for file names in src/app.py, never split('/')."
DEPLOY_RULE = "Release only from CI; never run scripts/release.sh in a local session."


def test_binding_rules_refuse_every_time(project: ClineProject) -> None:
    """An edit adding a forbidden pattern is refused each time while the file stays as it
    was, an edit without it applies; an enforced command never runs, the next one does."""
    project.lessons("add", SPLIT_RULE, "--topic", "paths", "--trigger-file", "src/app.py",
                    "--forbid", r"split\('/'\)")  # fmt: skip
    project.lessons("add", DEPLOY_RULE, "--topic", "release", "--trigger-cmd",
                    r"scripts/release\.sh", "--enforce")  # fmt: skip
    app = project.root / "src" / "app.py"
    released = project.root / "released.txt"
    fake = project.fake
    fake.probe = lambda: (app.read_text(), released.exists())
    split = "VALUE = 1\nNAME = PATH.split('/')[-1]"
    fake.scenarios["binding"] = [
        read_call(project.root),
        edit_call(project.root, "VALUE = 1", split),
        edit_call(project.root, "VALUE = 1", split),
        edit_call(project.root, "VALUE = 1", "VALUE = 1\nNAME = os.path.basename(PATH)"),
        shell_call("bash scripts/release.sh"),
        shell_call("touch checked.txt"),
    ]
    project.cline("SCENARIO:binding name the file and release")
    forbidden = refusals(fake.requests, FORBID_HEAD)
    assert len(forbidden) >= 2
    assert all(fake.observed[i] == ("VALUE = 1\n", False) for i in forbidden)
    enforced = refusals(fake.requests, ENFORCE_HEAD)
    assert enforced
    assert all(DEPLOY_RULE in tool_results(fake.requests[i])[-1] for i in enforced)
    assert app.read_text() == "VALUE = 1\nNAME = os.path.basename(PATH)\n"
    assert not released.exists()
    assert (project.root / "checked.txt").exists()


def test_uncovered_calls_and_pure_reads_add_no_text(project: ClineProject) -> None:
    """A new file no lesson covers, cat and read_files of it, a search, a plain command:
    the hooks ran on them (telemetry logs each recall) and nothing reached the model."""
    fake = project.fake
    root = project.root
    fake.scenarios["quiet"] = [
        create_call(root / "docs.md", "# Notes\n"),
        shell_call("cat docs.md && ls scripts"),
        read_call(root, "docs.md"),
        ToolCall("search_codebase", {"queries": ["VALUE"]}),
        shell_call("echo done > out.txt"),
    ]
    log_recalls(root)
    project.cline("SCENARIO:quiet look around")
    assert (root / "out.txt").exists()
    assert (root / "docs.md").exists()
    assert len(tool_results(fake.requests[-1])) == 5
    recalls = logged_recalls(root)
    assert {"docs.md", "cat docs.md && ls scripts", "echo done > out.txt"} <= set(recalls)
    assert not any(recalls.values()), recalls
    for request in fake.requests[1:]:
        assert 'source="PreToolUse"' not in request_text(request)
        assert 'source="PostToolUse"' not in request_text(request)
        assert "<lessons" not in "\n".join(tool_results(request))


@pytest.mark.parametrize(
    "launcher",
    [
        "#!/bin/sh\necho 'Traceback: boom' >&2\nexit 1\n",  # a crash
        "#!/bin/sh\ncat >/dev/null\necho 'not json {'\n",  # an answer that is no JSON
        "#!/bin/sh\nsleep 30\n",  # a hook that never answers: stopped at the time limit
    ],
    ids=["crash", "garbage", "hang"],
)
def test_a_broken_launcher_never_breaks_a_call(project: ClineProject, launcher: str) -> None:
    """Whatever the launcher does, every call runs as if no hook were there."""
    (project.root / ".lessons" / "run").write_text(launcher)
    fake = project.fake
    fake.scenarios["broken"] = [
        create_call(project.root / "src" / "fresh.py", "X = 1\n"),
        shell_call("bash scripts/release.sh"),
    ]
    project.cline("SCENARIO:broken do it")
    assert (project.root / "src" / "fresh.py").read_text() == "X = 1\n"
    assert (project.root / "released.txt").exists()
    assert not any(GATE_PREFIX in r for r in tool_results(fake.requests[-1]))
    assert CONTEXT_OPEN not in request_text(fake.requests[-1])


def test_without_lessons_installed_the_session_says_how_and_calls_run(
    project: ClineProject,
) -> None:
    """lessons is neither on the client's PATH nor in ~/.local/bin: the launcher finds
    none, the first request says how to install it, and every call runs."""
    project.on_path = False
    (project.root / ".lessons" / "local" / "launch").unlink()  # forget the install found
    stand_in = project.home / ".local" / "bin" / "lessons"  # not executable: not lessons
    stand_in.parent.mkdir(parents=True)
    stand_in.write_text("")
    fake = project.fake
    fake.scenarios["bare"] = [shell_call("bash scripts/release.sh")]
    project.cline("SCENARIO:bare release it")
    assert "found no lessons to run" in request_text(fake.requests[0])
    assert (project.root / "released.txt").exists()
    assert not any(GATE_PREFIX in r for r in tool_results(fake.requests[-1]))
