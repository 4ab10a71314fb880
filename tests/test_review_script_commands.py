"""The commands ``lessons review`` reads from each kind of script and CI file, by line."""

from __future__ import annotations

import pytest

from lessons_core.review.script_commands import added, commands_of

WORKFLOW = """\
name: ci
on: [push]
jobs:
  test:
    steps:
      - uses: actions/checkout@v4
      - run: npm ci
      - name: build
        run: |
          pip install -e . \\
            --quiet
          cat > notes.txt <<EOF
          rm -rf / is only text here
          EOF
          pytest -q
      - run: >
          echo folded
          into one
      - name: quoted
        run: "git push --force"
"""


def _commands(path: str, text: str) -> list[tuple[int, int, str]]:
    return [(c.line, c.last, c.command) for c in commands_of(path, text)]


def test_github_workflow_run_steps_inline_block_and_folded() -> None:
    """Each shell line of a `run: |` block is a command (continuations joined, a
    here-document's body kept with the command that reads it); `>` folds into one."""
    assert _commands(".github/workflows/ci.yml", WORKFLOW) == [
        (7, 7, "npm ci"),
        (10, 11, "pip install -e . --quiet"),
        (12, 14, "cat > notes.txt <<EOF\nrm -rf / is only text here\nEOF"),
        (15, 15, "pytest -q"),
        (17, 18, "echo folded into one"),
        (20, 20, "git push --force"),
    ]


def test_a_key_of_the_same_name_elsewhere_is_not_a_command() -> None:
    """`run:` is read in workflows, not in an arbitrary YAML file."""
    assert _commands("config/app.yml", "run: rm -rf /\n") == []


def test_gitlab_script_lists() -> None:
    text = (
        "test:\n  before_script:\n    - apt-get update\n  script:\n  - make test\n"
        "  - |\n    echo x\n    rm -rf build\nother:\n  image: python\n"
    )
    assert _commands(".gitlab-ci.yml", text) == [
        (3, 3, "apt-get update"),
        (5, 5, "make test"),
        (7, 7, "echo x"),
        (8, 8, "rm -rf build"),
    ]


def test_a_list_ends_at_the_next_item_of_its_parent() -> None:
    text = "steps:\n  - script:\n      - echo one\n  - run: echo two\n"
    assert _commands("azure-pipelines.yml", text) == [(3, 3, "echo one")]


def test_makefile_recipes_without_their_prefixes() -> None:
    text = "X = 1\nall: build\n\t@echo hi \\\n\t  there\n\t-rm -rf out\n# note\n"
    assert _commands("Makefile", text) == [(3, 4, "echo hi there"), (5, 5, "rm -rf out")]


def test_package_json_scripts_at_their_lines() -> None:
    text = (
        '{\n  "name": "x",\n  "scripts": {\n    "test": "jest --ci",\n    "build": "tsc"\n  }\n}\n'
    )
    assert _commands("web/package.json", text) == [(4, 4, "jest --ci"), (5, 5, "tsc")]


def test_tox_commands_and_noxfile_session_run() -> None:
    tox = "[testenv]\ndeps = pytest\ncommands =\n    pytest {posargs}\n    ruff check .\n"
    assert _commands("tox.ini", tox) == [(4, 4, "pytest {posargs}"), (5, 5, "ruff check .")]
    nox = (
        "import nox\n@nox.session\ndef t(session):\n    session.run('pytest', '-x')\n"
        "    session.run(\n        'ruff', 'check')\n    session.run(*args)\n"
    )
    assert _commands("noxfile.py", nox) == [(4, 4, "pytest -x"), (5, 6, "ruff check")]


def test_dockerfile_run_shell_and_exec_forms() -> None:
    text = (
        "FROM python:3.12\nRUN --mount=type=cache,target=/root/.cache apt-get update && \\\n"
        "    # a comment Docker drops\n    apt-get install -y curl\n"
        'RUN ["pip", "install", "lessons"]\nCMD ["serve"]\n'
    )
    assert _commands("Dockerfile", text) == [
        (2, 4, "apt-get update && apt-get install -y curl"),
        (5, 5, "pip install lessons"),
    ]


def test_pre_commit_entries() -> None:
    text = "repos:\n  - repo: local\n    hooks:\n      - id: t\n        entry: pytest -q\n"
    assert _commands(".pre-commit-config.yaml", text) == [(5, 5, "pytest -q")]


def test_shell_script_skips_syntax_comments_and_quoted_heredoc_markers() -> None:
    text = (
        "#!/bin/sh\nset -e\n# deploy\nif [ -f x ]; then\n  rm x\nfi\nbuild() {\n  make\n}\n"
        "echo '<<EOF'\ngit push\n"
    )
    assert _commands("scripts/deploy.sh", text) == [
        (2, 2, "set -e"),
        (4, 4, "[ -f x ]"),
        (5, 5, "rm x"),
        (8, 8, "make"),
        (10, 10, "echo '<<EOF'"),
        (11, 11, "git push"),
    ]


@pytest.mark.parametrize(
    ("path", "text", "expected"),
    [
        ("bin/release", "#!/usr/bin/env bash\nnpm publish\n", [(2, 2, "npm publish")]),
        ("bin/tool", "#!/usr/bin/env python3\nprint(1)\n", []),
        ("LICENSE", "MIT License\n", []),
    ],
)
def test_an_extensionless_file_is_a_script_by_its_shebang(
    path: str, text: str, expected: list[tuple[int, int, str]]
) -> None:
    assert _commands(path, text) == expected


def test_only_commands_with_an_added_line_are_kept() -> None:
    """A command is the diff's when any of its lines is added; it is reported at the
    first added one."""
    commands = commands_of(".github/workflows/ci.yml", WORKFLOW)
    assert added(commands, {11, 15}) == [(11, "pip install -e . --quiet"), (15, "pytest -q")]
    assert added(commands, set()) == []


def test_a_quoted_string_over_several_lines_is_one_command() -> None:
    text = "#!/bin/sh\npy=${info%%\"\n\"*}\necho 'a\nb' # it's a comment\nls\n"
    assert _commands("run.sh", text) == [
        (2, 3, 'py=${info%%"\n"*}'),
        (4, 5, "echo 'a\nb' # it's a comment"),
        (6, 6, "ls"),
    ]


SHELL_SYNTAX = """\
#!/bin/sh
case "$1" in
  build) make all ;;
  test|check)
    pytest -q
    ;;
esac
for f in a b; do
  echo "$f"
done
if grep -q x notes.txt; then
  rm notes.txt
fi
while read line; do echo "$line"; done < list
"""


def test_shell_syntax_is_not_a_command_and_what_it_wraps_is() -> None:
    """`case … in`, labels, `;;`, `for … do`, `if …; then`, `fi`, `done` run nothing of
    their own: the commands they hold are listed bare; a one-line loop stays whole."""
    assert _commands("scripts/run.sh", SHELL_SYNTAX) == [
        (3, 3, "make all"),
        (5, 5, "pytest -q"),
        (9, 9, 'echo "$f"'),
        (11, 11, "grep -q x notes.txt"),
        (12, 12, "rm notes.txt"),
        (14, 14, 'while read line; do echo "$line"; done < list'),
    ]


@pytest.mark.parametrize(("path", "indent"), [("justfile", "    "), ("Makefile", "\t")])
def test_a_recipes_here_document_body_and_case_block_are_not_commands(
    path: str, indent: str
) -> None:
    """A recipe's here-document body and its closing `EOF` belong to the command that
    reads them; its `case … in`, `;;` and `esac` are syntax."""
    lines = [
        "release:",
        "#!/usr/bin/env bash",
        "cat <<EOF > notes.md",
        "Release notes",
        "EOF",
        'case "$x" in',
        "  a) echo a ;;",
        "esac",
        "git tag v1",
    ]
    text = "\n".join([lines[0], *(indent + line for line in lines[1:])]) + "\n"
    assert _commands(path, text) == [
        (3, 5, "cat <<EOF > notes.md\nRelease notes\nEOF"),
        (7, 7, "echo a"),
        (9, 9, "git tag v1"),
    ]
