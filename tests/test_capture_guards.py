"""Every capture guard refuses with the problem and the fix, and changes nothing."""

from __future__ import annotations

import json

import pytest

from lessons_core.store.layout import Layout
from tests.conftest import lesson_count, run

GOOD_RULE = "Never split('/') a filesystem path; use os.path.basename()."


def refused(*args: str) -> str:
    """Run ``lessons add`` expecting a refusal; return stderr."""
    result = run("add", *args)
    assert result.exit_code == 1, result.output
    assert result.stdout == ""
    assert "fix:" in result.stderr
    return result.stderr


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        (["", "--trigger-file", "src/app.py"], "rule is empty"),
        (["x" * 301, "--trigger-file", "src/app.py"], "the limit is 300"),
        (["Line one.\nLine two.", "--trigger-file", "src/app.py"], "several lines"),
        ([GOOD_RULE], "no trigger"),
        ([GOOD_RULE, "--trigger-file", "../etc/passwd"], "outside the repo"),
        ([GOOD_RULE, "--trigger-file", "."], "repo root"),
        ([GOOD_RULE, "--trigger-file", "/"], "repo root"),
        ([GOOD_RULE, "--trigger-file", "src"], "use 'src/**'"),
        ([GOOD_RULE, "--trigger-file", "src/"], "use 'src/**'"),
        ([GOOD_RULE, "--trigger-file", "**"], "matches every file"),
        ([GOOD_RULE, "--trigger-file", "**/*"], "matches every file"),
        ([GOOD_RULE, "--trigger-file", "!src/app.py"], "negations"),
        ([GOOD_RULE, "--trigger-file", "src/[z-a].py"], "bad character range z-a"),
        ([GOOD_RULE, "--trigger-file", "src/" + "a" * 1000 + ".py"], "more than 255"),
        ([GOOD_RULE, "--trigger-file", "a/" * 2100 + "x"], "a trigger is at most 4,096"),
        ([GOOD_RULE, "--trigger-file", "/etc/passwd"], "outside the repo"),
        ([GOOD_RULE, "--trigger-file", "src/\udcff.py"], "not valid UTF-8"),
        ([GOOD_RULE, "--trigger-file", "src/a\tb.py"], "control character"),
        ([GOOD_RULE, "--trigger-cmd", "git " + "x" * 5000], "at most 4,096"),
        ([GOOD_RULE, "--trigger-cmd", "git\x00push"], "NUL"),
        ([GOOD_RULE, "--trigger-keyword", "--"], "no letters or digits"),
        ([GOOD_RULE, "--trigger-keyword", "boto\x1b3"], "control character"),
        (["Never split \udcff paths.", "--trigger-keyword", "boto3"], "not valid UTF-8"),
        ([GOOD_RULE, "--trigger-cmd", ".*"], "empty string"),
        ([GOOD_RULE, "--trigger-cmd", "x*"], "empty string"),
        ([GOOD_RULE, "--trigger-cmd", "(a)\\1"], "linear-time"),
        ([GOOD_RULE, "--trigger-cmd", "(?=git)"], "linear-time"),
        ([GOOD_RULE, "--trigger-cmd", "[a-z]"], "ordinary commands"),
        ([GOOD_RULE, "--trigger-keyword", "the file"], "common words"),
        ([GOOD_RULE, "--trigger-keyword", "fix"], "common words"),
        (
            ["Use key AKIAIOSFODNN7EXAMPLE for uploads.", "--trigger-keyword", "boto3"],
            "AWS Access Key",
        ),
        (
            [
                GOOD_RULE,
                "--trigger-keyword",
                "boto3",
                "--rationale",
                "connect with postgres://admin:hunter2secret@db.internal/prod",
            ],
            "rationale",
        ),
        (
            [
                GOOD_RULE,
                "--trigger-keyword",
                "boto3",
                "--evidence",
                "ghp_abcdefghijklmnopqrstuvwxyz0123456789",
            ],
            "evidence #1",
        ),
        (
            [
                GOOD_RULE,
                "--trigger-keyword",
                "boto3",
                "--rationale",
                "-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA\n-----END RSA PRIVATE KEY-----",
            ],
            "Private Key",
        ),
    ],
)
def test_guard_refuses_and_leaves_graph_unchanged(
    repo: Layout, args: list[str], expected: str
) -> None:
    """Each bad capture exits 1, says what is wrong and how to fix it, writes nothing."""
    stderr = refused(*args, "--topic", "paths")
    assert expected in stderr
    assert lesson_count(repo) == 0


def test_glob_matching_nearly_every_tracked_file_is_refused(repo: Layout) -> None:
    """A glob over almost the whole repo would fire on every edit."""
    for n in range(60):
        (repo.root / f"m{n}.py").write_text("x\n")
    stderr = refused(GOOD_RULE, "--topic", "paths", "--trigger-file", "*.py")
    assert "matches 60 of 66 files" in stderr


def test_glob_matching_no_file_yet_is_saved_with_a_warning(repo: Layout) -> None:
    """A file that is about to be created may be named before it exists."""
    result = run("add", GOOD_RULE, "--topic", "paths", "--trigger-file", "src/new_module.py")
    assert result.exit_code == 0
    assert "matches no file yet" in result.stderr
    assert lesson_count(repo) == 1


@pytest.mark.parametrize("given", ["{root}/src/app.py", "./src/app.py", "/src/app.py"])
def test_a_path_into_the_repo_is_stored_from_its_root(repo: Layout, given: str) -> None:
    """An absolute path inside the repo, './x' and a root-anchored '/x' are all stored as
    the repo-relative path, the form recall matches."""
    glob = given.format(root=repo.root)
    result = run("add", GOOD_RULE, "--topic", "paths", "--trigger-file", glob, "--json")
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["lesson"]["triggers"]["files"] == ["src/app.py"]


def test_an_absolute_path_outside_the_repo_says_where_the_repo_is(repo: Layout) -> None:
    """Refused naming the repo root, so the fix is obvious."""
    stderr = refused(GOOD_RULE, "--topic", "paths", "--trigger-file", "/opt/other/src/app.py")
    assert f"'/opt/other/src/app.py' is a path outside the repo ({repo.root})" in stderr


def test_one_bad_trigger_refuses_the_whole_lesson(repo: Layout) -> None:
    """A good trigger does not carry a bad one through."""
    refused(GOOD_RULE, "--topic", "paths", "--trigger-file", "src/app.py", "--trigger-cmd", ".*")
    assert lesson_count(repo) == 0


def test_near_duplicate_names_its_twin_and_force_saves(repo: Layout) -> None:
    """A rule too like an active one is refused naming it; --force saves it anyway."""
    first = run("add", GOOD_RULE, "--topic", "paths", "--trigger-file", "src/util/**")
    twin_id = first.stdout.strip()
    stderr = refused(
        "Never split a filesystem path on '/'; use os.path.basename() instead.",
        "--topic",
        "paths",
        "--trigger-file",
        "src/app.py",
    )
    assert twin_id in stderr
    forced = run(
        "add",
        "Never split a filesystem path on '/'; use os.path.basename() instead.",
        "--topic",
        "paths",
        "--trigger-file",
        "src/app.py",
        "--force",
    )
    assert forced.exit_code == 0
    assert lesson_count(repo) == 2


def test_readding_the_same_rule_merges_triggers_and_evidence(repo: Layout) -> None:
    """The same rule again updates the lesson instead of duplicating it."""
    first = run(
        "add",
        GOOD_RULE,
        "--topic",
        "paths",
        "--trigger-file",
        "src/util/**",
        "--evidence",
        "commit:aaa",
    )
    second = run(
        "add",
        GOOD_RULE.upper(),
        "--topic",
        "paths",
        "--trigger-cmd",
        "git mv",
        "--evidence",
        "commit:bbb",
        "--json",
    )
    assert second.exit_code == 0
    assert lesson_count(repo) == 1
    shown = run("show", first.stdout.strip(), "--json").stdout
    assert "src/util/**" in shown
    assert "git mv" in shown
    assert "commit:aaa" in shown
    assert "commit:bbb" in shown


def test_a_deprecated_rule_does_not_block_its_replacement(repo: Layout) -> None:
    """Near-duplicate checks only look at active lessons."""
    first = run("add", GOOD_RULE, "--topic", "paths", "--trigger-file", "src/util/**")
    run("deprecate", first.stdout.strip())
    again = run(
        "add",
        "Never split a filesystem path on '/'; use os.path.basename() instead.",
        "--topic",
        "paths",
        "--trigger-file",
        "src/util/**",
    )
    assert again.exit_code == 0


def test_ordinary_rule_passes_secret_detection(repo: Layout) -> None:
    """Hashes in evidence and code words in rules are not taken for secrets."""
    result = run(
        "add",
        "Set PASSWORD_MIN_LENGTH in settings.py, not in the form class.",
        "--topic",
        "auth",
        "--trigger-file",
        "src/app.py",
        "--evidence",
        "commit:3f2a1bc9d8e7f6a5b4c3d2e1f0a9b8c7d6e5f4a3",
    )
    assert result.exit_code == 0, result.stderr


@pytest.mark.parametrize(
    ("pattern", "program"),
    [
        ("git", "git"),
        ("^git\\b", "git"),
        ("npm", "npm"),
        ("cargo", "cargo"),
        ("docker", "docker"),
        ("make", "make"),
        ("uv", "uv"),
        ("gh", "gh"),
    ],
)
def test_a_bare_program_with_everyday_sub_commands_is_refused(
    repo: Layout, pattern: str, program: str
) -> None:
    """`git` fires on `git status`, `git diff`, `git log`...: far under half of all the
    probes, but every everyday use of the program, so capture refuses it as broad."""
    stderr = refused(GOOD_RULE, "--topic", "paths", "--trigger-cmd", pattern)
    assert f"everyday '{program}' commands" in stderr
    assert f"e.g. '{program} " in stderr
    assert lesson_count(repo) == 0


@pytest.mark.parametrize(
    "pattern",
    ["git push", "git (push|pull)", "pytest", "uv run pytest tests/db", "make deploy", "npm ci"],
)
def test_a_program_with_its_sub_command_is_kept(repo: Layout, pattern: str) -> None:
    """A pattern about one command (or a tool with no everyday sub-commands) is precise."""
    result = run("add", GOOD_RULE, "--topic", "paths", "--trigger-cmd", pattern)
    assert result.exit_code == 0, result.output
    assert lesson_count(repo) == 1


def test_add_says_when_recall_will_hold_a_trigger_back_as_broad(repo: Layout) -> None:
    """`pytest` fires on `pytest -q`, `python -m pytest`, ...: saved, with a notice naming
    the trigger and why; a precise trigger or a gated rule gets none."""
    broad = run("add", "Run the tests with uv run pytest -q.", "--topic", "testing",
                "--trigger-cmd", "pytest")  # fmt: skip
    assert broad.exit_code == 0, broad.output
    assert "notice: command trigger 'pytest' is broad (it fires on 5 of the ordinary" in (
        broad.stderr
    )
    precise = run("add", GOOD_RULE, "--topic", "paths", "--trigger-file", "src/storage/**")
    assert precise.exit_code == 0
    assert "notice:" not in precise.stderr
    gated = run("add", "Keep every module small.", "--topic", "code", "--trigger-file",
                "src/**", "--gate", "--json")  # fmt: skip
    assert gated.exit_code == 0
    assert json.loads(gated.stdout)["notices"] == []
