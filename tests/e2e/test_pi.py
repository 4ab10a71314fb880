"""The real Pi coding agent, wired with `lessons init --pi`, against a fake model.

`bash scripts/test` installs the pinned client into ./.e2e. Each test drives `pi -p` in a
temp git repo (`pi_project`); the model is `pi_project.PiModel` on a free loopback port,
which issues scripted tool calls and records every request, so the assertions read what
reached the model and when. Every run loads the TypeScript extension init wrote
(`.pi/extensions/lessons.ts`), and every test ends by checking that no hook failed
(`.lessons/local/hook.log` stays empty) unless it breaks the hook on purpose.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from lessons_cli.harnesses import wirings
from lessons_cli.harnesses.plugin_files import PLUGIN_FILES
from lessons_core.delivery.binding import ENFORCE_HEAD, FORBID_HEAD
from lessons_core.delivery.deliver import GATE_PREFIX, session_note
from lessons_core.store.layout import Layout
from tests.e2e.fake_chat_completions import (
    first_with,
    messages_of,
    request_text,
    text_of,
    tool_results,
)
from tests.e2e.pi_project import PiProject, bash_call, edit_call, read_call, write_call
from tests.e2e.sample_repo import (
    ALWAYS_RULE,
    APP_RULE,
    RELEASE_RULE,
    assert_fix_captured,
    assert_recorded,
    fix_scenario,
    log_recalls,
    logged_recalls,
)

pytestmark = pytest.mark.e2e

APP = "src/app.py"
SPLIT_RULE = "Use os.path.basename for file names in src/app.py, never split('/')."
DEPLOY_RULE = "Never run scripts/release.sh by hand; CI releases from tags."


@pytest.fixture
def pi(pi_project: PiProject) -> Iterator[PiProject]:
    """The wired repo; afterwards, proof that no hook call failed."""
    yield pi_project
    hook_log = pi_project.root / ".lessons" / "local" / "hook.log"
    assert not hook_log.exists() or hook_log.read_text() == ""


def _user_texts(request: dict[str, object]) -> list[str]:
    return [text_of(m) for m in messages_of(request) if m.get("role") == "user"]


def test_the_extension_init_writes_is_what_pi_loads(pi: PiProject) -> None:
    """init wrote the shipped extension; pi ran it: the session note and a keyword rule
    reach the model in the first request, as a message after the user's prompt, and
    `lessons doctor` says the extension is in place."""
    spec = wirings()["pi"]
    assert (pi.root / spec.settings).read_bytes() == PLUGIN_FILES["pi"].text("")
    rule = "Write a migration note in docs/migrations.md for every schema change."
    pi.lessons("add", rule, "--topic", "db", "--trigger-keyword", "schema")
    pi.pi("change the schema")
    prompt, context = _user_texts(pi.fake.requests[0])
    assert prompt == "change the schema"
    assert context.startswith(session_note(Layout(pi.root)))
    assert rule in context
    assert "<lessons>" in context
    code, checks = pi.doctor_checks(pi.env(), "pi")
    assert code == 0
    assert [c["status"] for c in checks] == ["ok", "ok"]  # the file; not turned off


def test_a_read_brings_the_rule_before_the_edit_once(pi: PiProject) -> None:
    """read of src/app.py: its rule is appended to the read's result, in the request the
    model answers with its edit, while the file is unchanged; the edits run unrefused
    and bring nothing more."""
    fake = pi.fake
    fake.probe = (pi.root / APP).read_text
    fake.scenarios["read"] = [
        read_call(APP),
        edit_call(APP, "VALUE = 1", "VALUE = 2"),
        edit_call(APP, "VALUE = 2", "VALUE = 3"),
    ]
    pi.pi("SCENARIO:read change the app")
    first = first_with(fake.requests, APP_RULE)
    assert fake.observed[first] == "VALUE = 1\n"  # the model had the rule before the edit
    result = tool_results(fake.requests[first])[-1]
    assert result.startswith("VALUE = 1\n")  # the read's own result, then the rule
    assert f"<lessons>\n- {APP_RULE}\n</lessons>" in result
    answer = messages_of(fake.requests[first + 1])[len(messages_of(fake.requests[first]))]
    assert answer["tool_calls"][0]["function"]["name"] == "edit"
    assert (pi.root / APP).read_text() == "VALUE = 3\n"
    assert not any(GATE_PREFIX in r for r in tool_results(fake.requests[-1]))
    assert request_text(fake.requests[-1]).count(APP_RULE) == 1


def test_a_new_file_and_a_shell_write_are_refused_once_with_their_rule(pi: PiProject) -> None:
    """write of a new file under a folder rule is refused with the rule before the file
    exists, and the retry writes it; a heredoc through bash writing src/app.py is refused
    with its rule before the file changed, and its retry runs."""
    storage_rule = "Open files under src/storage through storage.paths only."
    pi.lessons("add", storage_rule, "--topic", "storage", "--trigger-file", "src/storage/**")
    fresh = pi.root / "src" / "storage" / "fresh.py"
    app = pi.root / APP
    fake = pi.fake
    fake.probe = lambda: (fresh.exists(), app.read_text())
    fake.scenarios["new"] = [
        write_call("src/storage/fresh.py", "X = 1\n"),
        bash_call("cat > src/app.py <<'EOF'\nVALUE = 2\nEOF"),
    ]
    pi.pi("SCENARIO:new add a module")
    first = first_with(fake.requests, storage_rule)
    assert fake.observed[first] == (False, "VALUE = 1\n")
    assert tool_results(fake.requests[first])[-1].startswith(GATE_PREFIX)
    second = first_with(fake.requests, APP_RULE)
    assert fake.observed[second] == (True, "VALUE = 1\n")
    assert tool_results(fake.requests[second])[-1].startswith(GATE_PREFIX)
    assert fresh.read_text() == "X = 1\n"
    assert app.read_text() == "VALUE = 2\n"
    results = tool_results(fake.requests[-1])
    assert [r.startswith(GATE_PREFIX) for r in results] == [True, False, True, False]


def test_a_command_rule_is_refused_once_and_the_retry_runs(pi: PiProject) -> None:
    """The rule reaches the model as the call's result while released.txt does not exist;
    the retry creates it; a second matching command is neither refused nor shown the rule
    again."""
    fake = pi.fake
    fake.scenarios["gate"] = [
        bash_call("bash scripts/release.sh"),
        bash_call("bash scripts/release.sh && echo again"),
    ]
    pi.pi("SCENARIO:gate release it")
    first = first_with(fake.requests, RELEASE_RULE)
    assert fake.observed[first] is False  # the model read the rule before anything ran
    assert tool_results(fake.requests[first])[-1].startswith(GATE_PREFIX)
    assert (pi.root / "released.txt").exists()  # the retried call ran
    results = tool_results(fake.requests[-1])
    assert [r.startswith(GATE_PREFIX) for r in results] == [True, False, False]
    assert request_text(fake.requests[-1]).count(RELEASE_RULE) == 1


def test_pure_reads_and_uncovered_calls_add_nothing(pi: PiProject) -> None:
    """A write no lesson covers, `cat`, a read of an uncovered file, a search and a
    redirect no lesson covers: the hooks run on each (telemetry logs its recall) and
    nothing reaches the model but the session note."""
    fake = pi.fake
    fake.scenarios["quiet"] = [
        write_call("docs.md", "# Notes\n"),
        bash_call("cat docs.md && ls scripts"),
        read_call("docs.md"),
        bash_call("grep -rn VALUE src"),
        bash_call("echo done > out.txt"),
    ]
    log_recalls(pi.root)
    pi.pi("SCENARIO:quiet look around")
    assert (pi.root / "out.txt").exists()
    results = tool_results(fake.requests[-1])
    assert len(results) == 5
    assert not any("<lessons>" in r or GATE_PREFIX in r for r in results)
    recalls = logged_recalls(pi.root)
    assert {"docs.md", "cat docs.md && ls scripts", "echo done > out.txt"} <= set(recalls)
    assert not any(recalls.values()), recalls
    for request in fake.requests:
        assert request_text(request).count("<lessons>") == 0


def test_a_continued_session_keeps_what_it_was_shown_until_pi_compacts(pi: PiProject) -> None:
    """The note and an always-on lesson come after the first prompt. `pi -c` continues the
    session: a read of src/app.py brings nothing new. A run whose last answer fills the
    context makes pi compact at its end (a summary request, no tools); the next continued
    run brings the note and the always-on lesson after its prompt, and its read the rule."""
    pi.lessons("add", ALWAYS_RULE, "--topic", "build", "--always")
    fake = pi.fake
    fake.scenarios["one"] = [read_call(APP)]
    fake.scenarios["two"] = [read_call(APP)]
    fake.scenarios["three"] = [read_call(APP)]
    fake.scenarios["four"] = [read_call(APP)]
    pi.pi("SCENARIO:one read")
    assert ALWAYS_RULE in _user_texts(fake.requests[0])[-1]
    start = len(fake.requests)
    pi.pi("SCENARIO:two read again", "-c")
    assert [request_text(r).count(APP_RULE) for r in fake.requests[start:]] == [1, 1]
    assert request_text(fake.requests[-1]).count(ALWAYS_RULE) == 1
    fake.full_after.add("three")
    pi.settings(compaction={"keepRecentTokens": 50})  # summarise all but the last call
    start = len(fake.requests)
    pi.pi("SCENARIO:three read, the context fills", "-c")
    summaries = [r for r in fake.requests[start:] if not r.get("tools")]
    assert summaries  # pi compacted at the end of the run (a split turn asks twice)
    start = len(fake.requests)
    pi.pi("SCENARIO:four read after the compaction", "-c")
    first, last = fake.requests[start], fake.requests[-1]
    prompt, context = _user_texts(first)[-2:]
    assert prompt == "SCENARIO:four read after the compaction"
    assert context.startswith(session_note(Layout(pi.root)))
    assert ALWAYS_RULE in context
    assert request_text(first).count(ALWAYS_RULE) == 1
    assert APP_RULE in tool_results(last)[-1]
    assert request_text(last).count(APP_RULE) == 1  # the summary kept none of it


def test_a_failure_fixed_in_the_session_is_asked_for_at_its_end(pi: PiProject) -> None:
    """`make check-all` fails (no such target) and the result brings the capture nudge;
    `make check` passes. At agent_end the extension sends the capture request as the next
    prompt, once, and the one-shot run waits for it: the model runs the prefilled line
    through bash and the lesson appears."""
    asked = fix_scenario(pi.root, pi.fake, bash_call)
    pi.pi("SCENARIO:fix check the build")
    assert_fix_captured(pi.root, asked)
    failed = tool_results(pi.fake.requests[-1])[0]
    assert "Command exited with code 2" in failed
    assert "/.lessons/run add " in failed  # the nudge, appended to the failed result


def test_in_a_session_with_a_ui_the_request_follows_once_the_agent_is_idle(
    pi: PiProject,
) -> None:
    """In a long-lived session (`pi --mode rpc`, which has a UI, as an interactive one
    does) nothing waits at shutdown: the extension sends the request once the agent is
    idle after agent_end, once, and the model captures the lesson."""
    asked = fix_scenario(pi.root, pi.fake, bash_call)
    lessons = pi.root / ".lessons" / "lessons"
    pi.rpc("SCENARIO:fix check the build", lambda: len(list(lessons.glob("*.json"))) == 3)
    assert_fix_captured(pi.root, asked)


def test_a_forbidden_text_and_an_enforced_command_are_refused_every_time(pi: PiProject) -> None:
    """An edit adding split('/') is refused with the rule and the match, twice, while the
    file is unchanged, and the basename() edit applies; an enforced command is refused
    every time and never runs."""
    pi.lessons("add", SPLIT_RULE, "--topic", "paths", "--trigger-file", APP,
               "--forbid", r"split\('/'\)")  # fmt: skip
    pi.lessons("add", DEPLOY_RULE, "--topic", "release", "--trigger-cmd",
               r"scripts/release\.sh", "--enforce")  # fmt: skip
    app, released = pi.root / APP, pi.root / "released.txt"
    fake = pi.fake
    fake.probe = lambda: (app.read_text(), released.exists())
    split = "VALUE = 1\nNAME = PATH.split('/')[-1]"
    fake.scenarios["bind"] = [
        read_call(APP),
        edit_call(APP, "VALUE = 1", split),
        edit_call(APP, "VALUE = 1", split),
        edit_call(APP, "VALUE = 1", "VALUE = 1\nNAME = os.path.basename(PATH)"),
        bash_call("bash scripts/release.sh"),
        bash_call("bash scripts/release.sh"),
    ]
    pi.pi("SCENARIO:bind name the file, then release")
    results = tool_results(fake.requests[-1])
    forbidden = [r for r in results if r.startswith(FORBID_HEAD)]
    assert len(forbidden) == 2
    assert all("\"split('/')\": NAME = PATH.split('/')[-1]" in r for r in forbidden)
    enforced = [r for r in results if r.startswith(ENFORCE_HEAD)]
    assert len(enforced) >= 2
    assert all(DEPLOY_RULE in r for r in enforced)
    for index, request in enumerate(fake.requests):
        if any(r.startswith(FORBID_HEAD) for r in tool_results(request)[-1:]):
            assert fake.observed[index][0] == "VALUE = 1\n"  # nothing was written
    assert app.read_text() == "VALUE = 1\nNAME = os.path.basename(PATH)\n"
    assert not released.exists()


QUIET_CALLS = [
    write_call("src/storage/fresh.py", "X = 1\n"),
    read_call(APP),
    bash_call("bash scripts/release.sh"),
]


def _runs_unhindered(pi: PiProject) -> None:
    """The calls a working hook would refuse or add to all run, and the model sees no
    trace of lessons."""
    pi.lessons("add", "Open files under src/storage through storage.paths only.",
               "--topic", "storage", "--trigger-file", "src/storage/**")  # fmt: skip
    pi.fake.scenarios["open"] = QUIET_CALLS
    pi.pi("SCENARIO:open work")
    results = tool_results(pi.fake.requests[-1])
    assert len(results) == 3
    assert not any(GATE_PREFIX in r or "<lessons>" in r for r in results)
    assert (pi.root / "src" / "storage" / "fresh.py").exists()
    assert (pi.root / "released.txt").exists()


def test_a_crashing_launcher_never_breaks_a_call(pi_project: PiProject) -> None:
    """A launcher that prints a broken answer and fails: every call runs as if lessons
    were not there."""
    launcher = pi_project.root / ".lessons" / "run"
    launcher.write_text('cat >/dev/null\necho \'{"block": true, "reason"\'\nexit 3\n')
    _runs_unhindered(pi_project)
    assert "<lessons>" not in request_text(pi_project.fake.requests[0])


def test_a_launcher_that_hangs_is_cut_off_and_the_call_runs(pi_project: PiProject) -> None:
    """A launcher that never answers tool_call is stopped at the extension's timeout, and
    the command a working one would refuse runs."""
    launcher = pi_project.root / ".lessons" / "run"
    launcher.rename(launcher.with_name("run.real"))
    launcher.write_text(
        "payload=$(cat)\ncase $payload in *'\"tool_call\"'*) exec sleep 60 ;; esac\n"
        'printf "%s" "$payload" | exec sh "$0.real" "$@"\n'
    )
    pi_project.fake.scenarios["slow"] = [bash_call("bash scripts/release.sh")]
    started = time.monotonic()
    pi_project.pi("SCENARIO:slow release it")
    assert time.monotonic() - started >= 10  # the timeout, not the hook, ended the wait
    (result,) = tool_results(pi_project.fake.requests[-1])
    assert not result.startswith(GATE_PREFIX)
    assert (pi_project.root / "released.txt").exists()


def test_a_missing_launcher_never_breaks_a_call(pi_project: PiProject) -> None:
    """A branch without .lessons/run: every call runs."""
    (pi_project.root / ".lessons" / "run").unlink()
    _runs_unhindered(pi_project)


def test_without_lessons_installed_the_model_is_told_and_every_call_runs(
    pi_project: PiProject,
) -> None:
    """lessons is nowhere the launcher looks: the first request says how to install it,
    and every call runs."""
    pi_project.installed = False
    pi_project.fake.scenarios["open"] = QUIET_CALLS
    pi_project.pi("SCENARIO:open work")
    assert "found no lessons to run" in _user_texts(pi_project.fake.requests[0])[-1]
    results = tool_results(pi_project.fake.requests[-1])
    assert len(results) == 3
    assert (pi_project.root / "released.txt").exists()


FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "pi"
SESSION = "01a24e00-0000-7000-8000-000000000000"


def _recording_launcher(root: Path, log: Path) -> None:
    """``.lessons/run`` made to append each payload it gets to ``log``, then run the real
    launcher (moved beside it) with it."""
    launcher = root / ".lessons" / "run"
    launcher.rename(launcher.with_name("run.real"))
    launcher.write_text(
        f'payload=$(cat); printf "%s\\n" "$payload" >> "{log}"\n'
        'printf "%s" "$payload" | exec sh "$0.real" "$@"\n'
    )


def _fixture_name(payload: dict[str, object]) -> str:
    """tool_call_edit, tool_result_bash_failing, session_start..."""
    name = str(payload["hook_event_name"])
    if "tool_name" in payload:
        name += f"_{payload['tool_name']}"
    return name + ("_failing" if payload.get("is_error") else "")


def _normalised(payload: dict[str, object], root: Path) -> dict[str, object]:
    """A payload as stored: one session id, the project folder as $PROJECT."""
    text = json.dumps({**payload, "session_id": SESSION}).replace(str(root), "$PROJECT")
    data: dict[str, object] = json.loads(text)
    return data


def test_the_fixtures_are_what_the_extension_sends(pi: PiProject, tmp_path: Path) -> None:
    """tests/fixtures/pi/ holds, for each event (and tool, and failed call) the extension
    sends the launcher, the first payload of this run, normalised."""
    log = tmp_path / "payloads.jsonl"
    _recording_launcher(pi.root, log)
    pi.fake.scenarios["record"] = [
        read_call(APP),
        edit_call(APP, "VALUE = 1", "VALUE = 2"),
        write_call("src/new.py", "X = 1\n"),
        bash_call("bash scripts/release.sh"),
        bash_call("make no-such-target"),
    ]
    pi.fake.full_after.add("record")
    pi.settings(compaction={"keepRecentTokens": 50})
    pi.pi("SCENARIO:record read, edit, write and run")
    recorded: dict[str, object] = {}
    for line in log.read_text().splitlines():
        payload = json.loads(line)
        recorded.setdefault(_fixture_name(payload), _normalised(payload, pi.root))
    assert_recorded(recorded, FIXTURES, tmp_path / "recorded")
