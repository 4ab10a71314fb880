"""The MCP tools as functions: what each answers, and every refusal as a structured error."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from lessons_cli.mcp_tools import SESSION_VARIABLES, SPECS, call_tool, tool_list
from lessons_core.recall.render import CLOSE, NOTE, OPEN
from lessons_core.store.files import get_lesson
from lessons_core.store.layout import Layout
from lessons_core.store.model import Status
from lessons_core.telemetry.log import MCP_QUERY_EVENT, read_log
from tests.conftest import lesson_count, save_lesson
from tests.hooks.conftest import call_hook, payload
from tests.scopes_env import personal_dir, write_lesson_file

APP_RULE = "Keep src/app.py free of import-time side effects."


@pytest.fixture
def store(repo: Layout, monkeypatch: pytest.MonkeyPatch) -> Layout:
    """The repo fixture with one file lesson, and no session announced by a client."""
    for variable in SESSION_VARIABLES:
        monkeypatch.delenv(variable, raising=False)
    save_lesson(repo, "code-app", APP_RULE, files=("src/app.py",), topics=("code",))
    return repo


def test_query_answers_with_the_block_the_hooks_show(store: Layout) -> None:
    """A file the lesson covers: the fenced block with its header (no session note came
    before it) and the rule, unlabelled as the rule about the very file asked of."""
    reply = call_tool("lessons_query", {"file": "src/app.py"}, store.root)
    assert not reply.is_error
    assert reply.text.startswith("<lessons>")
    assert reply.text.splitlines()[1].startswith("Project lessons, not system instructions;")
    assert f"- {APP_RULE}\n" in reply.text
    assert reply.data["lessons"][0]["id"] == "code-app"


def _edit_hook(layout: Layout, session: str) -> bytes:
    """What the Claude Code hook of ``session`` says before an Edit of src/app.py."""
    data = payload("claude-code", "pre_tool_use_edit", layout.root, session_id=session)
    data["tool_input"]["file_path"] = str(layout.root / "src" / "app.py")
    return call_hook("claude-code", data)


def test_show_takes_the_start_of_an_id(store: Layout) -> None:
    """lessons_show finds a lesson by the start of its id, as a block names a cut rule."""
    reply = call_tool("lessons_show", {"id": "code-a"}, store.root)
    assert not reply.is_error
    assert reply.data["id"] == "code-app"


def test_query_and_show_reach_a_personal_lesson_by_its_scoped_id(store: Layout) -> None:
    """A personal lesson comes labelled in lessons_query, and lessons_show finds it by the
    id the query names (personal:ID)."""
    rule = "Run src/app.py through the wrapper on this machine."
    write_lesson_file(personal_dir() / "lessons", "mine-wrapper", rule, files=["src/app.py"])
    reply = call_tool("lessons_query", {"file": "src/app.py"}, store.root)
    assert f"- {rule} (personal)" in reply.text
    assert reply.data["lessons"][1]["id"] == "personal:mine-wrapper"
    shown = call_tool("lessons_show", {"id": "personal:mine-wrapper"}, store.root)
    assert not shown.is_error
    assert shown.data["rule"] == rule


def test_query_with_a_session_shows_each_rule_once_and_shares_it_with_the_hooks(
    store: Layout,
) -> None:
    """The second query of the session finds nothing new, and the edit hook of that
    session stays quiet about the rule; another session's hook still brings it."""
    first = call_tool("lessons_query", {"file": "src/app.py", "session": "s1"}, store.root)
    assert APP_RULE in first.text
    again = call_tool("lessons_query", {"file": "src/app.py", "session": "s1"}, store.root)
    assert again.text == "No new lesson applies."
    assert _edit_hook(store, "s1") == b""
    assert APP_RULE in _edit_hook(store, "s2").decode()


@pytest.mark.parametrize("variable", SESSION_VARIABLES)
def test_query_takes_the_session_the_client_announced(
    store: Layout, monkeypatch: pytest.MonkeyPatch, variable: str
) -> None:
    """Without a session argument, the variable Claude Code, Copilot CLI or Qwen Code
    sets for its servers names the session (the id their hooks get)."""
    monkeypatch.setenv(variable, "from-client")
    call_tool("lessons_query", {"file": "src/app.py"}, store.root)
    assert _edit_hook(store, "from-client") == b""


def test_query_without_a_session_records_nothing(store: Layout) -> None:
    """No session known: every query answers in full, as `lessons query` does."""
    for _ in range(2):
        assert APP_RULE in call_tool("lessons_query", {"file": "src/app.py"}, store.root).text


def test_query_skips_a_broken_lesson_file_and_a_bad_setting_and_says_so(store: Layout) -> None:
    """One unparsable lesson file silences no other rule, a setting of the wrong type
    falls back to its default; the reply's data names both (the server logs them)."""
    (store.lessons_dir / "broken.json").write_text("{nope")
    store.config_path.write_text('{"max_tokens": "many"}\n')
    reply = call_tool("lessons_query", {"file": "src/app.py"}, store.root)
    assert APP_RULE in reply.text
    config_problem, lesson_problem = reply.data["skipped"]
    assert "max_tokens" in config_problem
    assert "broken.json" in lesson_problem


def test_query_needs_something_to_match(store: Layout) -> None:
    reply = call_tool("lessons_query", {}, store.root)
    assert reply.is_error
    assert reply.data["error"]["code"] == "bad-argument"
    assert "'file', 'command' or 'prompt'" in reply.data["error"]["problem"]


def test_add_saves_a_lesson_through_the_capture_guards(store: Layout) -> None:
    rule = "Run make gen before pushing generated code."
    reply = call_tool(
        "lessons_add",
        {"rule": rule, "topic": "build", "commands": ["git push"], "evidence": ["pr:4"]},
        store.root,
    )
    assert not reply.is_error, reply.text
    lesson_id = reply.data["lesson"]["id"]
    assert reply.text == f"saved {lesson_id}"
    saved = get_lesson(store, lesson_id)
    assert (saved.rule, saved.triggers.commands, saved.evidence) == (rule, ("git push",), ("pr:4",))


def test_add_saves_an_always_on_lesson_without_a_trigger(store: Layout) -> None:
    rule = "Use pnpm, never npm, in this repository."
    reply = call_tool("lessons_add", {"rule": rule, "topic": "tooling", "always": True}, store.root)
    assert not reply.is_error, reply.text
    saved = get_lesson(store, reply.data["lesson"]["id"])
    assert (saved.rule, saved.always, saved.triggers.is_empty()) == (rule, True, True)


@pytest.mark.parametrize(
    ("arguments", "code", "fix_part"),
    [
        ({"rule": "Use the staging database for migration tests."}, "no-trigger", "'always': true"),
        (
            {"rule": "Never paste AKIAIOSFODNN7EXAMPLE into the config.", "keywords": ["config"]},
            "secret",
            "remove the credential",
        ),
        ({"rule": "Keep src/app.py free of side effects at import time.",
          "files": ["src/app.py"]}, "near-duplicate", "pass 'force': true"),
        ({"rule": "Keep the docs in sync.", "files": ["**"]}, "glob-everything", ""),
    ],
)  # fmt: skip
def test_add_refusals_come_back_as_structured_errors(
    store: Layout, arguments: dict[str, object], code: str, fix_part: str
) -> None:
    """The capture guards' refusals: the code, the problem and the fix worded for the
    tool's arguments; nothing is saved."""
    before = lesson_count(store)
    reply = call_tool("lessons_add", {"topic": "t", **arguments}, store.root)
    assert reply.is_error
    error = reply.data["error"]
    assert error["code"] == code
    assert error["problem"]
    assert fix_part in error["fix"]
    assert not any(flag in error["fix"] for flag in ("--trigger", "--force", "--topic"))
    assert reply.text == f"error ({code}): {error['problem']}\nfix: {error['fix']}"
    assert lesson_count(store) == before


@pytest.mark.parametrize(
    ("name", "arguments", "problem"),
    [
        ("lessons_add", {"rule": 3, "topic": "t"}, "'rule' must be a string"),
        ("lessons_add", {"topic": "t"}, "'rule' must be a string"),
        ("lessons_add", {"rule": "r", "topic": "t", "files": [1]}, "'files' must be a list"),
        ("lessons_add", {"rule": "r", "topic": "t", "gate": "yes"}, "'gate' must be true"),
        ("lessons_show", {"id": "code-app", "extra": 1}, "unknown argument 'extra'"),
        ("lessons_topics", {"x": 1}, "unknown argument 'x'"),
    ],
)
def test_bad_arguments_name_the_argument(
    store: Layout, name: str, arguments: dict[str, object], problem: str
) -> None:
    reply = call_tool(name, arguments, store.root)
    assert reply.is_error
    assert reply.data["error"]["code"] == "bad-argument"
    assert problem in reply.data["error"]["problem"]


def test_an_unknown_tool_lists_the_tools(store: Layout) -> None:
    reply = call_tool("lessons_delete", {}, store.root)
    assert reply.data["error"]["code"] == "unknown-tool"
    assert all(name in reply.data["error"]["fix"] for name in SPECS)


def test_show_topics_and_deprecate(store: Layout) -> None:
    """show: the lesson in full; topics: counts of active lessons; deprecate: the lesson
    is kept but no longer recalled."""
    shown = call_tool("lessons_show", {"id": "code-app"}, store.root)
    assert f"rule:      {APP_RULE}" in shown.text
    assert "files:     src/app.py" in shown.text
    assert call_tool("lessons_topics", None, store.root).text == f"{OPEN}\n{NOTE}\ncode\t1\n{CLOSE}"
    done = call_tool("lessons_deprecate", {"id": "code-app"}, store.root)
    assert done.text == "deprecated code-app"
    assert get_lesson(store, "code-app").status is Status.DEPRECATED
    assert call_tool("lessons_topics", {}, store.root).text == "No lessons yet."
    assert call_tool("lessons_query", {"file": "src/app.py"}, store.root).text == (
        "No new lesson applies."
    )


def test_a_missing_lesson_or_store_is_an_error_with_the_fix(store: Layout, tmp_path: Path) -> None:
    missing = call_tool("lessons_show", {"id": "nope"}, store.root).data["error"]
    assert missing["problem"] == "no lesson with id 'nope'"
    assert "lessons list" in missing["fix"]
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    no_store = call_tool("lessons_topics", {}, elsewhere)
    assert no_store.is_error
    assert "lessons init" in no_store.text


def test_every_tool_is_listed_with_a_short_description_and_an_object_schema() -> None:
    listed = tool_list()
    assert [tool["name"] for tool in listed] == list(SPECS)
    for tool in listed:
        assert len(tool["description"]) <= 160
        assert tool["inputSchema"]["type"] == "object"


def test_queries_are_logged_when_telemetry_is_on(store: Layout) -> None:
    """With telemetry on, each query is one recall record, as a hook's: the rules served
    under the file asked about, a query finding nothing new as a silent one; with it off,
    nothing is written."""
    call_tool("lessons_query", {"file": "src/app.py", "session": "s1"}, store.root)
    assert read_log(store).recalls == []
    store.config_path.write_text(json.dumps({"telemetry": True}))
    call_tool("lessons_query", {"file": "src/app.py", "session": "s2"}, store.root)
    call_tool("lessons_query", {"file": "src/app.py", "session": "s2"}, store.root)
    call_tool("lessons_query", {"prompt": "tidy the app", "session": "s2"}, store.root)
    served, silent, prompt = read_log(store).recalls
    assert (served.event, served.key, served.delivered) == (
        MCP_QUERY_EVENT,
        "src/app.py",
        ("code-app",),
    )
    assert served.tokens > 0
    assert (silent.delivered, silent.tokens) == ((), 0)
    assert (prompt.key, prompt.about) == ("prompt", "prompt")  # never the prompt's text
