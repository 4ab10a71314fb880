"""Breadth judged from the project itself: its everyday commands, runners and wrappers.

`lessons add`, `lessons validate` and an import judge a command trigger by one
judgement: a runner prefix alone, a bare multi-purpose program, a runner with only the
test runner behind it, or a pattern firing on more than a third of what the project's CI,
task files, package scripts, pre-commit hooks and docs run is refused, and the refusal
names the commands it would fire on.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from lessons_core.project_commands import everyday_commands
from lessons_core.store.config import Config
from lessons_core.store.layout import Layout
from lessons_core.store.project import init_project
from lessons_core.telemetry.log import ABOUT_COMMAND, record_recall
from lessons_core.validate import validate
from tests.conftest import lesson_count, make_repo, run, save_lesson

RULE = "Check the lockfile before running this tool in this repository."

CI = """name: ci
on: [push]
jobs:
  test:
    runs-on: ubuntu-latest
    steps:
      - uses: actions/checkout@v4
      - run: uv sync --frozen --all-extras
      - run: uv run --frozen pytest tests -n 2
      - run: uv run --frozen ruff check .
      - run: uv run --frozen ruff format --check
      - run: uv run --frozen mypy pydantic_demo
      - run: gh release view
"""
MAKEFILE = """.PHONY: test lint
test:  ## run the tests
\tuv run --frozen pytest tests

lint:
\tuv run --frozen ruff check .

typecheck:
\tuv run --frozen pyright
"""
PRE_COMMIT = """repos:
  - repo: local
    hooks:
      - id: format
        name: format
        entry: uv run --frozen ruff format
        language: system
"""
README = """# demo

```bash
uv run --frozen pytest tests/test_models.py
make docs
```
"""
UV_PROJECT = {
    ".github/workflows/ci.yml": CI,
    "Makefile": MAKEFILE,
    ".pre-commit-config.yaml": PRE_COMMIT,
    "README.md": README,
    "package.json": json.dumps({"scripts": {"docs:build": "vitepress build docs"}}, indent=2),
    "pnpm-lock.yaml": "lockfileVersion: '9.0'\n",
    "justfile": "release version:\n    uv run --frozen scripts/release.py {{version}}\n",
    "src/demo/models.py": "x = 1\n",
}


def _project(root: Path, files: dict[str, str], monkeypatch: pytest.MonkeyPatch) -> Layout:
    """A git repo of ``files`` with .lessons/, as the working directory."""
    layout, _ = init_project(make_repo(root, files))
    monkeypatch.chdir(layout.root)
    return layout


@pytest.fixture
def uv_project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Layout:
    """A uv project whose CI, Makefile, pre-commit, justfile and README run its commands."""
    return _project(tmp_path / "repo", UV_PROJECT, monkeypatch)


def test_everyday_commands_come_from_ci_task_files_package_scripts_hooks_and_docs(
    uv_project: Layout,
) -> None:
    """Each kind of file gives its commands, and the targets a person types."""
    commands = everyday_commands(uv_project.root)
    for expected in (
        "uv run --frozen pytest tests -n 2",  # CI
        "gh release view",
        "uv run --frozen pyright",  # a Makefile recipe
        "make test",  # a Makefile target as typed
        "make typecheck",
        "uv run --frozen ruff format",  # a pre-commit entry
        "uv run --frozen pytest tests/test_models.py",  # a README code block
        "vitepress build docs",  # a package script's body
        "pnpm docs:build",  # ... and as typed, with the project's package manager
        "just release",  # a justfile recipe
    ):
        assert expected in commands, expected
    assert ".PHONY" not in " ".join(commands)


def test_commands_the_hooks_saw_count_where_telemetry_is_on(uv_project: Layout) -> None:
    """With telemetry on, the shell commands logged by the hooks are everyday too."""
    seen = "uv run --frozen alembic upgrade head"
    assert seen not in everyday_commands(uv_project.root)
    record_recall(
        uv_project, Config(telemetry=True), event="PreToolUse", key=seen, candidates=[],
        delivered=[], tokens=0, about=ABOUT_COMMAND,
    )  # fmt: skip
    assert seen not in everyday_commands(uv_project.root)  # telemetry is off in config.json
    uv_project.config_path.write_text('{"telemetry": true}\n')
    assert seen in everyday_commands(uv_project.root)


@pytest.mark.parametrize(
    ("pattern", "why"),
    [
        ("uv", "everyday 'uv' commands"),
        ("uv run", "only a runner prefix ('uv run')"),
        ("gh", "everyday 'gh' commands"),
        ("just", "everyday 'just' commands"),
        ("npx", "everyday 'npx' commands"),
        ("pnpm run", "only a runner prefix ('pnpm run')"),
        ("poetry run", "only a runner prefix ('poetry run')"),
        ("^uv run pytest", "a runner and the test runner ('uv run pytest')"),
        ("^uv\\s+run\\b", "only a runner prefix ('uv run')"),
        ("python -m pytest", "a runner and the test runner"),
        ("docker compose", "everyday 'docker' commands"),
        ("^pnpm exec", "only a runner prefix ('pnpm exec')"),
    ],
)
def test_runners_wrappers_and_bare_programs_are_refused(
    repo: Layout, pattern: str, why: str
) -> None:
    """A runner prefix, a multi-purpose program or a runner with the test runner alone is
    refused in any project, with the reason and a fix, and nothing is written."""
    result = run("add", RULE, "--topic", "tooling", "--trigger-cmd", pattern)
    assert result.exit_code == 1, result.output
    assert why in result.stderr
    assert "fix: " in result.stderr
    assert lesson_count(repo) == 0


def test_a_refused_runner_names_the_project_commands_it_would_fire_on(
    uv_project: Layout,
) -> None:
    """In a uv project, `uv run` is refused with the project's own commands named."""
    result = run("add", RULE, "--topic", "tooling", "--trigger-cmd", "uv run")
    assert result.exit_code == 1
    assert "of the project's" in result.stderr
    assert "'uv run --frozen pytest tests -n 2'" in result.stderr


def test_a_pattern_firing_on_a_third_of_the_project_commands_is_refused(
    uv_project: Layout,
) -> None:
    """`uv run --frozen` names no runner of the generic list alone, but it fires on most of
    what this project runs: refused, naming those commands; a precise one is kept."""
    result = run("add", RULE, "--topic", "tooling", "--trigger-cmd", "uv run --frozen")
    assert result.exit_code == 1, result.output
    assert "of the project's" in result.stderr
    assert "everyday commands: 'uv run --frozen pytest tests -n 2'" in result.stderr
    assert lesson_count(uv_project) == 0
    kept = run("add", RULE, "--topic", "tooling", "--trigger-cmd", "^uv run --frozen pyright")
    assert kept.exit_code == 0, kept.output
    assert lesson_count(uv_project) == 1


def test_validate_judges_as_add_does(uv_project: Layout) -> None:
    """A lesson file written by hand with the triggers add refuses is L104 at validate,
    naming the project's commands; the precise one is not."""
    save_lesson(uv_project, "tooling-frozen", RULE, commands=("uv run --frozen",))
    save_lesson(uv_project, "tooling-runner", RULE + " Twice.", commands=("^uv run pytest",))
    save_lesson(
        uv_project,
        "tooling-pyright",
        "Pin pyright in the lockfile.",
        commands=("uv run --frozen pyright",),
    )
    found = {(f.lesson_id, f.code): f.message for f in validate(uv_project).findings}
    assert "of the project's" in found["tooling-frozen", "L104"]
    assert "a runner and the test runner" in found["tooling-runner", "L104"]
    assert ("tooling-pyright", "L104") not in found


CASSETTES = {f"tests/models/cassettes/test_{n}.yaml": "interactions: []\n" for n in range(14)}
CASSETTE_RULE = "Re-record cassettes with --record-mode=rewrite; never edit them by hand."
CASSETTE_GLOB = "tests/**/cassettes/**"


@pytest.fixture
def cassette_project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Layout:
    """A repo where recorded cassettes are most of the files."""
    files = {**CASSETTES, "src/app.py": "x = 1\n", "tests/test_app.py": "def test(): ...\n"}
    return _project(tmp_path / "repo", files, monkeypatch)


def test_a_folder_named_below_the_globstar_is_not_broad_by_file_type(
    cassette_project: Layout,
) -> None:
    """`tests/**/cassettes/**` names a folder: add gives no "by file type" notice."""
    result = run("add", CASSETTE_RULE, "--topic", "testing", "--trigger-file", CASSETTE_GLOB)
    assert result.exit_code == 0, result.output
    assert "by file type" not in result.stderr


def test_a_deliberately_broad_file_trigger_is_accepted_with_a_recorded_reason(
    cassette_project: Layout,
) -> None:
    """Over half the repo: validate --strict fails (L103) with a fix that can be followed;
    re-adding the rule with --broad-reason records why, and neither add nor validate
    says anything of its breadth after."""
    run("add", CASSETTE_RULE, "--topic", "testing", "--trigger-file", CASSETTE_GLOB)
    strict = run("validate", "--strict")
    assert strict.exit_code == 1
    assert "L103" in strict.stdout
    assert "--broad-reason" in strict.stdout
    reason = "Every cassette in every test folder is recorded the same way."
    again = run("add", CASSETTE_RULE, "--topic", "testing", "--trigger-file", CASSETTE_GLOB,
                "--broad-reason", reason)  # fmt: skip
    assert again.exit_code == 0, again.output
    assert "notice:" not in again.stderr
    assert "warning:" not in again.stderr
    (saved,) = cassette_project.lessons_dir.glob("*.json")
    assert json.loads(saved.read_text())["broad_reason"] == reason
    after = run("validate", "--strict")
    assert after.exit_code == 0, after.stdout
    assert "L103" not in after.stdout
    assert "L108" not in after.stdout


def test_a_broad_reason_needs_a_file_trigger(repo: Layout) -> None:
    """--broad-reason accepts the breadth of file triggers: without one it is refused."""
    result = run("add", RULE, "--topic", "tooling", "--trigger-keyword", "lockfile",
                 "--broad-reason", "it is meant to be broad")  # fmt: skip
    assert result.exit_code == 1
    assert "--trigger-file" in result.stderr
    assert lesson_count(repo) == 0
