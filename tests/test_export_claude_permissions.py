"""`lessons export --format claude-permissions`: enforced command rules as Claude Code
permissions.deny entries, every other byte of settings.json kept."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from lessons_core.permission_rules.translate import translate
from lessons_core.store.layout import Layout
from tests.conftest import run
from tests.lesson_graphs import make_project, write_lesson


@pytest.mark.parametrize(
    ("pattern", "rules"),
    [
        ("^git push --force( |$)", ("Bash(git push --force:*)",)),
        ("^git push --force(?: |$)", ("Bash(git push --force:*)",)),
        (r"^npm publish(\s|$)", ("Bash(npm publish:*)",)),
        ("^git status$", ("Bash(git status)",)),
        ("^rm -rf /", ("Bash(rm -rf /*)",)),
        (r"^terraform apply -auto-approve(?:\s|$)", ("Bash(terraform apply -auto-approve:*)",)),
        (r"^python3 manage\.py flush$", ("Bash(python3 manage.py flush)",)),
        (
            "^git push -f( |$)|^git push --force( |$)",
            ("Bash(git push -f:*)", "Bash(git push --force:*)"),
        ),
    ],
)
def test_patterns_that_say_a_prefix_or_a_command_translate(
    pattern: str, rules: tuple[str, ...]
) -> None:
    done = translate(pattern)
    assert done.reason is None
    assert done.rules == rules


@pytest.mark.parametrize(
    ("pattern", "why"),
    [
        ("git push --force", "not anchored with '^'"),
        ("^git push --force", "also fires on 'git push --force-x'"),
        ("^git push .*--force", "regex syntax"),
        (r"^git push \S+", "regex class or escape"),
        ("^git (push|pull)( |$)", "shell parsing"),
        ("^make && rm( |$)", "shell parsing"),
        ("^echo 'x'$", "shell parsing"),
        ("^ls *$", "shell parsing"),
        ("^git  push$", "double or trailing space"),
        ("^-rf$", "program name"),
        ("^caf\u00e9$", "plain ASCII"),
        ("^git push( |$)|push --force", "not anchored"),  # one alternative spoils all
    ],
)
def test_patterns_without_an_exact_rule_say_why(pattern: str, why: str) -> None:
    done = translate(pattern)
    assert done.rules == ()
    assert done.reason is not None
    assert why in done.reason


SETTINGS = """{
    "$schema": "https://json.schemastore.org/claude-code-settings.json",
    "env": {"A": "caf\\u00e9"},
    "permissions": {
        "allow": ["Bash(npm test:*)"],
        "deny": [
            "Read(./.env)",
            "Bash(curl:*)"
        ],
        "defaultMode": "default"
    },
    "hooks": {
        "PreToolUse": [{"matcher": "*", "hooks": [{"type": "command", "command": "x"}]}]
    }
}
"""


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Layout:
    layout = make_project(tmp_path / "repo")
    write_lesson(
        layout, "git-force", "Never force-push; push a new branch.",
        commands=["^git push --force( |$)", "git reset --hard"], enforce=True,
    )  # fmt: skip
    write_lesson(layout, "git-other", "Not enforced.", commands=["^git clean -fd( |$)"])
    monkeypatch.chdir(layout.root)
    return layout


def settings_path(layout: Layout) -> Path:
    return layout.root / ".claude" / "settings.json"


def test_a_new_settings_file_gets_the_deny_rules(project: Layout) -> None:
    result = run("export", "--format", "claude-permissions")
    assert result.exit_code == 0, result.output
    assert json.loads(settings_path(project).read_text()) == {
        "permissions": {"deny": ["Bash(git push --force:*)"]}
    }
    assert result.stdout.splitlines() == [
        "1 deny rule for enforced lessons in .claude/settings.json (1 added, 0 removed)",
        "  Bash(git push --force:*)  lesson git-force",
        "not exported (no exact Claude Code rule; the hook still enforces them):",
        "  lesson git-force, trigger 'git reset --hard': it is not anchored with '^', so it "
        "fires anywhere in a command ('sudo ...', 'echo ...'), while a permission rule reads "
        "a command from its start",
    ]


def test_every_other_byte_stays_and_a_rerun_changes_nothing(project: Layout) -> None:
    path = settings_path(project)
    path.parent.mkdir()
    path.write_text(SETTINGS)
    assert run("export", "--format", "claude-permissions").exit_code == 0
    expected = SETTINGS.replace(
        """            "Bash(curl:*)"
        ],""",
        """            "Bash(curl:*)",
            "Bash(git push --force:*)"
        ],""",
    )
    assert path.read_text() == expected
    again = run("export", "--format", "claude-permissions")
    assert again.stdout.startswith(
        "1 deny rule for enforced lessons in .claude/settings.json (0 added, 0 removed)"
    )
    assert path.read_text() == expected
    assert sorted(os.listdir(path.parent)) == ["settings.json"]  # no temp file left

    # The lesson is no longer enforced: its entry goes, the person's stay.
    write_lesson(
        project, "git-force", "Never force-push; push a new branch.",
        commands=["^git push --force( |$)"],
    )  # fmt: skip
    gone = run("export", "--format", "claude-permissions")
    assert "(0 added, 1 removed)" in gone.stdout
    assert path.read_text() == SETTINGS


def test_entries_of_any_json_type_are_kept_as_written(project: Layout) -> None:
    path = settings_path(project)
    path.parent.mkdir()
    path.write_text('{"permissions": {"deny": [{"odd": 1}, 7, "Bash(x:*)"]}}')
    assert run("export", "--format", "claude-permissions").exit_code == 0
    assert json.loads(path.read_text())["permissions"]["deny"] == [
        {"odd": 1}, 7, "Bash(x:*)", "Bash(git push --force:*)"
    ]  # fmt: skip


def test_an_entry_a_person_wrote_stays_theirs(project: Layout) -> None:
    path = settings_path(project)
    path.parent.mkdir()
    mine = '{"permissions": {"deny": ["Bash(git push --force:*)"]}}\n'
    path.write_text(mine)
    assert "(0 added, 0 removed)" in run("export", "--format", "claude-permissions").stdout
    assert path.read_text() == mine
    write_lesson(project, "git-force", "Never force-push.", commands=["^x( |$)"])  # not enforced
    run("export", "--format", "claude-permissions")
    assert path.read_text() == mine


ONLY_DENY = '{\n  "permissions": {\n    "deny": [\n      "Bash(git push --force:*)"\n    ]\n  }\n}'


@pytest.mark.parametrize(
    ("before", "after"),
    [
        (
            '{\n  "model": "x"\n}\n',
            '{\n  "model": "x",\n  "permissions": {\n    "deny": [\n'
            '      "Bash(git push --force:*)"\n    ]\n  }\n}\n',
        ),
        (
            '{\n  "permissions": {\n    "allow": []\n  }\n}\n',
            '{\n  "permissions": {\n    "allow": [],\n    "deny": [\n'
            '      "Bash(git push --force:*)"\n    ]\n  }\n}\n',
        ),
        (
            '{\n  "permissions": {}\n}\n',
            ONLY_DENY + "\n",
        ),
        (
            "{}",
            '{\n  "permissions": {\n    "deny": [\n      "Bash(git push --force:*)"\n    ]\n  }\n}',
        ),
        (
            '{\n  "permissions": {\n    "deny": []\n  }\n}\n',
            ONLY_DENY + "\n",
        ),
    ],
)
def test_the_deny_list_is_added_where_it_is_missing(
    project: Layout, before: str, after: str
) -> None:
    path = settings_path(project)
    path.parent.mkdir()
    path.write_text(before)
    assert run("export", "--format", "claude-permissions").exit_code == 0
    assert path.read_text() == after


def test_settings_that_do_not_parse_are_left_alone(project: Layout) -> None:
    path = settings_path(project)
    path.parent.mkdir()
    for text in ('{"permissions": {"deny": [}', '["a"]', '{"permissions": {"deny": "x"}}'):
        path.write_text(text)
        result = run("export", "--format", "claude-permissions")
        assert result.exit_code == 1
        assert str(path) in result.stderr
        assert "fix it" in result.stderr
        assert path.read_text() == text


def test_a_settings_path_that_leaves_the_repo_is_refused(project: Layout, tmp_path: Path) -> None:
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    result = run("export", "--format", "claude-permissions", "--output", str(outside / "s.json"))
    assert result.exit_code == 1
    assert "outside the repo" in result.stderr
    (project.root / ".claude").symlink_to(outside)
    result = run("export", "--format", "claude-permissions")
    assert result.exit_code == 1
    assert ".claude is a symbolic link to" in result.stderr
    assert os.listdir(outside) == []
