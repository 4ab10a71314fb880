"""init, list, show, topics, deprecate, supersede, rm and the global options."""

from __future__ import annotations

import io
import json
import subprocess
import sys
from pathlib import Path

import orjson
import pytest
from click.testing import CliRunner

from lessons_cli.app import cli
from lessons_cli.hook_runner import run_hook
from lessons_core import __version__
from lessons_core.recall.render import CLOSE, HEADER, NOTE, OPEN
from lessons_core.session import state as sessions
from lessons_core.store.ids import base_id
from lessons_core.store.layout import Layout
from lessons_core.store.model import Status
from tests.conftest import lesson_count, make_repo, run, save_lesson

RULE_A = "Run the migration linter before editing models; it catches unsafe column drops."
RULE_B = "Use the retry helper for HTTP calls to the billing service."


def add(rule: str, *args: str) -> str:
    result = run("add", rule, *args)
    assert result.exit_code == 0, result.stderr
    return result.stdout.strip()


def test_version_is_printed() -> None:
    """--version prints the package version."""
    assert __version__ in run("--version").stdout


def all_commands() -> list[list[str]]:
    names: list[list[str]] = [[]]
    for name, command in cli.commands.items():
        names.append([name])
        sub = getattr(command, "commands", {})
        names.extend([name, child] for child in sub)
    return names


@pytest.mark.parametrize("path", all_commands(), ids=lambda p: " ".join(p) or "lessons")
def test_every_command_has_help_with_an_example(path: list[str]) -> None:
    """--help works on every command and shows an example."""
    result = run(*path, "--help")
    assert result.exit_code == 0
    assert "Example" in result.stdout


def test_init_is_idempotent_and_keeps_lessons(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A second init creates nothing and leaves lessons and config alone."""
    root = make_repo(tmp_path / "r", {"a.py": "x\n"})
    monkeypatch.chdir(root)
    first = run("init")
    assert "created .lessons/config.json" in first.stdout
    add(RULE_A, "--topic", "db", "--trigger-file", "a.py")
    config = (root / ".lessons" / "config.json").read_bytes()
    second = run("init")
    assert second.exit_code == 0
    assert "already set up" in second.stdout
    assert (root / ".lessons" / "config.json").read_bytes() == config
    assert len(list((root / ".lessons" / "lessons").iterdir())) == 1
    assert "local/" in (root / ".lessons" / ".gitignore").read_text().splitlines()


def test_init_from_a_subdirectory_uses_the_git_root(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """init inside a repo creates .lessons/ at its top level."""
    root = make_repo(tmp_path / "r", {"pkg/a.py": "x\n"})
    monkeypatch.chdir(root / "pkg")
    run("init")
    assert (root / ".lessons" / "lessons").is_dir()


def test_commands_outside_a_project_explain_how_to_start(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Without .lessons/ the error says to run lessons init."""
    monkeypatch.chdir(tmp_path)
    result = run("list")
    assert result.exit_code == 1
    assert "lessons init" in result.stderr


def test_add_prints_a_readable_id(repo: Layout) -> None:
    """The id is the topic plus the rule's first meaningful words."""
    assert add(RULE_A, "--topic", "DB", "--trigger-file", "src/db/**") == (
        "db-migration-linter-editing-models"
    )


@pytest.mark.parametrize(
    ("topic", "rule", "expected"),
    [
        ("testing", "Run uv run pytest -q via uv, never uv tox or pytest alone.",
         "testing-uv-pytest-tox-alone"),
        ("handlers", "Keep handlers small and pure.", "handlers-small-pure"),
        ("infrastructure", "Terraform workspaces require explicit backend settings.",
         "infrastructure-terraform-workspaces"),
        ("db", "Name every constraint: alembic autogenerate emits unnamed constraints for "
         "postgresql materialized views otherwise.", "db-constraint-alembic-autogenerate-emits"),
    ],
)  # fmt: skip
def test_generated_ids_are_short_and_say_each_word_once(
    repo: Layout, topic: str, rule: str, expected: str
) -> None:
    """No word twice (the topic's included), at most four words after the topic and 40
    characters (never cut inside a word), the same id for the same topic and rule."""
    lesson_id = add(rule, "--topic", topic, "--trigger-keyword", "alembic")
    assert lesson_id == expected
    assert len(lesson_id) <= 40
    assert base_id(topic, rule) == expected


def test_ids_stay_unique_for_rules_that_start_alike(repo: Layout) -> None:
    """Two rules with the same first words get distinct ids."""
    first = add(
        "Use the retry helper for HTTP calls to billing, always.",
        "--topic",
        "http",
        "--trigger-keyword",
        "billing",
    )
    second = add(
        "Use the retry helper for HTTP calls to billing in tests.",
        "--topic",
        "http",
        "--trigger-keyword",
        "search index",
        "--force",
    )
    assert first != second
    assert second == first + "-2"


def test_list_filters_and_json_shape(repo: Layout) -> None:
    """list filters by topic and status; --json gives {"lessons": [...]}."""
    a = add(RULE_A, "--topic", "db", "--trigger-file", "src/db/**")
    b = add(RULE_B, "--topic", "http", "--trigger-keyword", "billing")
    run("deprecate", b)
    listed = [f"{a}: {RULE_A}", f"{b} [deprecated]: {RULE_B}"]
    assert run("list").stdout.splitlines() == [OPEN, HEADER, *listed, CLOSE]
    assert run("list", "--status", "active").stdout.splitlines()[2:-1] == [f"{a}: {RULE_A}"]
    assert run("list", "--topic", "nope").stdout == ""
    data = orjson.loads(run("list", "--topic", "http", "--json").stdout)
    assert [item["id"] for item in data["lessons"]] == [b]
    assert data["lessons"][0]["rule"] == RULE_B


def test_show_prints_everything_and_json(repo: Layout) -> None:
    """show gives rule, rationale, triggers and evidence."""
    lesson_id = add(
        RULE_A,
        "--topic",
        "db",
        "--trigger-file",
        "src/db/**",
        "--rationale",
        "A dropped column lost data in March.",
        "--evidence",
        "pr:42",
    )
    text = run("show", lesson_id).stdout
    for part in (RULE_A, "dropped column", "src/db/**", "pr:42", "active"):
        assert part in text
    assert orjson.loads(run("show", lesson_id, "--json").stdout)["evidence"] == ["pr:42"]


def test_show_and_list_write_control_characters_as_escapes(repo: Layout) -> None:
    """A lesson file is data from a commit: an escape sequence in a trigger or the rule is
    shown as ``\\x1b`` text, never sent raw to the terminal."""
    lesson_id = add(RULE_A, "--topic", "db", "--trigger-file", "src/db/**")
    path = repo.root / ".lessons" / "lessons" / f"{lesson_id}.json"
    data = orjson.loads(path.read_bytes())
    data["rule"] += "\x1b]0;owned\x07"
    data["triggers"]["keywords"] = ["\x1b[2Jmigration"]
    path.write_bytes(orjson.dumps(data))
    shown = run("show", lesson_id).stdout + run("list").stdout
    assert "\x1b" not in shown
    assert "\x07" not in shown
    assert "\\x1b[2Jmigration" in shown
    assert "\\x1b]0;owned\\x07" in shown


def test_add_always_needs_no_trigger_and_show_says_so(repo: Layout) -> None:
    """``add --always`` saves a rule without triggers, marked always-on in its file and in
    ``show``; without ``--always`` the same rule is refused for having no trigger."""
    rule = "Write every commit message in German."
    refused = run("add", rule, "--topic", "git")
    assert refused.exit_code == 1
    assert "--always" in refused.stderr
    lesson_id = add(rule, "--topic", "git", "--always")
    assert "status:    active (always on)" in run("show", lesson_id).stdout
    data = orjson.loads(run("show", lesson_id, "--json").stdout)
    assert data["always"] is True
    assert data["triggers"] == {"files": [], "commands": [], "keywords": []}


def test_show_takes_the_start_of_an_id_as_a_block_names_a_cut_rule(repo: Layout) -> None:
    """A start of an id that one lesson's id has finds it; of several, the one active
    lesson; several active ones are an unknown id."""
    for lesson_id, status in (
        ("db-migrations-never-drop", Status.ACTIVE),
        ("db-migrations-never-rename", Status.DEPRECATED),
        ("db-pool-size", Status.ACTIVE),
    ):
        save_lesson(repo, lesson_id, f"Rule of {lesson_id}.", files=("src/db/**",), status=status)
    assert "Rule of db-pool-size." in run("show", "db-pool").stdout
    assert "Rule of db-migrations-never-drop." in run("show", "db-migrations-never").stdout
    assert "Rule of db-migrations-never-rename." in run("show", "db-migrations-never-r").stdout
    ambiguous = run("show", "db")
    assert ambiguous.exit_code == 1
    assert "no lesson with id 'db'" in ambiguous.stderr


def test_show_unknown_id_is_a_user_error(repo: Layout) -> None:
    """An unknown id exits 1 and points at lessons list."""
    result = run("show", "nope")
    assert result.exit_code == 1
    assert "lessons list" in result.stderr


def test_topics_counts_active_lessons(repo: Layout) -> None:
    """topics lists each topic with its number of active lessons."""
    add(RULE_A, "--topic", "db", "--trigger-file", "src/db/**")
    add(RULE_B, "--topic", "http", "--topic", "db", "--trigger-keyword", "billing")
    assert run("topics").stdout.splitlines() == [OPEN, NOTE, "db\t2", "http\t1", CLOSE]
    assert orjson.loads(run("topics", "--json").stdout) == {"topics": {"db": 2, "http": 1}}


def test_supersede_links_to_an_active_successor(repo: Layout) -> None:
    """supersede records the successor; a missing or inactive successor is refused."""
    old = add(RULE_A, "--topic", "db", "--trigger-file", "src/db/**")
    new = add(RULE_B, "--topic", "http", "--trigger-keyword", "billing")
    assert run("supersede", old, "--by", "nope").exit_code == 1
    assert run("supersede", old, "--by", old).exit_code == 1
    assert run("supersede", old, "--by", new).exit_code == 0
    data = orjson.loads(run("show", old, "--json").stdout)
    assert (data["status"], data["superseded_by"]) == ("superseded", new)
    run("deprecate", new)
    third = add(
        "Prefer the bulk loader for fixture files over one insert per row.",
        "--topic",
        "db",
        "--trigger-file",
        "src/db/**",
    )
    result = run("supersede", third, "--by", new)
    assert result.exit_code == 1
    assert "deprecated" in result.stderr


def test_rm_deletes_the_file_and_session_traces(repo: Layout) -> None:
    """rm removes the lesson file and forgets it in every session's seen-set."""
    lesson_id = add(RULE_A, "--topic", "db", "--trigger-file", "src/db/**")
    sessions.claim(repo, "s1", [lesson_id, "other"])
    assert run("rm", lesson_id).exit_code == 0
    assert lesson_count(repo) == 0
    assert sessions.load(repo, "s1").shown == frozenset({"other"})
    assert run("rm", lesson_id).exit_code == 1


def test_rm_works_on_a_corrupt_file(repo: Layout) -> None:
    """A file that does not parse can still be removed."""
    repo.lesson_path("db-broken").write_text("{")
    assert run("rm", "db-broken").exit_code == 0


def test_usage_errors_exit_2() -> None:
    """A missing argument is click's usage error, exit code 2."""
    result = CliRunner().invoke(cli, ["add"])
    assert result.exit_code == 2


def test_native_windows_is_refused_with_the_way_that_works(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """On Windows every command says which systems are supported and to use WSL."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(sys, "platform", "win32")
    result = run("init", "--here")
    assert result.exit_code == 1
    assert "Linux and macOS" in result.stderr
    assert "WSL" in result.stderr
    assert not (tmp_path / ".lessons").exists()


def test_a_hook_on_windows_stays_out_of_the_way(monkeypatch: pytest.MonkeyPatch) -> None:
    """The hook answers nothing and exits 0 there: never a broken tool call."""
    monkeypatch.setattr(sys, "platform", "win32")
    out = io.BytesIO()
    assert run_hook("claude-code", io.BytesIO(b'{"hook_event_name": "SessionStart"}'), out) == 0
    assert out.getvalue() == b""


@pytest.mark.parametrize("explain", [["--explain"], []], ids=["explain", "plain"])
def test_json_output_takes_arguments_that_are_not_utf8(repo: Layout, explain: list[str]) -> None:
    """A file name that is not UTF-8 (its bytes arrive as surrogates) is answered with
    JSON a reader parses, the bytes written as \\udcXX escapes, instead of a traceback."""
    ran = subprocess.run(
        [
            sys.executable,
            "-m",
            "lessons_cli",
            "query",
            *explain,
            "--json",
            "--file",
            b"src/\xff.py",
        ],
        cwd=repo.root,
        capture_output=True,
        check=False,
    )
    assert (ran.returncode, ran.stderr) == (0, b"")
    answer = json.loads(ran.stdout)
    if explain:
        assert answer["request"]["files"] == ["src/\udcff.py"]


def test_add_takes_the_id_given(repo: Layout) -> None:
    """`--id` names the lesson; a taken id is refused naming its holder and a free one,
    a malformed one with the id it would be; nothing is written either time."""
    assert add(RULE_A, "--topic", "db", "--trigger-file", "src/db/**", "--id", "db-lint") == (
        "db-lint"
    )
    assert (repo.lessons_dir / "db-lint.json").is_file()
    taken = run("add", RULE_B, "--topic", "http", "--trigger-keyword", "billing", "--id", "db-lint")
    assert taken.exit_code == 1
    assert "id 'db-lint' is taken by lesson 'db-lint' (active): Run the migration" in taken.stderr
    assert "fix: choose another id (e.g. --id db-lint-2)" in taken.stderr
    bad = run(
        "add", RULE_B, "--topic", "http", "--trigger-keyword", "billing", "--id", "Billing Retry"
    )
    assert bad.exit_code == 1
    assert "e.g. --id billing-retry" in bad.stderr
    assert lesson_count(repo) == 1


@pytest.mark.parametrize("command", [["show"], ["rm"], ["deprecate"], ["supersede", "--by", "x"]])
def test_a_near_miss_id_gets_a_suggestion(repo: Layout, command: list[str]) -> None:
    """A typo in an id is answered with the closest id the store has."""
    lesson_id = add(RULE_A, "--topic", "db", "--trigger-file", "src/db/**")
    typo = lesson_id[:-1] + "z"
    result = run(command[0], typo, *command[1:])
    assert result.exit_code == 1
    assert f"no lesson with id '{typo}'; did you mean '{lesson_id}'?" in result.stderr
    far = run(command[0], "zzzz-qqqq", *command[1:])
    assert "'lessons list' shows the ids" in far.stderr


def test_deprecate_keeps_the_reason_in_the_file_and_show_prints_it(repo: Layout) -> None:
    """`--reason` is stored as "reason" in the lesson file and shown; one line only."""
    lesson_id = add(RULE_A, "--topic", "db", "--trigger-file", "src/db/**")
    bad = run("deprecate", lesson_id, "--reason", "two\nlines")
    assert bad.exit_code == 1
    assert "fix: say in one line why the rule no longer applies" in bad.stderr
    assert run("deprecate", lesson_id, "--reason", " the linter runs in CI now ").exit_code == 0
    data = json.loads((repo.lessons_dir / f"{lesson_id}.json").read_text())
    assert (data["status"], data["reason"]) == ("deprecated", "the linter runs in CI now")
    assert "  reason:    the linter runs in CI now\n" in run("show", lesson_id).stdout
