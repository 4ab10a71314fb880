"""`lessons eval --replay`: the calls the hooks logged, through the hook again."""

from __future__ import annotations

import json
import re
import shlex
import tempfile
from pathlib import Path
from typing import Any

import pytest

from lessons_cli.mcp_tools import call_tool
from lessons_core.jsonio import dumps
from lessons_core.store.files import get_lesson, update_lesson
from lessons_core.store.layout import SESSIONS, Layout
from lessons_core.store.model import Status
from lessons_core.store.project import init_project
from lessons_core.telemetry.log import log_path, read_log
from tests.conftest import make_repo, run
from tests.hooks.conftest import call_hook, payload, write_lesson

APP = "code-a-import-safe"
PUSH = "build-gen-before-push"


def _bash(layout: Layout, command: str, session: str) -> dict[str, Any]:
    data = payload("claude-code", "pre_tool_use_bash_redirect", layout.root, session_id=session)
    data["tool_input"] = {"command": command}
    return data


def live_sessions(layout: Layout) -> None:
    """Two Claude Code sessions and a Gemini CLI one, run through the real hooks."""
    layout.config_path.write_bytes(dumps({"telemetry": True}))
    # src/app.py is the file the recorded Gemini CLI payloads write.
    write_lesson(layout, APP, "Keep src/a.py import-safe.", files=("src/a.py", "src/app.py"))
    write_lesson(layout, PUSH, "Run make gen before pushing.", commands=("git push",))
    for harness, name, changes in [
        ("claude-code", "pre_tool_use_write", {}),  # context
        ("claude-code", "pre_tool_use_edit", {}),  # silent: shown in this session
        ("claude-code", "user_prompt_submit", {"prompt": "make gen"}),  # a prompt recall
        ("claude-code", "pre_tool_use_write", {"session_id": "second"}),  # context again
        ("gemini", "before_tool_write_file", {}),  # silent: BeforeTool can only gate
        ("gemini", "after_tool_write_file", {}),  # context
    ]:
        call_hook(harness, payload(harness, name, layout.root, **changes))
    for command in ("git push origin main", "git push origin main", "ls src"):
        call_hook("claude-code", _bash(layout, command, "second"))  # gate, silent, silent


@pytest.fixture
def logged(project: Layout, monkeypatch: pytest.MonkeyPatch) -> Layout:
    """The project after live_sessions, as the working directory."""
    live_sessions(project)
    monkeypatch.chdir(project.root)
    return project


def replay() -> dict[str, Any]:
    result = run("eval", "--replay", "--json")
    assert result.exit_code == 0, result.output
    assert result.stderr == ""
    data: dict[str, Any] = json.loads(result.stdout)
    return data


def test_unchanged_lessons_replay_to_what_was_logged(logged: Layout) -> None:
    """Same calls, same deliveries, same tokens: the replay is the hook's own path."""
    data = replay()
    assert data["logged"] == data["replayed"]
    assert data["logged"]["calls"] == 8
    assert data["logged"]["delivering"] == 4  # Write, Write (second), AfterTool, git push
    assert (data["changed"], data["prompts"], data["unreplayable"]) == (0, 1, 0)
    assert data["sessions"] == 3


def test_a_changed_graph_changes_the_replay_only(logged: Layout) -> None:
    """Deprecating the push rule silences its gate now; the logged figures stay."""
    before = replay()
    update_lesson(logged, get_lesson(logged, PUSH).with_status(Status.DEPRECATED))
    after = replay()
    assert after["logged"] == before["logged"]
    assert after["changed"] == 1
    assert after["replayed"]["delivering"] == 3
    assert after["replayed"]["tokens"] < before["replayed"]["tokens"]
    assert after["replayed"]["silent_share"] == 5 / 8


def test_the_replay_leaves_log_and_sessions_alone(logged: Layout) -> None:
    """Telemetry is on, yet the log gains no line; no session file is added or changed."""
    log = log_path(logged).read_bytes()
    folder = logged.local_dir / SESSIONS
    state = {p.name: p.read_bytes() for p in folder.iterdir()}
    replay()
    assert log_path(logged).read_bytes() == log
    assert {p.name: p.read_bytes() for p in folder.iterdir()} == state


def test_records_without_a_key_kind_are_counted_not_replayed(logged: Layout) -> None:
    """A record written before the log said what its key holds is not guessed at."""
    lines = log_path(logged).read_text().splitlines()
    older = json.loads(lines[0])
    del older["about"]
    log_path(logged).write_text("\n".join([json.dumps(older), *lines[1:], "not json"]) + "\n")
    data = replay()
    assert (data["logged"]["calls"], data["unreplayable"], data["skipped_lines"]) == (7, 1, 1)
    assert len(read_log(logged).recalls) == 9


def test_queries_made_through_lessons_mcp_are_counted_not_replayed(logged: Layout) -> None:
    """An agent's lessons_query is no tool call a hook answered: the calls and their
    figures stay as they were, the queries are counted apart, and said so."""
    before = replay()
    call_tool("lessons_query", {"file": "src/a.py", "session": "mcp"}, logged.root)
    call_tool("lessons_query", {"command": "git push origin main"}, logged.root)
    after = replay()
    assert after["queries"] == 2
    assert {k: v for k, v in after.items() if k != "queries"} == {
        k: v for k, v in before.items() if k != "queries"
    }
    text = run("eval", "--replay").stdout
    assert "2 queries made through lessons mcp not replayed: no hook answered them" in text


def test_text_report(logged: Layout) -> None:
    """As logged and with today's lessons, side by side; the prompt recall is explained."""
    result = run("eval", "--replay")
    assert result.exit_code == 0
    lines = result.stdout.splitlines()
    assert (
        lines[0] == "8 logged tool calls in 3 sessions replayed; 0 would deliver differently today"
    )
    assert lines[2].split()[:3] == ["as", "logged", "50%"]
    assert lines[3].split()[:3] == ["today's", "lessons", "50%"]
    assert lines[4] == "1 prompt recall not replayed: prompt text is never logged"
    assert result.stderr == ""


def test_without_a_log(project: Layout, monkeypatch: pytest.MonkeyPatch) -> None:
    """No telemetry log: a user error naming the log and the setting that fills it."""
    monkeypatch.chdir(project.root)
    result = run("eval", "--replay")
    assert result.exit_code == 1
    assert result.stdout == ""
    assert f"{log_path(project)}: no recalls logged yet" in result.stderr
    assert '"telemetry": true' in result.stderr


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--replay", "cases.jsonl"], "pass CASES or --replay, not both"),
        (["--replay", "--k", "2"], "--k scores a cases file"),
        ([], "pass a CASES.jsonl file, or --replay"),
    ],
)
def test_cases_or_replay(
    project: Layout, monkeypatch: pytest.MonkeyPatch, args: list[str], message: str
) -> None:
    """Exactly one of CASES and --replay; --k only with CASES: usage errors, exit 2."""
    monkeypatch.chdir(project.root)
    Path("cases.jsonl").write_text('{"file": "src/a.py", "expect": []}\n')
    result = run("eval", *args)
    assert result.exit_code == 2
    assert message in result.stderr


def test_the_docs_example_is_real_output(monkeypatch: pytest.MonkeyPatch) -> None:
    """docs/eval.md's --replay block: these sessions, then the push rule deprecated.

    What the hooks say names the launcher by the repo's path, so its tokens depend on the
    path's length: the example is made in a folder whose path has a fixed length, wherever
    the tests' own temp folder is."""
    doc = Path(__file__).resolve().parents[2] / "docs" / "eval.md"
    blocks = re.findall(r"```console\n\$ (.*?)\n(.*?)```", doc.read_text(), re.S)
    ((command, shown),) = [(c, out) for c, out in blocks if "--replay" in c]
    with tempfile.TemporaryDirectory(prefix="lessons-eval-", dir="/tmp") as folder:
        layout, _ = init_project(make_repo(Path(folder) / "repo", {"src/a.py": "x = 1\n"}))
        live_sessions(layout)
        monkeypatch.chdir(layout.root)
        update_lesson(layout, get_lesson(layout, PUSH).with_status(Status.DEPRECATED))
        assert run(*shlex.split(command)[1:]).stdout == shown
