"""``lessons add --enforce`` and ``--forbid``: a person makes a rule binding; ``show``,
``list`` and ``review`` say so; an agent's capture (the MCP tool) cannot."""

from __future__ import annotations

import json

import orjson
import pytest

from lessons_cli.mcp_tools import SPECS, call_tool
from lessons_core.feedback.failures import capture_line
from lessons_core.store.files import get_lesson
from lessons_core.store.layout import Layout
from tests.conftest import git, lesson_count, run

SPLIT_RULE = "Use os.path.basename for file names, never split('/')."
PUSH_RULE = "Never push to main; open a pull request."


def test_add_forbid_saves_the_pattern_and_show_and_list_print_it(repo: Layout) -> None:
    added = run("add", SPLIT_RULE, "--topic", "paths", "--trigger-file", "src/*.py",
                "--forbid", r"split\('/'\)")  # fmt: skip
    assert added.exit_code == 0, added.stderr
    lesson_id = added.stdout.strip()
    assert get_lesson(repo, lesson_id).forbid == r"split\('/'\)"
    saved = json.loads(repo.lesson_path(lesson_id).read_text())
    assert saved["forbid"] == r"split\('/'\)"
    assert "enforce" not in saved
    assert r"forbid:    split\('/'\)" in run("show", lesson_id).stdout
    assert f"{lesson_id} [forbid]: " in run("list").stdout


def test_add_enforce_saves_the_flag_and_show_and_list_print_it(repo: Layout) -> None:
    added = run("add", PUSH_RULE, "--topic", "git", "--trigger-cmd", "git push", "--enforce")
    assert added.exit_code == 0, added.stderr
    lesson_id = added.stdout.strip()
    assert orjson.loads(repo.lesson_path(lesson_id).read_bytes())["enforce"] is True
    shown = run("show", lesson_id).stdout
    assert "status:    active (enforce)" in shown
    assert "every matching command is refused" in shown
    assert f"{lesson_id} [enforce]: " in run("list").stdout


@pytest.mark.parametrize(
    ("flags", "problem", "fix"),
    [
        (("--trigger-file", "src/*.py", "--enforce"), "has none", "--trigger-cmd"),
        (("--trigger-cmd", "git push", "--forbid", "x"), "no file trigger", "--trigger-file"),
        (("--trigger-file", "src/*.py", "--forbid", "(a"), "not a valid linear-time", "RE2"),
        (("--trigger-file", "src/*.py", "--forbid", "a*"), "matches the empty string", "RE2"),
        (("--trigger-file", "src/*.py", "--forbid", r"(a)\1"), "backreferences", "RE2"),
    ],
)
def test_add_refuses_a_binding_it_cannot_apply_with_the_fix(
    repo: Layout, flags: tuple[str, ...], problem: str, fix: str
) -> None:
    """--enforce without a command trigger, --forbid without a file trigger or with a
    pattern RE2 rejects: exit 1, the reason and the fix, nothing saved."""
    before = lesson_count(repo)
    result = run("add", "Keep the paths portable in src.", "--topic", "paths", *flags)
    assert result.exit_code == 1
    assert problem in result.stderr
    assert fix in result.stderr.split("fix:", 1)[1]
    assert lesson_count(repo) == before


def test_add_help_says_the_two_are_for_people() -> None:
    text = run("add", "--help").stdout
    assert text.count("For people only, never for an agent") == 2


def test_the_mcp_add_tool_neither_offers_nor_takes_them(repo: Layout) -> None:
    """The agent's tool has no such argument, and one passed anyway is refused by name
    with nothing saved."""
    properties = SPECS["lessons_add"][1]
    assert "enforce" not in properties
    assert "forbid" not in properties
    before = lesson_count(repo)
    for extra in ({"enforce": True}, {"forbid": "x"}):
        reply = call_tool(
            "lessons_add",
            {"rule": PUSH_RULE, "topic": "git", "commands": ["git push"], **extra},
            repo.root,
        )
        assert reply.is_error
        assert f"unknown argument '{next(iter(extra))}'" in reply.data["error"]["problem"]
    assert lesson_count(repo) == before


def test_the_capture_nudge_never_sets_them(repo: Layout) -> None:
    """The ready ``lessons add`` line a failure nudge offers the agent."""
    line = capture_line(repo, "--trigger-cmd", "git push")
    assert "--enforce" not in line
    assert "--forbid" not in line


def test_review_lines_say_a_lesson_is_binding(repo: Layout) -> None:
    git(repo.root, "add", "-A")
    git(repo.root, "commit", "-qm", "init", "--allow-empty")
    assert (
        run("add", PUSH_RULE, "--topic", "git", "--trigger-cmd", "git push", "--enforce").exit_code
        == 0
    )
    added = run("add", SPLIT_RULE, "--topic", "paths", "--trigger-file", "src/*.py",
                "--forbid", r"split\('/'\)")  # fmt: skip
    assert added.exit_code == 0
    text = run("review", "--format", "markdown").stdout
    assert "- enforce: every command its command triggers match is refused" in text
    assert "- forbid `split\\('/'\\)`: every change to its files adding a match is refused" in text
