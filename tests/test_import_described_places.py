"""Rules that name their place in words (``importers.described_places``) and the wording
of real projects' instruction files that an import reads in context: nested bullets
under a "Validation Steps:" bullet, pull requests, purpose clauses, command entries."""

from __future__ import annotations

from pathlib import Path

import pytest

from lessons_core.importers.languages import main_language
from lessons_core.importers.normative import Left, left_reason
from lessons_core.matching.commands import compile_command
from lessons_core.store.files import load_graph
from lessons_core.store.layout import Layout
from lessons_core.store.model import Lesson, Triggers
from lessons_core.store.project import init_project
from tests.conftest import import_instructions, make_repo

SOURCES = {
    "pyproject.toml": "[project]\nname = 'demo'\n",
    "src/demo/app.py": "x = 1\n",
    "src/demo/db.py": "x = 1\n",
    "src/demo/generated/client.py": "x = 1\n",
    "src/demo/generated/models.py": "x = 1\n",
    "tests/test_app.py": "def test(): ...\n",
    "tests/test_db.py": "def test(): ...\n",
    "tests/snapshots/app.snap": "x\n",
    "tests/fixtures/data.json": "{}\n",
    ".github/workflows/ci.yml": "on: push\njobs: {}\n",
    "docs/index.md": "# demo\n",
    "README.md": "# demo\n",
}


def imported(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    agents: str,
    files: dict[str, str] = SOURCES,
    where: str = "AGENTS.md",
) -> dict[str, Lesson]:
    """The lessons ``lessons import instructions`` makes of ``agents`` (the file
    ``where``) in a repo of ``files`` (a Python one unless said), by rule."""
    layout, _ = init_project(make_repo(tmp_path / "repo", {**files, where: agents}))
    monkeypatch.chdir(layout.root)
    import_instructions()
    return by_rule(layout)


def by_rule(layout: Layout) -> dict[str, Lesson]:
    return {lesson.rule: lesson for lesson in load_graph(layout).lessons.values()}


def test_a_kind_of_file_said_in_words_is_the_trigger(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Snapshot files, a `generated` folder, GitHub Actions workflows: each the repo's
    files of that kind."""
    lessons = imported(
        tmp_path,
        monkeypatch,
        "- Never edit snapshot files by hand.\n"
        "- Avoid editing `generated` subdirectories.\n"
        "- When editing GitHub Actions workflows, pin every action to a commit.\n",
    )
    assert lessons["Never edit snapshot files by hand."].triggers == Triggers(files=("**/*.snap",))
    assert lessons["Avoid editing `generated` subdirectories."].triggers == Triggers(
        files=("**/generated/**",)
    )
    workflows = "When editing GitHub Actions workflows, pin every action to a commit."
    assert lessons[workflows].triggers == Triggers(files=(".github/workflows/**",))


def test_re_snapshot_and_inline_snapshots_name_no_snapshot_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """ "Always re-snapshot after page changes" asks for a browser step, and inline
    snapshots live in the test source: neither is about the snapshot files, so each
    names no place, and a root file's rule naming none stays."""
    lessons = imported(
        tmp_path,
        monkeypatch,
        "- Always re-snapshot after page changes.\n"
        "- For inline snapshots, keep each example close to its `# snapshot` block.\n",
    )
    assert "Always re-snapshot after page changes." not in lessons
    assert "For inline snapshots, keep each example close to its `# snapshot` block." not in lessons


def test_the_lockfile_is_the_main_languages_lock_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """ "the lockfile" in what a rule forbids is the lock file of the repo's main
    language (a Rust repo's `uv.lock` pins other tooling), and the command the rule asks
    for instead is no trigger."""
    files = {"Cargo.toml": "[workspace]\n", "Cargo.lock": "x\n", "uv.lock": "x\n"}
    rule = "NEVER update all dependencies in the lockfile and ALWAYS use `cargo update --precise`."
    lessons = imported(tmp_path, monkeypatch, f"- {rule}\n", files)
    assert lessons[rule].triggers == Triggers(files=("Cargo.lock",))


JS_TESTS = {
    "package.json": "{}\n",
    "src/app.ts": "x\n",
    "src/app.test.ts": "x\n",
    "src/view.tsx": "x\n",
    "src/view.test.tsx": "x\n",
    "packages/a/test/units/index.test.js": "x\n",
    "packages/a/test/build.test.js": "x\n",
}


@pytest.mark.parametrize(
    ("heading", "rule", "glob"),
    [
        ("React Component Testing", "Assert output with `lastFrame()`.", "**/*.test.tsx"),
        ("Unit Testing", "Do not duplicate existing helpers.", "**/test/units/**"),
    ],
)
def test_tests_of_one_kind_are_their_files(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, heading: str, rule: str, glob: str
) -> None:
    """Under "React Component Testing" a rule is about the tests that render components
    (`*.test.tsx`); under "Unit Testing", in a repo that keeps its unit tests in
    `test/units/`, about that folder: not every test file."""
    lessons = imported(tmp_path, monkeypatch, f"## {heading}\n\n- {rule}\n", JS_TESTS)
    assert lessons[rule].triggers == Triggers(files=(glob,))


def test_rules_about_tests_land_on_the_test_sources(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A rule speaking of tests, or one under a "Testing" heading, is about the test
    sources; one asking for new tests or for a command run, and one under "Running
    tests", name no place."""
    lessons = imported(
        tmp_path,
        monkeypatch,
        "## Testing\n\n"
        "- Use `anyio`, not `asyncio`.\n"
        "- Do not use `Test` prefixed classes.\n"
        "- Add tests for every bug fix.\n\n"
        "## Running tests\n\n"
        "- Prefer the in-memory client.\n",
    )
    on_tests = Triggers(files=("tests/**/*.py",))
    assert lessons["Use `anyio`, not `asyncio`."].triggers == on_tests
    assert lessons["Do not use `Test` prefixed classes."].triggers == on_tests
    assert "Add tests for every bug fix." not in lessons
    assert "Prefer the in-memory client." not in lessons


TESTS_IN_A_FOLDER = {
    "package.json": "{}\n",
    **{f"packages/core/src/part{n}.ts": "x\n" for n in range(40)},
    "packages/core/package.json": "{}\n",
    "examples/basic/basic.test.ts": "x\n",
    **{f"test/core/case{n}.test.ts": "x\n" for n in range(12)},
}


def test_tests_kept_in_one_folder_are_that_folders(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A repo that keeps nearly all its tests in `test/`: a rule on tests is about
    those, not an example's test file."""
    rule = "Never mutate committed fixture files from a test."
    lessons = imported(tmp_path, monkeypatch, f"## Writing Tests\n\n- {rule}\n", TESTS_IN_A_FOLDER)
    assert lessons[rule].triggers == Triggers(files=("test/**/*.test.ts",))


def test_a_manifest_named_in_words_is_each_copy_of_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """ "in package.json scripts", without backticks, names the manifests: under a
    testing heading the rule is still about them, not the test files."""
    rule = "Never use unix-only commands like `rm -rf` in package.json scripts."
    lessons = imported(tmp_path, monkeypatch, f"## Writing Tests\n\n- {rule}\n", TESTS_IN_A_FOLDER)
    assert lessons[rule].triggers == Triggers(files=("**/package.json",))


@pytest.mark.parametrize(
    ("manifests", "language"),
    [
        (["Cargo.toml", "package.json", "pyproject.toml"], "rust"),
        (["go.mod", "package.json"], "go"),
        (["pyproject.toml", "package.json"], "python"),
        (["package.json"], "javascript"),
        (["docs/pyproject.toml"], None),
    ],
)
def test_the_main_language_is_the_root_manifests(manifests: list[str], language: str) -> None:
    """A Rust or Go project's package.json is tooling; a manifest below the root is not
    the project's."""
    assert main_language(manifests) == language


def test_bullets_nested_under_a_bullet_ending_in_a_colon_are_rules(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """ "- **Validation Steps**:" heads its nested bullets; each is read as a rule, and
    a pull request said in words is ``gh pr create``."""
    lessons = imported(
        tmp_path,
        monkeypatch,
        "- **Validation Steps**:\n"
        "  - Ensure all tests pass locally before pushing changes.\n"
        "  - Lint code before submitting PRs.\n",
    )
    assert lessons["Ensure all tests pass locally before pushing changes."].triggers == Triggers(
        commands=("git push",)
    )
    assert lessons["Lint code before submitting PRs."].triggers == Triggers(
        commands=("gh pr create",)
    )


def test_a_nested_bullet_that_is_a_rule_is_a_lesson_too(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Below "Do NOT edit `README.md` directly", the nested "Edit `docs/README.src.md`."
    is a rule of its own; "Commit both files." leans on it and stays rationale."""
    files = {**SOURCES, "docs/README.src.md": "x\n"}
    agents = (
        "- **README.md**: Do NOT edit `README.md` directly. It is generated.\n"
        "  - Edit `docs/README.src.md`.\n"
        "  - Commit both files.\n"
    )
    lessons = imported(tmp_path, monkeypatch, agents, files)
    assert lessons["Edit `docs/README.src.md`."].triggers == Triggers(files=("docs/README.src.md",))
    assert "Commit both files." not in lessons
    assert len(lessons) == 2


def test_changesets_are_the_changeset_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """ "changesets", or "a changeset", are the files in `.changeset/`; a skill called
    "changeset" is no place."""
    files = {**SOURCES, ".changeset/config.json": "{}\n", ".changeset/README.md": "x\n"}
    lessons = imported(
        tmp_path,
        monkeypatch,
        "- Do not add minor/major changesets.\n- Load changeset to choose the release level.\n",
        files,
    )
    assert lessons["Do not add minor/major changesets."].triggers == Triggers(
        files=(".changeset/**",)
    )
    assert "Load changeset to choose the release level." not in lessons


def test_after_pulling_is_git_pull(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """ "after pulling remote changes" names the moment the mistake is made: `git pull`."""
    rule = "Run `vp install` after pulling remote changes."
    lessons = imported(tmp_path, monkeypatch, f"- {rule}\n")
    assert lessons[rule].triggers == Triggers(commands=("git pull",))


def test_a_nested_entry_under_a_bullet_lead_in_is_judged_alone(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Under "Use Conventional Commits:", "`test`: adding or fixing tests" names a commit
    type: no rule, and no "Use Conventional Commits: `test`: ..." made of the two."""
    lessons = imported(
        tmp_path,
        monkeypatch,
        "- Use Conventional Commits:\n  - `feat`: a new feature\n  - `test`: adding tests\n",
    )
    assert not any("adding tests" in rule for rule in lessons)


@pytest.mark.parametrize(
    ("text", "why"),
    [
        ("The test script already sets `CI=1` to avoid watch mode.", Left.DESCRIPTION),
        ("Run all parser coverage: `cargo coverage parser`", Left.SETUP),
        ("Run integration tests: `cargo test -p oxc_semantic --test integration`.", Left.SETUP),
        ("Snapshot testing with `insta`", Left.DESCRIPTION),
        ("`vitest.config.ts`: Test runner configuration.", Left.DESCRIPTION),
        ("Test files: `js.rs`, `ts.rs`, `sourcemap.rs`", Left.DESCRIPTION),
        ("Use judgment.", Left.CONTEXT),
        ("Use", Left.CONTEXT),
        ("list + scrollbar → `joinScrollbar`;", Left.DESCRIPTION),
    ],
)
def test_purposes_entries_and_names_are_no_rules(text: str, why: Left) -> None:
    """ "to avoid" says why a thing is so; "What it does: `command`" is an entry of a list
    of commands; a verb-looking noun before a gerund, a file list's entry and a label of
    two words name things."""
    assert left_reason(text) is why


def test_a_rule_ending_in_a_colon_above_its_examples_is_the_rule(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """ "Use the shared helpers instead of re-deriving widths:" above a list of helpers
    (each "what → `helper`", no rule) is the rule; the list is what it means, and no
    entry of it becomes a lesson."""
    agents = (
        "- Use the shared helpers instead of re-deriving widths:\n"
        "  - titles → `common.DialogTitle` (truncates instead of wrapping);\n"
        "  - list + scrollbar → `joinScrollbar`;\n"
    )
    lessons = imported(tmp_path, monkeypatch, agents, where="src/demo/AGENTS.md")
    rule = "Use the shared helpers instead of re-deriving widths."
    assert list(lessons) == [rule]
    assert lessons[rule].triggers == Triggers(files=("src/demo/**/*.py",))
    assert "joinScrollbar" in (lessons[rule].rationale or "")


def test_a_requirements_heading_of_rules_is_no_set_up(tmp_path: Path) -> None:
    """ "Requirements" names a set-up; "Requirements of all contributions" heads rules."""
    rule = "When you submit a PR, include the PR template."
    assert left_reason(rule, "Requirements") is Left.SETUP
    assert left_reason(rule, "Requirements of all contributions") is None


@pytest.mark.parametrize(
    "text",
    [
        "Keep views thin: business logic goes in `src/services/`.",
        "Mock Functions: Create with `vi.fn()`.",
        "`uv.lock`: never edit by hand.",
        "Avoid using `os.path` in new code.",
        "Never force-push.",
        "Commit using Conventional Commits.",
        "When adding tests, first examine existing tests to follow their conventions.",
        "Pay close attention to the mocks at the top of existing test files.",
    ],
)
def test_labels_and_entries_that_instruct_stay_rules(text: str) -> None:
    """A label that is a clause of its own, a rule after a label or a file's name, and a
    verb that takes a gerund are rules."""
    assert left_reason(text) is None


def test_a_rule_naming_a_path_that_is_not_there_gets_no_guessed_place(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """ "unit tests in `packages/<pkg>/test`" names its place as a path: no test glob is
    guessed for it; `async/await` is no path."""
    lessons = imported(
        tmp_path,
        monkeypatch,
        "## Testing\n\n"
        "- Keep unit tests in `lib/<pkg>/test` small.\n"
        "- Use `async/await` in tests.\n",
    )
    assert "Keep unit tests in `lib/<pkg>/test` small." not in lessons
    assert lessons["Use `async/await` in tests."].triggers == Triggers(files=("tests/**/*.py",))


DOCS_SITE = {
    "package.json": "{}\n",
    **{f"src/part{n}.ts": "x\n" for n in range(30)},
    **{f"docs/guide/page{n}.md": "# page\n" for n in range(6)},
    "docs/.vitepress/config.ts": "x\n",
    "docs/package.json": "{}\n",
}


def test_a_docs_folders_rule_on_page_content_is_about_its_pages(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """In `docs/AGENTS.md`, over a folder of mostly Markdown pages, a rule on what a
    page holds (a heading, a sample) is about the pages, not the site's configuration;
    one on the site as a whole keeps the folder."""
    rules = (
        "- Mark the version an API appeared in with `<Version>` in the heading.\n"
        "- Never leave a code sample without its language tag.\n"
        "- Keep the site's navigation short.\n"
    )
    lessons = imported(tmp_path, monkeypatch, rules, DOCS_SITE, where="docs/AGENTS.md")
    on_pages = Triggers(files=("docs/**/*.md",))
    assert (
        lessons["Mark the version an API appeared in with `<Version>` in the heading."].triggers
        == on_pages
    )
    assert lessons["Never leave a code sample without its language tag."].triggers == on_pages
    assert lessons["Keep the site's navigation short."].triggers == Triggers(files=("docs/**",))


def test_a_rule_on_running_tests_is_no_rule_on_the_test_sources(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """ "when running tests" is about the test command: the rule lands on no test file,
    and, naming no command of the repo, stays in its file."""
    rule = "Always include `-tags test_dep` when running tests."
    lessons = imported(tmp_path, monkeypatch, f"## Testing\n\n- {rule}\n")
    assert rule not in lessons


def test_a_rule_asking_for_an_option_fires_on_its_command_without_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """ "A bare `pnpm test` runs every package in watch mode; always pass `--run`": the
    lesson fires on a `pnpm test` with no `--run`, not on the one the rule asks for."""
    js = {"package.json": '{"name": "x"}\n', "src/a.ts": "export {}\n"}
    rule = (
        "A bare `pnpm test` or `pnpm doctest` runs every package in watch mode and will not "
        "exit; always pass `--run` and the specific test files covering your change."
    )
    lessons = imported(tmp_path, monkeypatch, f"## Testing\n\n{rule}\n", js)
    fired = [compile_command(p).matches for p in lessons[rule].triggers.commands]
    assert len(fired) == 2
    assert all(fires("pnpm test") or fires("pnpm doctest") for fires in fired)
    assert any(fires("cd pkg && pnpm test src/a.test.ts") for fires in fired)
    assert not any(fires("pnpm test --run src/a.test.ts") for fires in fired)
    assert not any(fires("pnpm doctest --run src/a.ts") for fires in fired)


STATED_HOME = {
    "package.json": '{"name": "x"}\n',
    "packages/core/src/a.ts": "export {}\n",
    "packages/core/test/a.test.ts": "export {}\n",
    "packages/core/test/utils.ts": "export {}\n",
    "packages/platform/node/test/b.test.ts": "export {}\n",
    "scripts/c.test.ts": "export {}\n",
}


def test_tests_are_where_the_file_says_they_are_kept(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """ "Test files are located in `packages/*/test/`": a rule on tests lands there, not on
    every `*.test.ts` of the repo; a rule naming the repo's own framework too. The file is
    in `.agents/`, which speaks for the whole repo."""
    agents = (
        "## Testing\n\n"
        "- Test files are located in `packages/*/test/`.\n"
        "- Use regular `it` for pure synchronous tests.\n"
        "- Do not use `expect` from Vitest; use `assert` from `@effect/vitest`.\n"
    )
    lessons = imported(tmp_path, monkeypatch, agents, STATED_HOME, where=".agents/AGENTS.md")
    home = Triggers(files=("packages/*/test/**",))
    assert lessons["Use regular `it` for pure synchronous tests."].triggers == home
    assert (
        lessons["Do not use `expect` from Vitest; use `assert` from `@effect/vitest`."].triggers
        == home
    )


def test_a_stated_test_folder_keeps_to_its_code(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """ "Tests live in `tests/` folder": its Python files, not the snapshots beside them."""
    agents = "Tests live in `tests/` folder.\n\n## Tests\n\n- Never mock the database in tests.\n"
    lessons = imported(tmp_path, monkeypatch, agents)
    assert lessons["Never mock the database in tests."].triggers == Triggers(
        files=("tests/**/*.py",)
    )


@pytest.mark.parametrize(
    "said",
    [
        "Type-level tests are in `packages/*/test/`.",
        "Tests are organized by provider under `packages/*/test/`.",
        "```\nTest files are located in `packages/*/test/`.\n```",
    ],
)
def test_only_a_plain_statement_says_where_tests_are_kept(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, said: str
) -> None:
    """One kind of tests, some of them, or a code block: no home for every test."""
    agents = f"{said}\n\n## Testing\n\n- Use regular `it` for pure synchronous tests.\n"
    lessons = imported(tmp_path, monkeypatch, agents, STATED_HOME)
    assert lessons["Use regular `it` for pure synchronous tests."].triggers.files != (
        "packages/*/test/**",
    )


def test_a_rule_on_running_the_test_suite_lands_on_no_test_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """ "Never run the whole test suite" is about a command, not the test sources; what a
    rule asks the agent to inspect is no place either."""
    rule = "Never run the whole test suite."
    inspect = "Inspect nearby implementation, tests, and pattern docs before editing."
    text = f"## Testing\n\n- {rule}\n- {inspect}\n"
    lessons = imported(tmp_path, monkeypatch, text, STATED_HOME)
    assert rule not in lessons or not lessons[rule].triggers.files
    # what the agent reads first is context, no place where a mistake is made
    assert inspect not in lessons or not lessons[inspect].triggers.files


def test_a_heading_naming_a_path_is_the_place_of_its_rules(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Under "### `tests/unit`" a rule that names no place is about that folder, one on
    snapshot files too (none lie there); one naming its own place keeps it; one asking
    for a command, or under a heading naming no path, gets none of it; a title naming
    the instruction file itself is no place."""
    files = {**SOURCES, "tests/unit/test_a.py": "", "tests/e2e/test_b.py": ""}
    agents = (
        "### `tests/unit`\n\n"
        "- Must not require a running server.\n"
        "- Never edit snapshot files by hand.\n"
        "- Keep `src/demo/db.py` free of network calls.\n"
        "- Run `pytest -x` first.\n\n"
        "### Unit tests\n\n"
        "- Prefer local fakes over real network calls.\n"
    )
    lessons = imported(tmp_path, monkeypatch, agents, files)
    assert lessons["Must not require a running server."].triggers == Triggers(
        files=("tests/unit/**",)
    )
    assert lessons["Never edit snapshot files by hand."].triggers.files == ("tests/unit/**",)
    assert lessons["Keep `src/demo/db.py` free of network calls."].triggers == Triggers(
        files=("src/demo/db.py",)
    )
    assert "Run `pytest -x` first." not in lessons
    fakes = lessons["Prefer local fakes over real network calls."].triggers.files
    assert "tests/unit/**" not in fakes
    titled = imported(
        tmp_path / "titled", monkeypatch, "# AGENTS.md\n\nKeep this file concise.\n", files
    )
    assert "Keep this file concise." not in titled
    # under "### `tests/`" a rule on test sources keeps them: they lie inside it
    mocks = "- Never mock the database in tests.\n"
    inner = imported(tmp_path / "inner", monkeypatch, f"### `tests/`\n\n{mocks}", files)
    assert inner["Never mock the database in tests."].triggers.files == ("tests/**/*.py",)


def test_a_folder_of_pages_and_their_images_speaks_of_its_pages(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`docs/AGENTS.md` over Mintlify pages, their images and one small script: its rules
    are about the pages; a site configured in code keeps the whole folder
    (``DOCS_SITE`` above)."""
    pages = {f"docs/{part}/page{n}.mdx": "# page\n" for part in ("guide", "api") for n in range(15)}
    images = {f"docs/images/shot{n}.png": "" for n in range(6)}
    files = {**SOURCES, **pages, **images, "docs/script.js": "x\n", "docs/docs.json": "{}\n"}
    files |= {f"src/demo/m{n}.py": "x = 1\n" for n in range(60)}  # the pages are not most of it
    rule = "Match the style of existing pages."
    lessons = imported(tmp_path, monkeypatch, f"- {rule}\n", files, where="docs/AGENTS.md")
    assert lessons[rule].triggers == Triggers(files=("docs/**/*.mdx", "docs/**/*.md"))


GO = {"go.mod": "module x\n", "svc/a.go": "package svc\n", "svc/a_test.go": "package svc\n"}
RUST = {"Cargo.toml": "[package]\nname = 'x'\n", "src/main.rs": "fn main() {}\n"}


@pytest.mark.parametrize(
    ("files", "rule", "fires_on", "not_on"),
    [
        (
            GO,
            "Always include `-tags test_dep` when running tests.",
            ["go test ./svc/...", "go test -v -run TestA ./svc"],
            ["go test -tags test_dep ./svc/...", "go test -tags=test_dep ./svc", "go build ./..."],
        ),
        (
            RUST,
            "Use `--bin deno` to build only the main binary.",
            ["cargo build", "cargo build --release"],
            ["cargo build --bin deno", "cargo test"],
        ),
    ],
)
def test_an_option_asked_for_in_words_fires_on_the_languages_command_without_it(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    files: dict[str, str],
    rule: str,
    fires_on: list[str],
    not_on: list[str],
) -> None:
    """In a Go or Rust repo "when running tests" is `go test` or `cargo test`, "to build"
    `go build` or `cargo build`: the rule fires on that command without the option it
    asks for, never on one with it."""
    lessons = imported(tmp_path, monkeypatch, f"## Working on it\n\n- {rule}\n", files)
    (pattern,) = lessons[rule].triggers.commands
    fires = compile_command(pattern).matches
    assert all(fires(command) for command in fires_on)
    assert not any(fires(command) for command in not_on)


def test_tests_kept_deep_in_one_folder_are_found_there(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """zod keeps nearly all its tests in `packages/zod/src/**/tests/`: a rule on tests
    lands in `packages/zod/src/`, not on the one test of a tooling package; tests spread
    over the repo keep every folder."""
    files = {
        "package.json": '{"name": "x"}\n',
        **{f"packages/zod/src/v4/tests/t{n}.test.ts": "" for n in range(12)},
        **{f"packages/zod/src/v3/tests/t{n}.test.ts": "" for n in range(12)},
        **{f"packages/zod/src/m{n}.ts": "" for n in range(30)},
        "packages/tooling/a.test.ts": "",
    }
    rule = "Keep added tests minimal and dense."
    lessons = imported(tmp_path, monkeypatch, f"## Testing\n\n- {rule}\n", files)
    assert lessons[rule].triggers.files == ("packages/zod/src/**/*.test.ts",)
    spread = {**files, **{f"apps/a{n}/a.test.ts": "" for n in range(6)}}
    lessons = imported(tmp_path / "spread", monkeypatch, f"## Testing\n\n- {rule}\n", spread)
    assert lessons[rule].triggers.files == ("**/*.test.ts",)
