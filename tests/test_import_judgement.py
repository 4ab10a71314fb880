"""What ``lessons import instructions`` carries, on the wording of real projects' files.

Each test reproduces, in a few lines, a way an import went wrong on a public project's
instruction files (AGENTS.md, CLAUDE.md, nested ones, a nested Cursor rule file): a
description carried as a rule, a prohibition turned into an instruction, a rule firing
on the very command it asks for, emphasis read as a glob, a nested file's rules made to
apply everywhere or nowhere.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from lessons_core.matching.commands import compile_command
from lessons_core.matching.commit_messages import TYPED_COMMIT, UNSIGNED_COMMIT, UNTYPED_COMMIT
from lessons_core.store.files import load_graph
from lessons_core.store.layout import Layout
from lessons_core.store.model import Lesson, Triggers
from tests.conftest import import_instructions, lessons_repo, run, write_tracked

FILES = {
    "Makefile": "test:\n\tuv run pytest\n",
    "pyproject.toml": "[project]\nname = 'demo'\n",
    "uv.lock": "version = 1\n",
    "src/demo/__init__.py": "",
    "src/demo/models/__init__.py": "",
    "src/demo/models/openai.py": "",
    "src/demo/models/anthropic.py": "",
    "src/demo/settings.py": "",
    "tests/conftest.py": "",
    "tests/test_models.py": "",
    "tests/assets/kiwi.jpg": "",
    "tests/assets/dummy.pdf": "",
    "docs/index.md": "# demo\n",
    "docs/guide.md": "guide\n",
    "docs/api.md": "api\n",
    ".github/workflows/ci.yml": "on: push\n",
    ".github/workflows/ci.lock.yml": "# generated\n",
    ".github/workflows/ci.md": "---\non: push\n---\n",
    ".gitignore": "*.pyc\n",
}


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Layout:
    return lessons_repo(tmp_path / "demo", FILES, monkeypatch)


def write(layout: Layout, name: str, text: str) -> None:
    write_tracked(layout.root, name, text)


def lessons(layout: Layout) -> dict[str, Triggers]:
    return {rule: x.triggers for rule, x in by_rule(layout).items()}


def by_rule(layout: Layout) -> dict[str, Lesson]:
    return {x.rule: x for x in load_graph(layout).lessons.values()}


def left(report: dict[str, Any], code: str) -> list[str]:
    return [note["detail"] for note in report["not_carried"] if note["code"] == code]


DEVELOPMENT = """\
## Development workflow

The project uses:

- [`uv`](https://docs.astral.sh/uv/), supporting Python 3.10 through 3.13
    - Install all dependencies with `make install`
- `pytest` in `tests/`, via `make test`, with:
    - `inline-snapshot` for inline assertions

## Gathering context

- reading the GitHub issue/PR and comments, using the `gh` CLI if it can be installed

## Binary content

- `image_content` - `BinaryImage` (kiwi.jpg)
- `document_content` - `BinaryContent` (dummy.pdf)

## When to verify

Pre-commit runs `make lint` and `make typecheck` on every commit. While iterating, only
run targeted checks:

- run a single test: `uv run pytest path/to/test.py::test_name`

Avoid `make typecheck` and `make test` between edits — both are slow.

Never add yourself (Claude) as a co-author on commits. Commits should be authored by the
user only.
"""


def test_descriptions_stay_and_prose_rules_come_in(repo: Layout) -> None:
    """A tool's description, a fragment ending in "with:", a link, a gerund step and a
    fixtures list are no rules and carry no `uv` or `gh` trigger; the rules written as
    prose are carried, each on the command where its mistake is made."""
    write(repo, "AGENTS.md", DEVELOPMENT)
    report = import_instructions()
    found = lessons(repo)
    assert found == {
        "Avoid `make typecheck` and `make test` between edits.": Triggers(
            commands=("make typecheck", "make test")
        ),
        "Never add yourself (Claude) as a co-author on commits.": Triggers(
            commands=("git commit",)
        ),
    }
    [described, *_] = left(report, "description")
    assert described.startswith("'`uv`, supporting Python 3.10 through 3.13'")  # no link
    assert any("`pytest` in `tests/`, via `make test`, with" in d for d in left(report, "lead-in"))
    assert any("kiwi.jpg" in detail for detail in left(report, "description"))
    assert any("using the `gh` CLI" in detail for detail in left(report, "description"))


def test_the_first_test_run_is_not_refused_by_a_description(repo: Layout) -> None:
    """After the import, the agent's first targeted test run brings no rule."""
    write(repo, "AGENTS.md", DEVELOPMENT)
    import_instructions()
    assert run("query", "--cmd", "uv run pytest tests/test_models.py").stdout == ""
    assert "between edits" in run("query", "--cmd", "make test").stdout


def test_a_rule_never_fires_on_the_command_it_asks_for(repo: Layout) -> None:
    """ "Run `make typecheck` before you finish" does not refuse `make typecheck`: it
    names no place where its mistake is made, so it stays, saying why; "run `make test`
    before committing" fires on the commit."""
    write(
        repo,
        "AGENTS.md",
        "- Run `make typecheck` before you finish.\n- Run `make test` before committing.\n",
    )
    report = import_instructions()
    assert lessons(repo) == {
        "Run `make test` before committing.": Triggers(commands=("git commit",)),
    }
    [asks] = left(report, "asks-for-it")
    assert "it names only what it asks for or points at ('make typecheck')" in asks


def test_a_prohibition_heading_keeps_its_meaning(repo: Layout) -> None:
    """Bullets under "Do not" become prohibitions, never instructions."""
    write(
        repo,
        "AGENTS.md",
        "## Do not\n\n- Edit `uv.lock` by hand.\n- `git push --force` to main.\n",
    )
    import_instructions()
    assert lessons(repo) == {
        "Do not edit `uv.lock` by hand.": Triggers(files=("uv.lock",)),
        "Avoid `git push --force` to main.": Triggers(commands=("git push --force",)),
    }


def test_a_heading_that_is_a_prohibition_of_its_own_negates_no_bullet(repo: Layout) -> None:
    """Under "Don't edit files under `docs/`" the bullets say what to do instead: "Document
    new features in `docs-master/` only" stays an instruction, never "Do not document ..."
    (which the file's own line would contradict); under "Never use these" they are what
    it forbids."""
    write(repo, "docs/guide.md", "")
    write(repo, "docs-master/guide.md", "")
    write(
        repo,
        "AGENTS.md",
        "## Don't edit files under `docs/`\n\nSo:\n\n"
        "- Document new features in `docs-master/` only.\n\n"
        "## Never use these\n\n- `git push --force` on main.\n",
    )
    import_instructions()
    found = lessons(repo)
    assert not any(rule.startswith("Do not document") for rule in found)
    assert found["Avoid `git push --force` on main."] == Triggers(commands=("git push --force",))


def test_a_lead_in_is_completed_by_its_bullets(repo: Layout) -> None:
    """ "Run `make docs` when you change:" with its list gives one rule per item, fired on
    the item, never on `make docs`."""
    write(repo, "AGENTS.md", "Run `make docs` when you change:\n\n- `docs/`\n- `pyproject.toml`\n")
    import_instructions()
    assert lessons(repo) == {
        "Run `make docs` when you change `docs/`.": Triggers(files=("docs/**",)),
        "Run `make docs` when you change `pyproject.toml`.": Triggers(files=("pyproject.toml",)),
    }


def test_a_rule_takes_the_command_of_its_code_block(repo: Layout) -> None:
    """A rule ending in "with:" above a one-command block says the command."""
    write(
        repo,
        "AGENTS.md",
        "- Never edit `uv.lock` by hand; regenerate it with:\n\n  ```bash\n  uv lock\n  ```\n",
    )
    import_instructions()
    assert lessons(repo) == {
        "Never edit `uv.lock` by hand; regenerate it: `uv lock`": Triggers(files=("uv.lock",))
    }


def test_emphasis_is_no_glob_and_markdown_is_cleaned(repo: Layout) -> None:
    """The closing bold of a rule is no `.**` glob (it fired on .gitignore); the rule
    keeps no bold, no link syntax; the words after the dash are its rationale."""
    write(
        repo,
        ".github/workflows/AGENTS.md",
        "- **Never hand-edit a `*.lock.yml`.** It is generated — the header says so.\n"
        "- Keep the [workflow docs](../../docs/guide.md) in step with **`ci.md`**.\n",
    )
    import_instructions()
    graph = by_rule(repo)
    lock = graph["Never hand-edit a `*.lock.yml`."]
    assert lock.triggers == Triggers(files=(".github/workflows/*.lock.yml",))
    assert lock.rationale == "It is generated — the header says so."
    docs = graph["Keep the workflow docs in step with `ci.md`."]
    assert docs.triggers.files == (".github/workflows/ci.md",)


def test_placeholders_are_cut_from_commands(repo: Layout) -> None:
    """`path/to/test.py::test_name`, `<name>` and `{x}` are what the reader fills in."""
    write(
        repo,
        "AGENTS.md",
        "- Never run `tox -e py311 path/to/test.py::test_name -x` in CI.\n"
        "- Never run `make release-<name>` by hand.\n"
        "- Don't call `python -m demo.{module}` directly.\n",
    )
    import_instructions()
    assert lessons(repo) == {
        "Never run `tox -e py311 path/to/test.py::test_name -x` in CI.": Triggers(
            commands=("tox -e py311",)
        ),
    }


FRONTEND = {
    "frontend/package.json": "{}\n",
    "frontend/src/app.ts": "",
    "frontend/src/menu.tsx": "",
    "frontend/src/menu.test.tsx": "",
    "frontend/src/util.test.ts": "",
    "frontend/e2e/app.spec.ts": "",
    "frontend/src/style.css": "",
    "frontend/fonts/inter.woff2": "",
}


def test_a_folders_rules_are_about_its_code_in_its_own_language(repo: Layout) -> None:
    """A Python project's `frontend/` with its own package.json holds TypeScript: its
    AGENTS.md's rules that name no place are about its TypeScript sources, not its fonts
    and styles, and its unit-test rules about `*.test.ts(x)`, not `test_*.py` (nor the
    browser tests in `*.spec.ts`)."""
    for name, text in FRONTEND.items():
        write(repo, name, text)
    write(
        repo,
        "frontend/AGENTS.md",
        "- Avoid type assertions, as they can cause runtime errors.\n\n"
        "## Unit Tests\n\n- Group related cases with `describe`.\n",
    )
    import_instructions()
    assert lessons(repo) == {
        "Avoid type assertions, as they can cause runtime errors.": Triggers(
            files=("frontend/**/*.ts", "frontend/**/*.tsx")
        ),
        "Group related cases with `describe`.": Triggers(
            files=("frontend/**/*.test.ts", "frontend/**/*.test.tsx")
        ),
    }


def test_placeholders_are_cut_from_paths(repo: Layout) -> None:
    """`src/demo/models/<provider>/` names the folder before the placeholder; a path that
    starts with one names nothing."""
    write(
        repo,
        "AGENTS.md",
        "- Put a new provider under `src/demo/models/<provider>/`.\n"
        "- Never edit `<name>/settings.py` by hand.\n",
    )
    report = import_instructions()
    assert lessons(repo) == {
        "Put a new provider under `src/demo/models/<provider>/`.": Triggers(
            files=("src/demo/models/**",)
        ),
    }
    assert any("<name>/settings.py" in detail for detail in left(report, "no-trigger"))


def test_what_a_prohibition_asks_for_with_without_is_no_trigger(repo: Layout) -> None:
    """ "Do not change X without running `Y`": the mistake is changing X; `Y` is what the
    rule asks for, and a lesson on it would fire on the very command it wants run."""
    write(
        repo,
        "AGENTS.md",
        "- Do not change `pyproject.toml` without running `uv lock`.\n"
        "- Never add a dependency without running `uv lock`.\n",
    )
    report = import_instructions()
    assert lessons(repo) == {
        "Do not change `pyproject.toml` without running `uv lock`.": Triggers(
            files=("pyproject.toml",)
        ),
    }
    assert any("('uv lock')" in detail for detail in left(report, "asks-for-it"))


def test_a_rule_naming_its_situation_is_not_triggered_by_what_it_asks_for(
    repo: Layout,
) -> None:
    """ "After editing `x.md`, commit `x.lock.yml`" is made in the `.md`; a rule naming no
    situation keeps the file it has the agent edit."""
    write(
        repo,
        "AGENTS.md",
        "- After editing a workflow `.github/workflows/ci.md`, recompile and commit "
        "`.github/workflows/ci.lock.yml`.\n"
        "- Keep `src/demo/settings.py` free of network calls.\n",
    )
    import_instructions()
    assert lessons(repo) == {
        "After editing a workflow `.github/workflows/ci.md`, recompile and commit "
        "`.github/workflows/ci.lock.yml`.": Triggers(files=(".github/workflows/ci.md",)),
        "Keep `src/demo/settings.py` free of network calls.": Triggers(
            files=("src/demo/settings.py",)
        ),
    }


def test_a_rule_pointing_at_its_own_file_has_no_trigger_there(repo: Layout) -> None:
    """ "... the conventions in this `AGENTS.md`" names the file it is read from: no place
    where its mistake is made."""
    write(
        repo,
        "AGENTS.md",
        "- During review, check the changes against the conventions in this `AGENTS.md`.\n",
    )
    report = import_instructions()
    assert lessons(repo) == {}
    [pointer] = left(report, "asks-for-it")
    assert "it names only what it asks for or points at ('AGENTS.md')" in pointer


def test_a_rule_asking_to_make_something_is_not_triggered_where_it_is_made(
    repo: Layout,
) -> None:
    """ "Add usage examples in `docs/`": the mistake is not adding them, which no edit of
    `docs/` shows; "Keep `src/demo/settings.py` ..." is about that file."""
    write(
        repo,
        "AGENTS.md",
        "- Examples: Add usage examples in `docs/` for every new function.\n"
        "- Create an example in `docs/` that shows the bug before fixing it.\n"
        "- Keep `src/demo/settings.py` free of network calls.\n",
    )
    import_instructions()
    assert lessons(repo) == {
        "Keep `src/demo/settings.py` free of network calls.": Triggers(
            files=("src/demo/settings.py",)
        ),
    }


def test_what_counts_as_a_command_does_not_depend_on_this_machine(
    repo: Layout, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A program that happens to be installed here is no command of the rule's text:
    the same file gives the same lessons on every clone."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "frobnicate").write_text("#!/bin/sh\n")
    os.chmod(bin_dir / "frobnicate", 0o755)
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ['PATH']}")
    write(repo, "AGENTS.md", "- Never run `frobnicate all` in this repo.\n")
    report = import_instructions()
    assert lessons(repo) == {}
    assert left(report, "no-trigger")


@pytest.mark.parametrize("command", ["uv", "gh", "just", "npx", "uv run", "pnpm run", "poetry run"])
def test_runner_prefixes_and_bare_programs_are_no_triggers(repo: Layout, command: str) -> None:
    """A bare multi-purpose program or a runner prefix starts most of a project's
    commands: import never writes it as a trigger."""
    write(repo, "AGENTS.md", f"- Never call `{command}` without the lock file.\n")
    import_instructions()
    assert all(command not in triggers.commands for triggers in lessons(repo).values())


MODELS_AGENTS = """\
# models/ Guidelines

## API Design

<!-- rule:81 -->
- Apply identical response processing to both `request()` and `request_stream()` — if
  `request()` calls `_process_response()`, `request_stream()` must apply it to each chunk
- Place provider-specific code in `models/{provider}.py`, not shared modules
"""


def test_a_nested_file_scopes_its_rules_to_its_folder(repo: Layout) -> None:
    """With no argument every tracked instruction file is read; a nested AGENTS.md's
    rules apply to its folder, never reported as loaded into every session."""
    write(repo, "AGENTS.md", "- Never edit `uv.lock` by hand.\n")
    write(repo, "src/demo/models/AGENTS.md", MODELS_AGENTS)
    report = import_instructions()
    assert report["source"] == "AGENTS.md, src/demo/models/AGENTS.md"
    assert lessons(repo) == {
        "Never edit `uv.lock` by hand.": Triggers(files=("uv.lock",)),
        "Apply identical response processing to both `request()` and `request_stream()`.": (
            Triggers(files=("src/demo/models/**/*.py",))
        ),
        "Place provider-specific code in `models/{provider}.py`, not shared modules": Triggers(
            files=("src/demo/models/**/*.py",)
        ),
    }
    details = " ".join(note["detail"] for note in report["not_carried"])
    assert "loaded whole into every session" not in details


def test_a_nested_files_command_rule_fires_on_the_command_alone(repo: Layout) -> None:
    """A command is run from anywhere: a rule on one in `docs/CLAUDE.md` is not about the
    folder's files, and its reason after a dash, naming the command as "they" or "it",
    stays the rationale of a rule of its own."""
    write(repo, "docs/guide.md", "# Guide\n")
    write(
        repo,
        "docs/CLAUDE.md",
        "> **Do NOT** use `go install` directly — they create stale binaries.\n\n"
        "- DO NOT use `git rebase -i` - it opens an editor the agent cannot use.\n"
        "- Keep each page under one screen.\n",
    )
    import_instructions()
    found = by_rule(repo)
    install = found["Do NOT use `go install` directly."]
    assert install.triggers == Triggers(commands=("go install",))
    assert install.rationale == "they create stale binaries."
    rebase = found["DO NOT use `git rebase -i`."]
    assert rebase.triggers == Triggers(commands=("git rebase -i",))
    assert found["Keep each page under one screen."].triggers.files == ("docs/**",)


def test_the_files_a_rule_excepts_are_not_its_place(repo: Layout) -> None:
    """ "No `process.env` - except in test files" holds everywhere but the tests: the test
    files it names are no trigger, and with no other place it stays in the file."""
    write(repo, "src/app.test.ts", "")
    write(repo, "src/app.ts", "")
    write(
        repo,
        "AGENTS.md",
        "- No `process.env` - except in test files.\n- Never skip test files in review.\n",
    )
    report = import_instructions()
    assert "No `process.env` - except in test files." not in lessons(repo)
    assert any("process.env" in detail for detail in left(report, "no-trigger"))


def test_rules_asking_for_commits_or_pushes_do_not_fire_on_them(repo: Layout) -> None:
    """The mistake of "commit as you go", of stopping before a push and of work "not
    complete until `git push` succeeds" is making no commit or push, which no commit or
    push shows; "Run `make check` before pushing" is made at the push. In a nested file
    such rules are no rules on the folder's code either."""
    write(repo, "Makefile", "check:\n\ttrue\n")
    write(repo, "src/app.py", "")
    write(
        repo,
        "AGENTS.md",
        "## When to commit\n\n- Commit as you go, not all at once at the end.\n\n"
        "## Finishing\n\n- NEVER stop before pushing.\n"
        "- After you push, do not go idle.\n"
        "- Work is NOT complete until `git push` succeeds.\n"
        "- Run `make check` before pushing.\n",
    )
    write(repo, "src/AGENTS.md", "- NEVER stop before pushing your branch.\n")
    import_instructions()
    assert lessons(repo) == {"Run `make check` before pushing.": Triggers(commands=("git push",))}


def test_a_heading_naming_a_test_framework_is_about_the_tests(repo: Layout) -> None:
    """Under "Testify Suite Correctness" a rule naming no place ("Never use `s.T()` in
    subtests") is about the Go test sources."""
    write(repo, "go.mod", "module example.com/x\n")
    write(repo, "pkg/a.go", "package pkg\n")
    write(repo, "pkg/a_test.go", "package pkg\n")
    write(
        repo,
        "AGENTS.md",
        "## Testify Suite Correctness\n\n- Never use `s.T()` in subtests.\n"
        "- Prefer `require` over `assert`.\n",
    )
    import_instructions()
    assert lessons(repo) == {
        "Never use `s.T()` in subtests.": Triggers(files=("**/*_test.go",)),
        "Prefer `require` over `assert`.": Triggers(files=("**/*_test.go",)),
    }


def test_a_section_on_commenting_gives_its_rules_the_comment_actions(repo: Layout) -> None:
    """Under "Commenting on issues and PRs" a rule naming no place is about what a comment
    says: it fires where comments are written, not where a pull request is opened, unless
    it asks for a pull request of some kind ("Open every PR with the template")."""
    write(
        repo,
        "AGENTS.md",
        "## Commenting on issues and PRs\n\n- Skip effusive praise.\n"
        "- Open every PR with the repository template.\n\n"
        "## Pull requests\n\n- Keep each one small and focused on one change.\n",
    )
    import_instructions()
    comments = ("gh pr comment", "gh issue comment", "gh pr review")
    assert lessons(repo) == {
        "Skip effusive praise.": Triggers(commands=comments),
        "Open every PR with the repository template.": Triggers(commands=("gh pr create",)),
        "Keep each one small and focused on one change.": Triggers(commands=("gh pr create",)),
    }


def test_a_pointer_to_what_a_command_prints_is_no_rule(repo: Layout) -> None:
    """ "Run `tool agent --help` for its commands" and "Run `tool prime` for full workflow
    context" point at what a command prints; "Run `make lint` for style checks" asks."""
    write(repo, "Makefile", "lint:\n\truff check .\n")
    write(
        repo,
        "AGENTS.md",
        "- Run `tool agent --help` for state and heartbeat commands.\n"
        "- Run `tool prime` for full workflow context.\n"
        "- Use `tool --help` to see all available commands.\n"
        "- Never run `make lint` with `--fix` on generated code.\n",
    )
    report = import_instructions()
    assert list(lessons(repo)) == ["Never run `make lint` with `--fix` on generated code."]
    assert len(left(report, "link-list")) == 3


def test_a_nested_cursor_rule_file_applies_to_its_folder(repo: Layout) -> None:
    """`docs/.cursor/rules.mdc` with alwaysApply is about docs/ (its pages, which are
    what the folder holds), not every request."""
    write(
        repo,
        "docs/.cursor/rules.mdc",
        "---\ndescription:\nglobs:\nalwaysApply: true\n---\n"
        "Always reference the python code in the docs, e.g. `ModelSettings` should link to "
        "[`ModelSettings`][pydantic_ai.settings.ModelSettings].\n",
    )
    result = run("import", "cursor", "docs/.cursor/rules.mdc", "--json")
    assert result.exit_code == 0, result.output
    [lesson] = load_graph(repo).lessons.values()
    assert not lesson.always
    assert lesson.triggers == Triggers(files=("docs/**/*.md",))
    assert lesson.rule.endswith("[`ModelSettings`][pydantic_ai.settings.ModelSettings].")


def test_a_cursor_rule_that_only_includes_another_file_is_no_lesson(repo: Layout) -> None:
    """A rule file whose body is "@.github/copilot-instructions.md" pulls that file in:
    its rules come from there, and the include line is no rule on the rule's globs."""
    write(
        repo,
        ".cursor/rules/review.mdc",
        '---\ndescription: Review guidelines\nglobs: "**/*.py"\nalwaysApply: false\n---\n\n'
        "# Code Review Guidelines\n\n@.github/copilot-instructions.md\n",
    )
    result = run("import", "cursor", "--json")
    assert result.exit_code == 0, result.output
    assert load_graph(repo).lessons == {}
    assert "pulls another file in" in result.output


def test_the_dry_run_lists_every_lesson_and_every_loss_by_reason(repo: Layout) -> None:
    """Every lesson it would write, rule and triggers in full; every item it leaves,
    under its reason."""
    write(repo, "AGENTS.md", DEVELOPMENT)
    result = run("import", "instructions", "--dry-run")
    lines = result.stdout.splitlines()
    assert "lessons it would write: 2" in lines
    rule = lines.index(next(line for line in lines if line.endswith("between edits.")))
    assert lines[rule + 1] == "    commands: make typecheck, make test"
    assert any(line.startswith("  description (") for line in lines)
    assert any(line.startswith("  lead-in (") for line in lines)
    assert "    AGENTS.md: 4 heading(s): a heading names the topic of the rules below it" in (
        "\n".join(lines)
    )
    assert list(repo.lessons_dir.iterdir()) == []
    planned = import_instructions("--dry-run")["planned"]  # for programs, in full too
    avoid = [x for x in planned if x["rule"].startswith("Avoid `make typecheck`")]
    assert [x["triggers"]["commands"] for x in avoid] == [["make typecheck", "make test"]]


def test_what_a_rule_protects_defers_to_or_describes_is_no_trigger(repo: Layout) -> None:
    """A file a rule protects ("so uv doesn't rewrite `uv.lock`"), a document it defers to
    ("defined in `docs/guide.md`"), a file it asks to document something in, a module it
    says to import from and a file it describes ("`ci.yml` requires ...") are not where
    its mistake is made: such a rule has no trigger it can be trusted with, and stays.
    Commit messages are written at ``git commit``."""
    write(repo, "package.json", '{"scripts": {"test": "vitest run", "dev": "vite"}}\n')
    write(
        repo,
        "AGENTS.md",
        "- Always pass `--frozen` so uv doesn't rewrite `uv.lock` as a side effect.\n"
        "- Use the release branch defined in `docs/guide.md`.\n"
        "- When making breaking changes, document them in `docs/api.md`.\n"
        "- Instead of importing from `vite` or `vitest`, import from `vite-plus`.\n"
        "- Use Conventional Commits for commit messages; `.github/workflows/ci.yml` "
        "requires a scoped title.\n"
        "- Never edit `uv.lock` by hand.\n"
        "- Give the pull request a conventional-commit title.\n"
        "- Write the changelog entry as a Conventional Commit-style message.\n",
    )
    import_instructions()
    assert lessons(repo) == {
        "Use Conventional Commits for commit messages; `.github/workflows/ci.yml` requires a "
        "scoped title.": Triggers(commands=(UNTYPED_COMMIT,)),
        "Never edit `uv.lock` by hand.": Triggers(files=("uv.lock",)),
    }


def test_a_section_about_commits_or_pull_requests_gives_its_rules_that_action(
    repo: Layout,
) -> None:
    """Under "Commit message convention" a rule naming no place is about the message,
    written at ``git commit`` (a typed one, for a rule forbidding types); under "Pull
    Requests", at ``gh pr create``. A heading naming both, or a pre-commit hook, gives
    none. A prohibiting label forbids what follows it."""
    write(
        repo,
        "AGENTS.md",
        "## Commit message convention\n\n- Avoid `feat:`, `fix:`, `chore:` prefixes.\n\n"
        "## Pull Requests\n\n- Keep each one small and focused on one change.\n\n"
        "## Pull Request & Commit Guidelines\n\n- Keep summary under 80 characters.\n\n"
        "## `$pr-draft-summary`\n\n- Keep it to three short paragraphs at most.\n\n"
        "## Pre-commit hooks\n\n- Keep hooks fast and focused on one check.\n\n"
        "## Packages\n\n- FORBIDDEN: `uv pip install`, `@latest` syntax\n",
    )
    import_instructions()
    found = lessons(repo)
    assert found["Avoid `feat:`, `fix:`, `chore:` prefixes."] == Triggers(commands=(TYPED_COMMIT,))
    assert found["Keep each one small and focused on one change."] == Triggers(
        commands=("gh pr create",)
    )
    assert found["FORBIDDEN: `uv pip install`, `@latest` syntax"].commands == ("uv pip install",)
    assert "Keep summary under 80 characters." not in found
    assert "Keep it to three short paragraphs at most." not in found
    assert "Keep hooks fast and focused on one check." not in found


def test_a_rule_on_commit_types_fires_only_on_a_message_that_breaks_it(repo: Layout) -> None:
    """A rule asking for Conventional Commits fires on a commit whose message opens with
    no type, never on a typed one; a rule forbidding them, the other way round. A message
    from a heredoc is nothing to judge. Other rules on the message fire on every commit."""
    write(
        repo,
        "AGENTS.md",
        "- Commit with conventional commits (`feat:`, `fix:`, `docs:`).\n"
        "- Do not use conventional commits (no `feat:`/`fix:` prefixes).\n"
        "- Commit messages explain why, not what.\n",
    )
    import_instructions()
    found = lessons(repo)
    asked = found["Commit with conventional commits (`feat:`, `fix:`, `docs:`)."]
    forbidden = found["Do not use conventional commits (no `feat:`/`fix:` prefixes)."]
    assert asked == Triggers(commands=(UNTYPED_COMMIT,))
    assert forbidden == Triggers(commands=(TYPED_COMMIT,))
    assert found["Commit messages explain why, not what."] == Triggers(commands=("git commit",))
    untyped, typed = compile_command(UNTYPED_COMMIT), compile_command(TYPED_COMMIT)
    heredoc = "git commit -m \"$(cat <<'EOF'\nfeat: x\nEOF\n)\""
    examples = {
        "git commit -m 'Add retry'": (True, False),
        "git commit -am x": (True, False),
        "git commit --message=Fix": (True, False),
        "git commit -m 'feat: add retry'": (False, True),
        'git commit -m "fix(cli)!: x"': (False, True),
        heredoc: (False, False),
        "git commit --amend --no-edit": (False, False),
        "git status": (False, False),
    }
    for command, fires in examples.items():
        assert (untyped.matches(command), typed.matches(command)) == fires, command


PLACES = """\
## Layout

- `tests/fixtures/` - recorded upstream cases. Do not modify these for local behaviour
  changes; re-record them only on an upstream sync.
- `docs/` - the user guide, built by `make docs`. Only describe behaviour a release has
  shipped, so the guide stays true.
- `tests/assets/` - binary inputs. Start with the smallest file that shows the bug.
"""


def test_an_entry_later_sentence_is_about_the_place_it_names(repo: Layout) -> None:
    """In a list of folders ("`x/` - what it holds. Do not modify these."), a sentence
    after the description speaks of the entry's folder: a prohibition pointing back at it
    ("these") names it, and a rule of what must happen there says where; a plain step or
    a plain step stays as it was, reported in the file with its reason."""
    write(repo, "tests/fixtures/case.json", "{}")
    write(repo, "AGENTS.md", PLACES)
    report = import_instructions()
    found = lessons(repo)
    assert found == {
        "Do not modify `tests/fixtures/` for local behaviour changes; re-record them only on "
        "an upstream sync.": Triggers(files=("tests/fixtures/**",)),
        "In `docs/`, only describe behaviour a release has shipped, so the guide stays "
        "true.": Triggers(files=("docs/**",)),
    }
    assert not any("Start with" in rule for rule in found)
    assert any("Start with the smallest" in detail for detail in left(report, "no-trigger"))


TARGETS = """\
## Makefile commands

Use `make help` to list all available commands. Common targets include:

- **audit**: run `go mod verify` and `go vet` for quality checks.
- **test**: run the test suite with `gotestsum`.
- **lint**: execute `golangci-lint`.
- **note**: never run `make release` from a branch.
"""


def test_a_list_of_targets_describes_them_and_its_lead_in_is_read_once(repo: Layout) -> None:
    """Bullets naming a make target in lower case ("**test**: run the test suite") say
    what the target does: descriptions, with no trigger on the test files. The paragraph
    before them is read as prose, each sentence once, and only its last sentence leads
    into the list; a name followed by a rule word is still a rule."""
    write(repo, "AGENTS.md", TARGETS)
    report = import_instructions()
    found = lessons(repo)
    assert list(found) == ["note: never run `make release` from a branch."]
    described = left(report, "description")
    assert any("run the test suite" in detail for detail in described)
    noted = [d for notes in report["not_carried"] for d in [notes["detail"]] if "make help" in d]
    assert len(noted) == 1


LINTER = """\
## Linter pitfalls

The linter is the most common reason CI fails. Always run `make lint` and fix every
finding before committing. The config enables strict settings, which trip up the
patterns below:

- Never discard a returned error with `_`.
"""


def test_a_long_lead_in_keeps_the_rules_before_its_last_sentence(repo: Layout) -> None:
    """A paragraph ending in ":" above a list: its sentences before the last are prose,
    so a rule among them is carried (on `git commit`, where forgetting it shows), and the
    description beside it is reported, not silently dropped."""
    write(repo, "AGENTS.md", LINTER)
    report = import_instructions()
    found = lessons(repo)
    assert found["Always run `make lint` and fix every finding before committing."] == (
        Triggers(commands=("git commit",))
    )
    assert any("most common reason" in d for d in left(report, "description"))


GENERATED = """\
## Auto-generated files

Do NOT edit these directly — modify the source scripts instead:

- `tox.ini` — generated by `scripts/populate_tox.py`
- `.github/workflows/test-*.yml` — generated by `scripts/split.py`
"""


def test_a_lead_in_pointing_at_its_entries_is_a_rule_on_each(repo: Layout) -> None:
    """ "Do NOT edit these directly:" above a list of files: a prohibition on each file,
    with what the entry says of it as its reason."""
    write(repo, "tox.ini", "[tox]\n")
    write(repo, ".github/workflows/test-unit.yml", "on: push\n")
    write(repo, "AGENTS.md", GENERATED)
    import_instructions()
    assert lessons(repo) == {
        "Do NOT edit `tox.ini` directly.": Triggers(files=("tox.ini",)),
        "Do NOT edit `.github/workflows/test-*.yml` directly.": Triggers(
            files=(".github/workflows/test-*.yml",)
        ),
    }
    rationales = [lesson.rationale for lesson in load_graph(repo).lessons.values()]
    assert all(r and "generated by" in r and "source scripts" in r for r in rationales)


TOX = """\
## Package manager

Use tox for testing (not pytest directly):
- Test matrix configuration is in `tox.ini`
- Integration tests: `uv run tox -e py3.14-integration`
- Common tests: `uv run tox -e py3.14-common`

Read and follow `CONTRIBUTING.md` as well - it covers testing and code structure.
"""


def test_a_lead_in_that_is_a_rule_stays_one_and_its_entries_describe(repo: Layout) -> None:
    """A lead-in the bullets do not finish ("Use tox for testing (not pytest
    directly):") is one rule, not one per bullet; "Test matrix configuration is in
    `tox.ini`" says where something is. A plain hyphen between two clauses is a dash:
    what follows it is the reason, so "testing" there puts no trigger on test files."""
    write(repo, "tox.ini", "[tox]\n")
    write(repo, "CONTRIBUTING.md", "# Contributing\n")
    write(repo, "AGENTS.md", TOX)
    report = import_instructions()
    rules = list(lessons(repo))
    assert rules.count("Use tox for testing (not pytest directly).") == 1
    assert not any("tox.ini" in rule or "uv run tox" in rule for rule in rules)
    assert all(not rule.startswith("Read and follow") for rule in rules)
    assert any("Test matrix configuration" in d for d in left(report, "description"))
    followed = [n["detail"] for n in report["not_carried"] if "Read and follow" in n["detail"]]
    assert followed
    assert all("covers testing" not in detail for detail in followed)


def test_a_document_to_review_is_no_trigger_and_issues_or_prs_are_opened(repo: Layout) -> None:
    """ "Review `docs/guide.md` before writing tests" points at the guide: an edit of the
    guide is not where the rule is broken. "Do not open issues or pull requests" is
    broken when a pull request or an issue is opened."""
    write(
        repo,
        "AGENTS.md",
        "## Workflow\n\n"
        "- Before planning new fixtures, review `docs/guide.md` for the fixture syntax.\n"
        "- Do not autonomously open issues or pull requests.\n",
    )
    import_instructions()
    found = lessons(repo)
    assert all("docs/guide.md" not in triggers.files for triggers in found.values())
    assert found["Do not autonomously open issues or pull requests."] == Triggers(
        commands=("gh pr create", "gh issue create")
    )


def test_the_place_of_an_exception_is_no_trigger(repo: Layout) -> None:
    """ "Never X outside of `docs/`" allows X in docs/: an edit there breaks nothing."""
    write(repo, "AGENTS.md", "- Never write raw HTML outside of `docs/`.\n")
    import_instructions()
    assert all("docs/**" not in triggers.files for triggers in lessons(repo).values())


OVERVIEW = """\
## Project overview

**Demo** is a contract-first data layer:

- **Contract-first**: Emit `contract.json` and `contract.d.ts` at build time
- **Checked**: never trust a contract that fails `validate()`

## Contract flow

1. **Authoring**: Write `schema.psl` or use the builders
2. **Emission**: The emitter writes `contract.json`

## Golden rules

- In model tests, assert the whole result (`toEqual`) with `select`: `docs/rules/shape.mdc`.
"""


def test_parts_of_a_description_and_a_document_named_last_are_no_rules(repo: Layout) -> None:
    """Labelled bullets after a sentence that describes ("X is a ... layer:") and the
    numbered steps under a heading naming how the project works ("Contract flow") say
    what is, unless a rule word says otherwise. A document named at a rule's end is where
    the rule is written down, not where it is broken."""
    for name in ("contract.json", "contract.d.ts", "schema.psl", "docs/rules/shape.mdc"):
        write(repo, name, "")
    write(repo, "AGENTS.md", OVERVIEW)
    report = import_instructions()
    found = lessons(repo)
    assert not any("Emit" in rule or "Authoring" in rule for rule in found)
    assert any("never trust" in detail for detail in left(report, "no-trigger"))  # a rule
    assert all("docs/rules/shape.mdc" not in triggers.files for triggers in found.values())
    described = " ".join(left(report, "description"))
    assert "Contract-first" in described
    assert "Authoring" in described


def test_a_pull_request_section_keeps_its_rules_on_the_pull_request(repo: Layout) -> None:
    """Under "PR messages", "No test plan sections or testing summaries" is about the
    message: it fires when the pull request is opened, not on the test files."""
    write(repo, "AGENTS.md", '## PR messages\n\n- No "test plan" sections or testing summaries\n')
    import_instructions()
    assert lessons(repo) == {
        'No "test plan" sections or testing summaries': Triggers(commands=("gh pr create",))
    }


def test_a_lead_in_asking_to_know_is_no_rule(repo: Layout) -> None:
    """ "Behavior you must know:" above facts introduces them: its "must" asks for
    attention, and neither it nor the facts become lessons."""
    write(
        repo,
        "tests/AGENTS.md",
        "## Test utilities\n\nBehavior you must know:\n\n"
        "- `runTests` writes its files to a temporary folder under cwd.\n"
        "- `runCli` spawns the real binary.\n",
    )
    import_instructions()
    assert lessons(repo) == {}


@pytest.mark.parametrize(
    ("rule", "commands"),
    [
        ("Never create an issue.", ("gh issue create",)),
        ("Never reply to an issue.", ("gh issue comment",)),
        ("Never open issues or pull requests for the user.", ("gh pr create", "gh issue create")),
        ("Keep PR description short.", ("gh pr create",)),
        ("## Pull Requests\n\n- You MUST mark your PRs as drafts.", ()),
        ("Always create a new commit for follow-ups, even when iterating on an open PR.", ()),
    ],
)
def test_issue_and_pull_request_rules_fire_where_they_are_made(
    repo: Layout, rule: str, commands: tuple[str, ...]
) -> None:
    """An issue is made by `gh issue create` and answered by `gh issue comment`; what a
    pull request says is written at `gh pr create`; a rule asking for a draft fires on no
    `gh pr create` (the draft is made there too), and "an open PR" is one made already.
    Under a "Pull Requests" heading, the draft rule still takes no `gh pr create`."""
    write(repo, "AGENTS.md", rule if rule.startswith("#") else f"- {rule}\n")
    import_instructions()
    found = lessons(repo)
    assert sorted(command for t in found.values() for command in t.commands) == sorted(commands)


def test_a_review_heading_is_no_pull_request_made(repo: Layout) -> None:
    """Rules under "PR Review Guidelines" are about reviewing: no `gh pr create`."""
    write(repo, "AGENTS.md", "## PR Review Guidelines\n\n- Keep each comment short.\n")
    import_instructions()
    assert all(not t.commands for t in lessons(repo).values())


def test_bullets_after_a_lead_in_that_forbids_are_prohibitions(repo: Layout) -> None:
    """ "Never emit either of the following:" above "A `Co-Authored-By:` trailer naming
    an agent" forbids the trailer, which is written at `git commit`; so does a list under
    a "No agent attribution" heading."""
    write(
        repo,
        "AGENTS.md",
        "Never emit either of the following, in any form:\n\n"
        "- A `Co-Authored-By:` trailer naming an agent, model, or tool.\n\n"
        "## No agent attribution\n\n"
        "- A co-author line in the commit message.\n",
    )
    import_instructions()
    assert lessons(repo) == {
        "Avoid a `Co-Authored-By:` trailer naming an agent, model, or tool.": Triggers(
            commands=("git commit",)
        ),
        "Avoid a co-author line in the commit message.": Triggers(commands=("git commit",)),
    }


def test_a_packages_rules_on_tests_land_in_the_repos_test_folder(repo: Layout) -> None:
    """A package whose tests are kept in the repo's `tests/` ("Tests live in `tests/`,
    mirroring `src/demo/`"): its AGENTS.md's rules on tests are about those, not about
    its own code."""
    write(
        repo,
        "src/demo/AGENTS.md",
        "## Testing\n\n- Avoid individual property assertions; compare whole objects.\n",
    )
    import_instructions()
    assert lessons(repo) == {
        "Avoid individual property assertions; compare whole objects.": Triggers(
            files=("tests/**/*.py",)
        )
    }


def test_a_rule_asking_for_tests_is_no_rule_on_the_test_files(repo: Layout) -> None:
    """ "Implement changes and add or update tests" is broken by a change without tests:
    no edit of a test file shows it. "When writing tests, ..." is about the tests."""
    write(
        repo,
        "AGENTS.md",
        "## Testing\n\n"
        "- Implement changes and add or update tests alongside code updates.\n"
        "- When writing tests, prefer fixtures over setup code.\n",
    )
    import_instructions()
    assert lessons(repo) == {
        "When writing tests, prefer fixtures over setup code.": Triggers(files=("tests/**/*.py",))
    }


def test_what_a_rule_asks_for_or_starts_is_no_place_and_a_pr_template_is_the_pr(
    repo: Layout,
) -> None:
    """Snapshots a rule prefers are what it asks for: it is broken in the tests, not in
    the snapshot files; "start ... tests" is running them; the pull request template is
    filled in at `gh pr create`."""
    write(repo, "tests/__snapshots__/models.snap", "")
    write(repo, ".github/PULL_REQUEST_TEMPLATE/pull_request_template.md", "## Summary\n")
    write(
        repo,
        "AGENTS.md",
        "## Testing\n\n"
        "- Prefer `insta` snapshots over substring assertions.\n"
        "- Do not start repository-wide lint, typecheck, tests, or builds during a review.\n\n"
        "## Pull requests\n\n"
        "- Use the template at `.github/PULL_REQUEST_TEMPLATE/pull_request_template.md`; "
        "include a summary.\n",
    )
    import_instructions()
    template = "`.github/PULL_REQUEST_TEMPLATE/pull_request_template.md`"
    assert lessons(repo) == {
        "Prefer `insta` snapshots over substring assertions.": Triggers(files=("tests/**/*.py",)),
        f"Use the template at {template}; include a summary.": Triggers(commands=("gh pr create",)),
    }


def test_a_glob_of_folders_and_a_place_opening_are_where_a_rule_is_broken(
    repo: Layout,
) -> None:
    """`src/*/models` names folders: the files below them. "In `src/demo/models`, do not
    ..." names where the prohibition holds, not an alternative it asks for."""
    write(
        repo,
        "AGENTS.md",
        "- Code in `src/*/models` must not import from `requests`.\n"
        "- In `src/demo/models`, do not import from `httpx` outside the files that do.\n",
    )
    import_instructions()
    assert lessons(repo) == {
        "Code in `src/*/models` must not import from `requests`.": Triggers(
            files=("src/*/models/**",)
        ),
        "In `src/demo/models`, do not import from `httpx` outside the files that do.": Triggers(
            files=("src/demo/models/**",)
        ),
    }


def test_a_sentence_pointing_at_the_list_below_it_leads_into_it(repo: Layout) -> None:
    """ "NEVER edit these files directly." above a list of files (no colon) forbids each:
    the name stands where "these files" stood, and the entry's words are why."""
    write(
        repo,
        "AGENTS.md",
        "## Generated files\n\nMANDATORY: NEVER edit these files directly.\n\n"
        "- `src/demo/settings.py` - generated by `make settings`\n"
        "- `uv.lock` - written by uv\n",
    )
    import_instructions()
    assert lessons(repo) == {
        "MANDATORY: NEVER edit `src/demo/settings.py` directly": Triggers(
            files=("src/demo/settings.py",)
        ),
        "MANDATORY: NEVER edit `uv.lock` directly": Triggers(files=("uv.lock",)),
    }


def test_a_vendored_dependencys_instruction_files_are_not_read(repo: Layout) -> None:
    """`vendor/x/AGENTS.md` is the dependency's own: with no argument it is reported,
    not read, and none of its rules lands on the vendored code."""
    write(repo, "vendor/otel/AGENTS.md", "- Keep telemetry resilient and loosely coupled.\n")
    write(repo, "vendor/otel/trace.go", "")
    write(repo, "AGENTS.md", "- Never edit `uv.lock` by hand.\n")
    report = import_instructions()
    assert lessons(repo) == {"Never edit `uv.lock` by hand.": Triggers(files=("uv.lock",))}
    assert [note["subject"] for note in report["not_carried"] if note["code"] == "vendored"] == [
        "vendor/otel/AGENTS.md"
    ]


def test_an_examples_own_instruction_file_is_not_read(repo: Layout) -> None:
    """`cookbook/teams/hitl/CLAUDE.md` (how to run one example) and an example agent's
    own prompt are for that example's users: with no argument they are reported, not
    read; `examples/AGENTS.md`, beside the examples, speaks of them all and is read."""
    write(repo, "cookbook/teams/hitl/CLAUDE.md", "- Set `OPENAI_API_KEY` first.\n")
    write(repo, "cookbook/teams/hitl/run.py", "")
    write(repo, "examples/agent/AGENTS.md", "- Always answer with one haiku.\n")
    write(repo, "examples/AGENTS.md", "- Never import from `src/demo/db.py` in an example.\n")
    write(repo, "examples/basic.py", "")
    report = import_instructions()
    assert list(lessons(repo)) == ["Never import from `src/demo/db.py` in an example."]
    left = [note for note in report["not_carried"] if note["code"] == "example"]
    assert [note["subject"] for note in left] == [
        "cookbook/teams/hitl/CLAUDE.md",
        "examples/agent/AGENTS.md",
    ]
    assert "lessons import instructions cookbook/teams/hitl/CLAUDE.md" in left[0]["detail"]


def test_a_table_under_a_bullet_and_the_folder_a_command_runs_in_are_no_rule_words(
    repo: Layout,
) -> None:
    """A table indented under a bullet is a table, not words of the bullet's rule; the
    folder a rule runs a command from is no file it is about."""
    write(
        repo,
        "AGENTS.md",
        "- Never open a PR against `main`.\n\n"
        "  | Branch | Role |\n  | --- | --- |\n  | `main` | release |\n\n"
        "- Run the model tests with `uv run pytest` from `src/demo/models/`.\n",
    )
    import_instructions()
    assert lessons(repo) == {
        "Never open a PR against `main`.": Triggers(commands=("gh pr create",))
    }


def test_a_rule_about_the_instruction_file_itself_takes_no_described_place(
    repo: Layout,
) -> None:
    """ "When rules for testing change, update this file AGENTS.md" is about keeping the
    instruction file up to date: not a rule on the test files its words mention; nor is
    "Ensure test coverage is at least 90%" (a change without tests breaks it)."""
    write(
        repo,
        "AGENTS.md",
        "## Testing\n\n"
        "- When rules for implementation and testing change, update this file AGENTS.md\n"
        "- Ensure test coverage for each file is at least 90%\n",
    )
    import_instructions()
    assert lessons(repo) == {}


def test_iterating_on_a_pull_request_is_no_pull_request_made(repo: Layout) -> None:
    """Rules under "Iterating on a pull request" are about a request already open."""
    write(
        repo,
        "AGENTS.md",
        "## Iterating on a pull request\n\n- Do not assume a reviewer is right or wrong.\n",
    )
    import_instructions()
    assert all(not t.commands for t in lessons(repo).values())


def test_a_language_the_rule_names_picks_its_tests(repo: Layout) -> None:
    """In a repo whose root manifest is a `package.json`, a rule on "Rust tests" (or under
    "Rust Testing") is about the Rust test sources, not the `*.test.ts` files; a rule on
    tests that names no language keeps those of the repo's root manifest."""
    write(repo, "package.json", "{}\n")
    write(repo, "web/a.test.ts", "test('a', () => {})\n")
    write(repo, "crates/x/Cargo.toml", "[package]\nname = 'x'\n")
    write(repo, "crates/x/src/lib.rs", "pub fn a() {}\n")
    write(repo, "crates/x/tests/a.rs", "#[test] fn a() {}\n")
    write(
        repo,
        "AGENTS.md",
        "## Rust Testing\n\n- Annotate new tests with `#[gtest]`.\n\n"
        "## Testing\n\n- Never use `waitFor` in tests.\n",
    )
    import_instructions()
    found = lessons(repo)
    assert found["Annotate new tests with `#[gtest]`."] == Triggers(files=("**/tests/**/*.rs",))
    assert not any(g.endswith(".rs") for g in found["Never use `waitFor` in tests."].files)


def test_a_rule_asking_for_tests_to_be_written_is_no_rule_on_test_files(repo: Layout) -> None:
    """ "Use a self-verification loop by writing unit tests" asks for new tests: no edit of
    a test file shows its mistake, whatever form the verb takes."""
    write(repo, "go.mod", "module example.com/x\n")
    write(repo, "pkg/a_test.go", "package pkg\n")
    write(
        repo,
        "AGENTS.md",
        "- You should try to use a self-verification loop by writing unit tests.\n"
        "- Never call `t.Skip` in tests.\n",
    )
    import_instructions()
    assert lessons(repo) == {
        "Never call `t.Skip` in tests.": Triggers(files=("**/*_test.go",)),
    }


def test_tests_named_beside_the_rest_of_the_code_are_no_kind_of_file(repo: Layout) -> None:
    """ "No log statements in tests or production code" is about all of the code: the test
    sources are not its place."""
    write(repo, "go.mod", "module example.com/x\n")
    write(repo, "pkg/a_test.go", "package pkg\n")
    write(
        repo,
        "AGENTS.md",
        "- No log statements (`fmt.Println`) in tests or production code.\n"
        "- Never call `t.Skip` in tests.\n",
    )
    import_instructions()
    assert lessons(repo) == {
        "Never call `t.Skip` in tests.": Triggers(files=("**/*_test.go",)),
    }


def test_a_nested_files_rule_on_running_a_command_is_not_scoped_to_its_folder(
    repo: Layout,
) -> None:
    """In `docs/AGENTS.md`, "Always use `make install`" is about how to run a command, not
    about editing the docs; "Format the pages with `prettier`" is about the pages."""
    write(repo, "Makefile", "install:\n\ttrue\n")
    write(repo, "docs/guide.md", "# Guide\n")
    write(
        repo,
        "docs/AGENTS.md",
        "- Always use `make install`.\n- Always format the pages with `prettier`.\n",
    )
    import_instructions()
    assert lessons(repo) == {
        "Always format the pages with `prettier`.": Triggers(files=("docs/**",)),
    }


def test_a_package_manager_swapped_for_another_fires_where_it_adds(repo: Layout) -> None:
    """ "Use `uv` instead of `pip`": the mistake is made where pip adds a dependency, not
    on every use of pip (a bare program is refused as broad), and not on uv."""
    write(
        repo,
        "AGENTS.md",
        "- Always use `uv` instead of `pip` for dependency management.\n"
        "- Ensure pnpm is used (not npm/yarn).\n"
        "- Never run `npm publish` by hand.\n",
    )
    import_instructions()
    assert lessons(repo) == {
        "Always use `uv` instead of `pip` for dependency management.": Triggers(
            commands=("pip install",)
        ),
        "Ensure pnpm is used (not npm/yarn).": Triggers(commands=("npm install", "yarn add")),
        "Never run `npm publish` by hand.": Triggers(commands=("npm publish",)),
    }


def test_a_rule_asking_for_a_kind_of_commit_does_not_fire_on_commits(repo: Layout) -> None:
    """Under "Fixup commits", "use an `amend!` commit instead" asks for a commit: a lesson
    on `git commit` would fire on the very commit it wants; a rule on the message fires."""
    write(
        repo,
        "AGENTS.md",
        "## Fixup commits\n\n"
        "- If the message became inaccurate, use an `amend!` commit instead.\n"
        "- Keep the subject line under 72 characters.\n",
    )
    import_instructions()
    assert lessons(repo) == {
        "Keep the subject line under 72 characters.": Triggers(commands=("git commit",)),
    }


def test_a_rule_asking_to_read_files_is_not_about_editing_them(repo: Layout) -> None:
    """ "Make sure to read the relevant tests in the `tests/` directory": the tests are
    context for the work, and no edit of them shows the mistake."""
    write(repo, "tests/test_a.py", "def test_a(): pass\n")
    write(repo, "examples/a.py", "print(1)\n")
    write(
        repo,
        "AGENTS.md",
        "- Make sure to read the relevant tests in the `tests/` directory.\n"
        "- Do a quick scan of `examples/` for related code.\n"
        "- Never import from `examples/` in the tests.\n",
    )
    import_instructions()
    assert set(lessons(repo)) == {"Never import from `examples/` in the tests."}


def test_a_rule_asking_for_a_sign_off_fires_only_on_a_commit_without_one(repo: Layout) -> None:
    """ "Always use `git commit -s`" is broken by a commit with no ``-s`` or
    ``--signoff``, never by a signed-off one; a rule forbidding the sign-off fires on
    every commit."""
    write(
        repo,
        "AGENTS.md",
        "- Always use `git commit -s` (DCO sign-off) when committing.\n"
        "- Do not add a sign-off to commits.\n",
    )
    import_instructions()
    found = lessons(repo)
    assert found["Always use `git commit -s` (DCO sign-off) when committing."] == Triggers(
        commands=(UNSIGNED_COMMIT,)
    )
    assert found["Do not add a sign-off to commits."] == Triggers(commands=("git commit",))
    unsigned = compile_command(UNSIGNED_COMMIT)
    examples = {
        "git commit -m 'fix: x'": True,
        "git commit -m 'a -s b'": True,  # the -s is the message's
        "git commit -ms": True,  # "s" is the message
        "git commit -Skey -m x": True,  # a GPG key, no sign-off
        "git commit --amend --no-edit": True,
        "git commit -s -m 'fix: x'": False,
        "git commit -sm 'x'": False,
        "git commit -as": False,
        "git commit -am 'x' -s": False,
        "git commit --signoff -m x": False,
        "git status": False,
    }
    for command, fires in examples.items():
        assert bool(unsigned.matches(command)) is fires, command


def test_a_rule_asking_for_tests_of_new_work_names_no_test_file(repo: Layout) -> None:
    """ "Bug fixes must include a regression test" asks for a test no edit of a test file
    shows missing; a rule for the test being added is about test files."""
    write(
        repo,
        "AGENTS.md",
        "- Bug fixes must include a regression test that fails without the fix.\n"
        "- All new functionality must include tests.\n"
        "- Adding a test: never share state between tests through package variables.\n",
    )
    import_instructions()
    found = lessons(repo)
    assert "All new functionality must include tests." not in found
    assert "Bug fixes must include a regression test that fails without the fix." not in found
    adding = found["Adding a test: never share state between tests through package variables."]
    assert adding.files == ("tests/**/*.py",)


def test_a_heading_that_says_a_rule_is_one(repo: Layout) -> None:
    """ "## Don't edit files under `docs/`" above why is a rule, the first sentence below
    it its reason; a heading naming a topic in title case, a lead-in, or a task above
    its numbered steps is none."""
    write(repo, "docs/guide.md", "# Guide\n")
    write(repo, "docs-master/guide.md", "# Guide\n")
    write(
        repo,
        "AGENTS.md",
        "## Don't edit files under `docs/`\n\n"
        "`docs/` is the documentation of the current release. Users read it as such.\n\n"
        "## Keep Docs Helpers Up To Date\n\n"
        "The helpers live in `docs-master/`.\n\n"
        "## Change the docs with care\n\n"
        "1. Edit `docs-master/guide.md`.\n2. Run the build.\n",
    )
    import_instructions()
    found = by_rule(repo)
    heading = found["Don't edit files under `docs/`."]
    assert heading.triggers == Triggers(files=("docs/**",))
    assert heading.rationale == "`docs/` is the documentation of the current release."
    assert not [rule for rule in found if rule.startswith(("Keep Docs", "Change the docs"))]


def test_bullets_naming_files_under_a_do_not_edit_heading(repo: Layout) -> None:
    """ "## Do Not Edit" above "- `*.pb.go`": do not edit them, wherever they are."""
    write(repo, "api/v1/trace.pb.go", "package v1\n")
    write(repo, "api/v1/trace.go", "package v1\n")
    write(repo, "AGENTS.md", "## Do Not Edit\n\n- `*.pb.go`\n")
    import_instructions()
    assert lessons(repo) == {"Do not edit `*.pb.go`": Triggers(files=("**/*.pb.go",))}
