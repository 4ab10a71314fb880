"""The real Gemini CLI, wired with `lessons init --gemini`, against a fake Gemini API.

`bash scripts/test` installs the pinned client into ./.e2e. Each test drives `gemini -p`
headless in a temp git repo with a temp home; the model is `fake_gemini.FakeGemini` on a
free loopback port, which issues scripted function calls and records every request, so
the assertions read exactly what reached the model and when. The client's own telemetry
says which hooks it ran, with what payload, and how each exited (the `gemini` fixture
checks every run exited 0).
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any, cast

import pytest

from lessons_cli.harnesses.claude_protocol import HookPayload
from lessons_cli.harnesses.gemini import failure_of
from lessons_core.delivery.deliver import GATE_PREFIX, session_note
from lessons_core.recall.render import BRACKET_CLOSE, BRACKET_OPEN
from lessons_core.store.layout import Layout
from tests.e2e.fake_gemini import function_responses, response_text
from tests.e2e.gemini_project import (
    UNTRUSTED_EXIT,
    HookCall,
    Project,
    read_call,
    replace_call,
    shell_call,
    write_call,
)
from tests.e2e.sample_repo import (
    ALWAYS_RULE,
    APP_RULE,
    RELEASE_RULE,
    assert_fix_captured,
    assert_recorded,
    fix_scenario,
    lessons,
    note_line,
    saved_lesson,
)

pytestmark = pytest.mark.e2e

WIRED_EVENTS = {
    "SessionStart",
    "BeforeAgent",
    "BeforeTool",
    "AfterTool",
    "PreCompress",
    "AfterAgent",
}
BLOCKED = "Tool execution blocked: "


def _blob(request: dict[str, Any]) -> str:
    return json.dumps(request["contents"])


def _first_with(requests: list[dict[str, Any]], text: str) -> int:
    return next(i for i, r in enumerate(requests) if text in _blob(r))


def _main_loop(requests: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The requests of the agent loop (they offer tools; a compression summary does not)."""
    return [r for r in requests if r.get("tools")]


def _results(request: dict[str, Any]) -> list[tuple[str, str, bool]]:
    """(tool, text, error) of every function response the request carries."""
    return [
        (str(r.get("name")), response_text(r), "error" in r.get("response", {}))
        for r in function_responses(request)
    ]


def _events(calls: list[HookCall], event: str, tool: str | None = None) -> list[HookCall]:
    return [c for c in calls if c.event == event and (tool is None or c.tool == tool)]


def test_project_hooks_need_a_trusted_folder(gemini: Project) -> None:
    """Untrusted, headless Gemini CLI refuses to start (exit 55, no request, no hook);
    trusted through ~/.gemini/trustedFolders.json, the wired hooks run and the session
    note reaches the model with the first prompt. `lessons doctor` says the same."""
    code, gemini_checks = gemini.doctor()
    assert (code, gemini_checks[-1]) == (1, "fail")  # the folder-trust check
    gemini.gemini("-p", "hello", trust_env=False, exit_code=UNTRUSTED_EXIT)
    assert gemini.fake.requests == []
    assert gemini.hook_calls() == []
    gemini.trust_folder()
    code, gemini_checks = gemini.doctor()
    assert (code, set(gemini_checks)) == (0, {"ok"})
    gemini.gemini("-p", "hello", trust_env=False)
    hooks_run = {c.event for c in gemini.hook_calls()}
    assert hooks_run == {"SessionStart", "BeforeAgent", "PreCompress", "AfterAgent"}
    note = json.dumps(f"<hook_context>{session_note(Layout(gemini.root))}</hook_context>")[1:-1]
    assert note in _blob(gemini.fake.requests[0])


def test_gate_refuses_once_before_the_command_and_the_retry_runs(gemini: Project) -> None:
    """The rule reaches the model as the call's error while released.txt does not exist;
    the same call made again runs, and so does a second matching command, unrefused,
    although PreCompress fired before every model request."""
    fake = gemini.fake
    fake.scenarios["gate"] = [  # a refused call is made again before the next step
        shell_call("bash scripts/release.sh"),
        shell_call("bash scripts/release.sh && echo again"),
    ]
    gemini.gemini("-p", "SCENARIO:gate release it")
    first = _first_with(fake.requests, RELEASE_RULE)
    assert fake.observed[first] is False  # the model read the rule before anything ran
    tool, text, error = _results(fake.requests[first])[-1]
    assert (tool, error) == ("run_shell_command", True)
    assert text.startswith(BLOCKED + GATE_PREFIX)
    assert f"\n{BRACKET_OPEN}\n" in text
    assert text.endswith(f"\n{BRACKET_CLOSE}")
    assert (gemini.root / "released.txt").exists()  # the retried call ran
    last = fake.requests[-1]
    assert [error for _, _, error in _results(last)] == [True, False, False]
    assert _blob(last).count(RELEASE_RULE) == 1
    calls = gemini.hook_calls()
    assert {c.event for c in calls} == WIRED_EVENTS
    gates = [c.answer for c in _events(calls, "BeforeTool", "run_shell_command")]
    assert [a and a["decision"] for a in gates] == ["deny", None, None]
    assert len(_events(calls, "PreCompress")) == len(_main_loop(fake.requests))


def test_read_file_brings_the_rule_before_the_edit_readable_and_once(gemini: Project) -> None:
    """read_file of src/app.py: the file rule is appended to the read's result (AfterTool),
    fenced in square brackets (the client HTML-escapes angle brackets in hook context),
    in the request the model answers with its replace, while the file is unchanged; the
    replace runs unrefused and adds nothing."""
    fake = gemini.fake
    fake.probe = (gemini.root / "src" / "app.py").read_text
    fake.scenarios["read"] = [
        read_call(gemini.root, "src/app.py"),
        replace_call(gemini.root, "VALUE = 1", "VALUE = 2"),
    ]
    gemini.gemini("-p", "SCENARIO:read change the app")
    first = _first_with(fake.requests, APP_RULE)
    assert fake.observed[first] == "VALUE = 1\n"
    (tool, text, error), *_ = _results(fake.requests[first])
    assert (tool, error) == ("read_file", False)
    context = text[text.index("<hook_context>") :]
    assert context.startswith(f"<hook_context>{BRACKET_OPEN}\n")
    assert context.endswith(f"\n{BRACKET_CLOSE}</hook_context>")
    assert "&lt;" not in context
    assert (gemini.root / "src" / "app.py").read_text() == "VALUE = 2\n"
    last = fake.requests[-1]
    assert [(t, e) for t, _, e in _results(last)] == [("read_file", False), ("replace", False)]
    assert "hook_context" not in _results(last)[1][1]
    assert _blob(last).count(APP_RULE) == 1
    assert all(c.answer is None for c in _events(gemini.hook_calls(), "BeforeTool"))


def test_a_new_file_and_a_shell_write_are_refused_once_with_their_rule(
    gemini: Project,
) -> None:
    """write_file of a new file under a folder rule is refused with the rule before the
    file exists, and the retry writes it; a heredoc through the shell writing src/app.py
    is refused with its rule before the file changed, and its retry runs."""
    storage_rule = "Open files under src/storage through storage.paths only."
    glob = "src/storage/**"
    lessons(gemini.root, "add", storage_rule, "--topic", "storage", "--trigger-file", glob)
    fresh = gemini.root / "src" / "storage" / "fresh.py"
    app = gemini.root / "src" / "app.py"
    fake = gemini.fake
    fake.probe = lambda: (fresh.exists(), app.read_text())
    fake.scenarios["new"] = [
        write_call(gemini.root, "src/storage/fresh.py", "X = 1\n"),
        shell_call("cat > src/app.py <<'EOF'\nVALUE = 2\nEOF"),
    ]
    gemini.gemini("-p", "SCENARIO:new add a module")
    first = _first_with(fake.requests, storage_rule)
    assert fake.observed[first] == (False, "VALUE = 1\n")
    tool, text, error = _results(fake.requests[first])[-1]
    assert (tool, error) == ("write_file", True)
    assert text.startswith(BLOCKED + GATE_PREFIX)
    second = _first_with(fake.requests, APP_RULE)
    assert fake.observed[second] == (True, "VALUE = 1\n")
    tool, text, error = _results(fake.requests[second])[-1]
    assert (tool, error) == ("run_shell_command", True)
    assert APP_RULE in text
    assert fresh.read_text() == "X = 1\n"
    assert app.read_text() == "VALUE = 2\n"
    gates = [c.answer for c in _events(gemini.hook_calls(), "BeforeTool")]
    assert [a and a["decision"] for a in gates] == ["deny", None, "deny", None]


def test_a_real_compression_delivers_the_rule_again_resume_does_not(
    gemini: Project,
) -> None:
    """A resumed session keeps what it was shown; once the client really compresses the
    history (a tiny model.compressionThreshold makes it), the next edit brings the rule
    again."""
    fake = gemini.fake
    fake.scenarios["before"] = [write_call(gemini.root, "src/app.py", "VALUE = 2\n")]
    fake.scenarios["again"] = [replace_call(gemini.root, "VALUE = 2", "VALUE = 3")]
    fake.scenarios["after"] = [replace_call(gemini.root, "VALUE = 3", "VALUE = 4")]
    gemini.gemini("-p", "SCENARIO:before edit")
    assert _blob(fake.requests[-1]).count(APP_RULE) == 1
    start = len(fake.requests)
    gemini.gemini("--resume", "latest", "-p", "SCENARIO:again edit")
    resumed = [_blob(r).count(APP_RULE) for r in fake.requests[start:]]
    assert resumed[0] > 0
    assert resumed == [resumed[0]] * len(resumed)  # nothing delivered again
    assert [c.input["source"] for c in _events(gemini.hook_calls(1), "SessionStart")] == ["resume"]
    gemini.settings(model={"compressionThreshold": 0.0001})
    start = len(fake.requests)
    gemini.gemini("--resume", "latest", "-p", "SCENARIO:after edit")
    requests = fake.requests[start:]
    summaries = [r for r in requests if not r.get("tools")]
    assert summaries  # the client asked the model for a summary: it compressed
    counts = [_blob(r).count(APP_RULE) for r in _main_loop(requests)]
    assert counts[0] == 0  # compression dropped the rule from the conversation...
    assert counts[-1] == 1  # ...and the next edit, not read since, was refused with it
    assert (gemini.root / "src" / "app.py").read_text() == "VALUE = 4\n"


def test_pure_reads_and_uncovered_calls_add_nothing(gemini: Project) -> None:
    """A write no lesson covers, `cat` and read_file of an uncovered file and a redirect
    no lesson covers: the hooks run (read_file after it ran only) and say nothing."""
    fake = gemini.fake
    fake.scenarios["quiet"] = [
        write_call(gemini.root, "docs/notes.md", "# Notes\n"),
        shell_call("cat docs/notes.md && ls scripts"),
        read_call(gemini.root, "docs/notes.md"),
        shell_call("echo done > out.txt"),
    ]
    gemini.gemini("-p", "SCENARIO:quiet look around")
    assert (gemini.root / "out.txt").exists()
    for request in fake.requests:
        text = _blob(request)
        assert APP_RULE not in text
        assert RELEASE_RULE not in text
        assert "[lessons]" not in text  # no block, in either fence
        assert "lessons&gt;" not in text
        assert "<lessons>" not in text
    assert [error for _, _, error in _results(fake.requests[-1])] == [False] * 4
    calls = gemini.hook_calls()
    tools = [c.tool for c in _events(calls, "BeforeTool")]
    assert tools == ["write_file", "run_shell_command", "run_shell_command"]
    assert len(_events(calls, "AfterTool")) == 4
    assert all(c.answer is None for c in calls if c.event != "SessionStart")


FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "gemini"
SESSION = "5a3c1f7e-2b4d-4e6f-8a9b-0c1d2e3f4a5b"
TIME = "2026-12-01T12:00:00.000Z"
_TRANSCRIPT = re.compile(r"session-\d{4}-\d\d-\d\dT\d\d-\d\d-[0-9a-f]{8}\.jsonl")
_PGID = re.compile(r"PGID: \d+")


def _fixture_name(call: HookCall) -> str:
    """session_start_startup, before_agent, before_tool_shell, after_tool_write_file..."""
    words = re.sub(r"(?<!^)(?=[A-Z])", "_", call.event).lower()
    if call.event == "SessionStart":
        return f"{words}_{call.input['source']}"
    if call.tool:
        failing = "_failing" if failure_of(cast(HookPayload, call.input)) is not None else ""
        return f"{words}_{'shell' if call.tool == 'run_shell_command' else call.tool}{failing}"
    return words


def _normalised(value: Any, gemini: Project) -> Any:
    """A payload as stored: paths as $PROJECT and $HOME, one session id, one time, and the
    transcript's file name and a process group id made fixed."""
    if isinstance(value, dict):
        fixed = {
            "session_id": SESSION,
            "timestamp": TIME,
        }
        return {k: fixed.get(k) or _normalised(v, gemini) for k, v in value.items()}
    if isinstance(value, list):
        return [_normalised(v, gemini) for v in value]
    if isinstance(value, str):
        text = value.replace(str(gemini.root), "$PROJECT").replace(str(gemini.home), "$HOME")
        text = _TRANSCRIPT.sub(f"session-2026-12-01T12-00-{SESSION[:8]}.jsonl", text)
        return _PGID.sub("PGID: 4242", text)
    return value


def test_the_fixtures_are_what_the_client_sends(gemini: Project, tmp_path: Path) -> None:
    """tests/fixtures/gemini/ holds, for each event (and tool, and failed call) our
    wiring receives, the first payload the real client sent in this run, normalised."""
    config = gemini.root / ".lessons" / "config.json"
    config.write_text(json.dumps({**json.loads(config.read_text()), "session_note": False}))
    gemini.fake.scenarios["record"] = [
        shell_call("bash scripts/release.sh"),
        write_call(gemini.root, "src/app.py", "VALUE = 2\n"),
        replace_call(gemini.root, "VALUE = 2", "VALUE = 3"),
        shell_call("python3 -c 'import nosuchmod_xyz'"),
        replace_call(gemini.root, "NOT THERE", "x"),
    ]
    gemini.gemini("-p", "SCENARIO:record release and edit")
    gemini.gemini("--resume", "latest", "-p", "that is all")
    recorded: dict[str, Any] = {}
    for call in gemini.hook_calls():
        recorded.setdefault(_fixture_name(call), _normalised(call.input, gemini))
    assert_recorded(recorded, FIXTURES, tmp_path / "recorded")


def test_the_agent_captures_a_lesson_with_the_line_the_session_note_gave(gemini: Project) -> None:
    """lessons is not on Gemini CLI's PATH (only in ~/.local/bin, as pipx leaves it): the
    model runs the session note's capture line through run_shell_command, with its
    placeholders filled, and the lesson file appears."""
    gemini.on_path = False
    fake = gemini.fake
    gemini.gemini("-p", "say hello")
    marker = "/.lessons/run add "
    notes = [t for r in fake.requests for t in _strings(r) if marker in t]
    rule = "Keep VALUE in src/app.py an int; the config loader casts nothing."
    command = note_line(notes[0], rule, "code", "src/app.py")
    assert command.startswith(f"sh {gemini.root}/.lessons/run add ")
    fake.scenarios["capture"] = [shell_call(command)]
    gemini.gemini("-p", "SCENARIO:capture keep it")
    assert saved_lesson(gemini.root, rule)["triggers"]["files"] == ["src/app.py"]


def _strings(value: Any) -> list[str]:
    """Every string inside a request body, however deeply nested."""
    if isinstance(value, str):
        return [value]
    items = value.values() if isinstance(value, dict) else value if isinstance(value, list) else []
    return [text for item in items for text in _strings(item)]


def test_an_always_on_lesson_reaches_the_first_request(gemini: Project) -> None:
    """`lessons add --always`: SessionStart's context, in the first request, holds the
    note and then the rule, fenced in square brackets, once."""
    lessons(gemini.root, "add", ALWAYS_RULE, "--topic", "build", "--always")
    gemini.gemini("-p", "hello")
    first = _blob(gemini.fake.requests[0])
    assert first.count(ALWAYS_RULE) == 1
    note = session_note(Layout(gemini.root))
    block = json.dumps(f"{note}\n{BRACKET_OPEN}\n")[1:-1]
    assert block in first
    assert f"{ALWAYS_RULE} (always on)" in first


def test_after_a_real_compression_the_always_on_lesson_comes_with_the_next_tool_result(
    gemini: Project,
) -> None:
    """Gemini CLI starts no session after compressing: the always-on rule, dropped with
    the history, comes back with the next tool result (AfterTool), once."""
    lessons(gemini.root, "add", ALWAYS_RULE, "--topic", "build", "--always")
    fake = gemini.fake
    fake.scenarios["before"] = [write_call(gemini.root, "src/app.py", "VALUE = 2\n")]
    fake.scenarios["after"] = [replace_call(gemini.root, "VALUE = 2", "VALUE = 3")]
    gemini.gemini("-p", "SCENARIO:before edit")
    assert _blob(fake.requests[0]).count(ALWAYS_RULE) == 1
    gemini.settings(model={"compressionThreshold": 0.0001})
    start = len(fake.requests)
    gemini.gemini("--resume", "latest", "-p", "SCENARIO:after edit")
    requests = fake.requests[start:]
    assert [r for r in requests if not r.get("tools")]  # it compressed
    counts = [_blob(r).count(ALWAYS_RULE) for r in _main_loop(requests)]
    assert counts[0] == 0  # compression dropped it...
    assert counts[-1] == 1  # ...and the tool result brought it back, once
    # The replace, not read since the compression, was refused first (BeforeTool cannot
    # add context); its retry's AfterTool brought the always-on rule.
    results = _results(_main_loop(requests)[-1])
    assert [error for _, _, error in results] == [True, False]
    assert ALWAYS_RULE in results[-1][1]


def test_a_failure_fixed_in_the_session_is_asked_for_at_its_stop(gemini: Project) -> None:
    """`make check-all` fails (no such target), `make check` passes: AfterAgent asks once,
    the model runs the prefilled line through run_shell_command, the lesson appears, and
    the AfterAgent after it lets the run end."""
    asked = fix_scenario(gemini.root, gemini.fake, shell_call)
    gemini.gemini("-p", "SCENARIO:fix check the build")
    assert_fix_captured(gemini.root, asked)
    stops = [c for c in gemini.hook_calls() if c.event == "AfterAgent"]
    # Gemini CLI 0.61.0 sets stop_hook_active only on the turn it continues with the
    # reason; the model answered with a tool call, whose result starts a turn with the
    # flag false again. The once-a-session mark is what lets this stop pass.
    assert [c.input["stop_hook_active"] for c in stops] == [False, False]
    assert [bool(c.answer) for c in stops] == [True, False]
