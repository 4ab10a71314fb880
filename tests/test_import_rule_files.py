"""``lessons import cursor|copilot|kiro|claude-rules`` on fixtures written from each doc."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from lessons_core.store.files import load_graph
from lessons_core.store.layout import Layout
from lessons_core.store.model import Lesson
from lessons_core.store.topics import load_topics
from tests.conftest import run

FIXTURES = Path(__file__).parent / "fixtures" / "rule_files"


# The sources the fixtures' globs are about: a rule file's glob that matches no file of
# the repo is no trigger (it could never fire).
SOURCES = (
    "src/app.ts",
    "src/components/menu.ts",
    "src/components/menu.tsx",
    "src/components/menu.test.tsx",
    "src/util.test.ts",
    "e2e/login.spec.ts",
    "components/button.tsx",
    "app/models/user.rb",
    "app/api/users.ts",
    "src/api/errors.ts",
    "tests/api/users.test.ts",
)


def install(layout: Layout, fmt: str) -> None:
    """Copy the format's fixture files into the repo at their conventional location,
    beside the sources their globs name."""
    shutil.copytree(FIXTURES / fmt, layout.root, dirs_exist_ok=True)
    for name in SOURCES:
        (layout.root / name).parent.mkdir(parents=True, exist_ok=True)
        (layout.root / name).write_text("")


def import_json(fmt: str, *args: str) -> dict[str, Any]:
    result = run("import", fmt, *args, "--json")
    assert result.exit_code == 0, result.output
    assert result.stderr == ""
    data: dict[str, Any] = json.loads(result.stdout)
    return data


def by_rule(layout: Layout) -> dict[str, Lesson]:
    return {lesson.rule: lesson for lesson in load_graph(layout).lessons.values()}


def codes(report: dict[str, Any], kind: str) -> set[tuple[str, str]]:
    return {(note["subject"], note["code"]) for note in report[kind]}


def test_cursor_rules(repo: Layout) -> None:
    """Cursor: comma and list globs, braces, nested bullets, alwaysApply, descriptions."""
    install(repo, "cursor")
    report = import_json("cursor")
    lessons = by_rule(repo)
    assert len(lessons) == 6
    unions = lessons["Prefer discriminated unions over enums."]
    assert unions.triggers.files == ("src/**/*.ts", "src/**/*.tsx")
    assert unions.topics == ("typescript",)
    assert (
        unions.rationale == "Enums compile to runtime objects.; Unions narrow in switch statements."
    )
    assert unions.evidence == ("import:.cursor/rules/typescript.mdc",)
    hooks = lessons["Read data through hooks in src/hooks/, never with fetch in a component."]
    assert hooks.triggers.files == ("src/components/**/*.tsx",)  # where components are
    assert hooks.topics == ("frontend-components",)
    core = lessons[
        "This repository is a pnpm workspace; run every script through pnpm from the root, "
        "never with npm."
    ]
    assert core.triggers.is_empty()
    assert core.always  # alwaysApply: true, in every request there, at session start here
    assert (".cursor/rules/project-core.mdc", "no-file-scope") in codes(report, "translated")
    # The lead-in above the list goes with its bullets; the heading names the topic
    assert codes(report, "not_carried") == {
        (".cursor/rules/typescript.mdc", "code-block"),
        (".cursor/rules/typescript.mdc", "heading"),
    }
    summaries = {topic.id: topic.summary for topic in load_topics(repo).values()}
    assert summaries == {
        "typescript": "TypeScript conventions for the web app",
        "frontend-components": "React components",
    }


def test_copilot_instructions(repo: Layout) -> None:
    """Copilot: applyTo lists, '**' as no file scope, excludeAgent reported."""
    install(repo, "copilot")
    report = import_json("copilot")
    lessons = by_rule(repo)
    assert len(lessons) == 5
    factories = lessons[
        "Create fixtures with the factories in test/factories, not with literal objects."
    ]
    assert factories.triggers.files == ("**/*.test.ts", "**/*.spec.ts")
    assert factories.topics == ("tests",)
    models = lessons["Keep callbacks free of network calls; enqueue a job instead."]
    assert models.triggers.files == ("app/models/**/*.rb",)
    assert codes(report, "not_carried") == {
        (".github/instructions/tests.instructions.md", "frontmatter"),
        (".github/instructions/ruby-models.instructions.md", "heading"),
    }
    english = "Answer in British English and keep commit messages in the imperative mood."
    assert lessons[english].always  # applyTo: "**"
    assert load_topics(repo)["tests"].summary == "How tests are written here"


def test_kiro_steering(repo: Layout) -> None:
    """Kiro: fileMatch with one pattern or a list; always and manual files noted."""
    install(repo, "kiro")
    report = import_json("kiro")
    lessons = by_rule(repo)
    assert lessons["Version every public endpoint under /v1."].triggers.files == ("app/api/**/*",)
    assert lessons["Export components as named exports only."].triggers.files == (
        "components/**/*.tsx",
        "**/*.test.tsx",
    )
    # Each sentence of prose is judged: the description stays in the file, the rule comes
    orm = lessons["Add no other ORM."]
    assert orm.triggers.is_empty()
    assert orm.always  # inclusion: always
    assert "The app is built with Next.js and talks to Postgres through Prisma." not in lessons
    # inclusion: manual, naming no file or command: no trigger could recall it here
    assert codes(report, "not_carried") == {
        (".kiro/steering/release.md", "no-trigger"),
        (".kiro/steering/tech.md", "description"),
        (".kiro/steering/tech.md", "heading"),
        (".kiro/steering/api-standards.md", "heading"),
    }
    assert "inclusion: manual" in " ".join(n["detail"] for n in report["not_carried"])
    assert "Tag releases from main only, after the changelog is merged." not in lessons


def test_claude_rules(repo: Layout) -> None:
    """Claude Code: paths as a block list or one braced pattern, recursive folders."""
    install(repo, "claude-rules")
    report = import_json("claude-rules")
    lessons = by_rule(repo)
    assert lessons["Validate input at every endpoint before processing it."].triggers.files == (
        "src/api/**/*.ts",
        "tests/api/**/*.test.ts",
    )
    react = lessons["Use function components with hooks; no class components."]
    assert react.triggers.files == ("src/**/*.tsx",)
    assert react.topics == ("frontend-react",)
    check = lessons["Run `make check` before proposing a commit."]
    assert check.triggers.commands == ("git commit",)  # where it is forgotten, not make check
    assert not check.always
    assert codes(report, "not_carried") == {
        (".claude/rules/api.md", "heading"),
        (".claude/rules/general.md", "heading"),
    }
    assert codes(report, "translated") == {
        (".claude/rules/frontend/react.md", "glob"),
        (".claude/rules/general.md", "no-file-scope"),
    }


@pytest.mark.parametrize("fmt", ["cursor", "copilot", "kiro", "claude-rules"])
def test_second_import_changes_nothing(repo: Layout, fmt: str) -> None:
    """Importing the same files again leaves every byte and mtime as it was."""
    install(repo, fmt)
    first = import_json(fmt)
    before = {p: (p.read_bytes(), p.stat().st_mtime_ns) for p in repo.base.rglob("*.json")}
    second = import_json(fmt)
    after = {p: (p.read_bytes(), p.stat().st_mtime_ns) for p in repo.base.rglob("*.json")}
    assert after == before
    assert sorted(second["lessons"]["unchanged"]) == sorted(first["lessons"]["created"])
    assert second["lessons"]["created"] == second["lessons"]["updated"] == []


def test_dry_run_writes_nothing(repo: Layout) -> None:
    """``--dry-run`` counts what would be written and writes no lesson or topic."""
    install(repo, "cursor")
    result = run("import", "cursor", "--dry-run")
    assert result.exit_code == 0
    assert result.stdout.startswith("would import ")
    assert "6 lessons (6 new, 0 updated, 0 unchanged)" in result.stdout
    assert load_graph(repo).lessons == {}
    assert not repo.topics_dir.exists()


def test_one_file_as_path(repo: Layout) -> None:
    """PATH may name a single rule file."""
    install(repo, "claude-rules")
    report = import_json("claude-rules", ".claude/rules/frontend/react.md")
    assert len(report["lessons"]["created"]) == 1
    assert by_rule(repo)["Use function components with hooks; no class components."].topics == (
        "react",
    )


def test_existing_rule_gains_the_triggers(repo: Layout) -> None:
    """A rule already captured with the same wording gets the file's globs merged in."""
    added = run(
        "add",
        "Export components as named exports only",
        "--topic",
        "style",
        "--trigger-keyword",
        "named export",
    )
    assert added.exit_code == 0, added.output
    install(repo, "kiro")
    report = import_json("kiro", ".kiro/steering/components.md")
    lesson = load_graph(repo).lessons[added.stdout.strip()]
    assert report["lessons"]["updated"] == [lesson.id]
    assert lesson.topics == ("style", "components")
    assert lesson.triggers.keywords == ("named export",)
    assert lesson.triggers.files == ("components/**/*.tsx", "**/*.test.tsx")


def test_missing_default_folder_is_a_user_error(repo: Layout) -> None:
    """Without PATH and without the conventional folder, exit 1 saying what to pass."""
    result = run("import", "copilot")
    assert result.exit_code == 1
    assert result.stdout == ""
    assert ".github/instructions does not exist; pass the folder or file" in result.stderr


def test_unreadable_frontmatter_skips_the_file(repo: Layout) -> None:
    """A file whose frontmatter cannot be read is reported and the others still import."""
    install(repo, "claude-rules")
    (repo.root / ".claude/rules/broken.md").write_text("---\npaths: [a\nno colon\n---\n- x\n")
    report = import_json("claude-rules")
    assert (".claude/rules/broken.md", "file-unreadable") in codes(report, "not_carried")
    assert len(report["lessons"]["created"]) == 4


def test_a_gated_rule_imported_again_stays_gated(repo: Layout) -> None:
    """An import merges a rule into its gated twin as ``lessons add`` does: the twin gains
    the file's globs and keeps its gate (one merge, ``Lesson.readded``, serves both)."""
    added = run(
        "add", "Export components as named exports only", "--topic", "style", "--gate",
        "--trigger-keyword", "named export",
    )  # fmt: skip
    assert added.exit_code == 0, added.output
    install(repo, "kiro")
    import_json("kiro", ".kiro/steering/components.md")
    lesson = load_graph(repo).lessons[added.stdout.strip()]
    assert lesson.gate
    assert lesson.triggers.files == ("components/**/*.tsx", "**/*.test.tsx")


def test_imported_rules_take_ids_as_lessons_add_does(repo: Layout) -> None:
    """Rules that begin alike get the ids ``lessons add`` would give: the next numbered
    variant of an id already in the store (never reused) for a rule saying the opposite,
    and a longer one for a rule whose further words tell it apart."""
    steering = repo.root / ".kiro" / "steering"
    steering.mkdir(parents=True)
    added = run("add", "Keep handlers small and pure", "--topic", "handlers", "--trigger-keyword",
                "request handler")  # fmt: skip
    assert added.stdout.strip() == "handlers-small-pure", added.output
    (steering / "handlers.md").write_text(
        "- Never keep handlers small and pure, always.\n"
        "- Keep handlers small and pure, free of network calls.\n"
    )
    report = import_json("kiro", ".kiro/steering/handlers.md")
    assert sorted(report["lessons"]["created"]) == [
        "handlers-small-pure-2",
        "handlers-small-pure-free-network",
    ]


@pytest.mark.parametrize("fmt", ["cursor", "copilot", "kiro", "claude-rules"])
def test_every_imported_lesson_passes_validate(repo: Layout, fmt: str) -> None:
    """No lesson comes in that `lessons validate` then rejects: a rule its source applied
    to every request is always-on, not an untriggered lesson that can never be recalled
    (L106)."""
    install(repo, fmt)
    import_json(fmt)
    checked = run("validate", "--format", "json")
    assert checked.exit_code == 0, checked.stdout
    found = json.loads(checked.stdout)["findings"]
    assert [f for f in found if f["severity"] == "error"] == []
    assert not {f["code"] for f in found} & {"L106", "L401"}


def test_always_rules_past_the_budget_are_not_carried(repo: Layout) -> None:
    """Always-on lessons beyond always_max_tokens would never reach the agent: they stay
    in their source, reported with the setting to raise; the ones that fit come in."""
    repo.config_path.write_text('{"always_max_tokens": 100}\n')
    rules = repo.root / ".claude" / "rules"
    rules.mkdir(parents=True)
    (rules / "style.md").write_text(
        "- Write docstrings in the imperative mood, each line under seventy characters.\n"
        "- Answer in British English in every reply and every comment you write.\n"
        "- Prefer small pull requests that change one thing and say why they do it.\n"
    )
    report = import_json("claude-rules")
    always = [lesson.rule for lesson in by_rule(repo).values() if lesson.always]
    cut = [note for note in report["not_carried"] if note["code"] == "always-budget"]
    assert 1 <= len(always) < 3  # room for some, not all (the first by date, then id)
    assert len(cut) == 3 - len(always)
    carried = [note for note in report["translated"] if note["code"] == "no-file-scope"]
    assert len(carried) == len(always)  # a rule cut is reported once, as not carried
    assert "always_max_tokens (100)" in cut[0]["detail"]
    checked = run("validate", "--strict", "--format", "json")
    assert "L401" not in {f["code"] for f in json.loads(checked.stdout)["findings"]}


def test_rule_whose_every_glob_is_lost_gets_no_untriggered_lesson(repo: Layout) -> None:
    """A Cursor rule whose only glob can never select a file ('#' is a comment in a
    gitignore-style glob) keeps no scope: its bullet that names nothing is reported as not
    carried, and one that names a file of the repo is triggered by it. Neither is written
    with no trigger, which validate would reject (L106)."""
    rules = repo.root / ".cursor" / "rules"
    rules.mkdir(parents=True)
    (repo.root / "src" / "app.py").write_text("")
    (rules / "gen.mdc").write_text(
        "---\nglobs: #\n---\n- Regenerate generated code.\n- Regenerate src/app.py after edits.\n"
    )
    report = import_json("cursor")
    lessons = by_rule(repo)
    assert list(lessons) == ["Regenerate src/app.py after edits."]
    assert lessons["Regenerate src/app.py after edits."].triggers.files == ("src/app.py",)
    lost = [n["detail"] for n in report["not_carried"] if n["code"] == "no-trigger"]
    assert len(lost) == 1
    assert "none of its globs can select a file" in lost[0]
    checked = run("validate", "--format", "json")
    assert checked.exit_code == 0, checked.stdout
    assert "L106" not in {f["code"] for f in json.loads(checked.stdout)["findings"]}


def test_a_rule_files_bullets_are_judged_and_a_glob_of_no_file_is_no_trigger(
    repo: Layout,
) -> None:
    """A rule file's bullets are judged as an instruction file's are: what a helper has
    or uses describes it, and stays in the file with why. A glob that matches no file of
    the repo is reported, never written: it could never fire."""
    install(repo, "cursor")
    (repo.root / ".cursor/rules/helpers.mdc").write_text(
        "---\nglobs: src/**/*.test.tsx, packages/gone/**/*.test.tsx\n---\n"
        "# Test helpers\n\n"
        "- Has built-in test database and resolvers\n"
        "- Uses `trpc.Provider` with the legacy pattern\n"
        "- NEVER import from other packages' helpers.\n"
    )
    report = import_json("cursor", ".cursor/rules/helpers.mdc")
    lessons = by_rule(repo)
    assert lessons["NEVER import from other packages' helpers."].triggers.files == (
        "src/**/*.test.tsx",
    )
    assert "Has built-in test database and resolvers" not in lessons
    assert any(
        n["code"] == "description" and "Has built-in test database" in n["detail"]
        for n in report["not_carried"]
    )
    assert any(
        n["code"] == "glob" and "packages/gone/**/*.test.tsx" in n["detail"]
        for n in report["not_carried"]
    )


def test_a_rule_on_code_skips_the_prose_pages_its_files_globs_add(repo: Layout) -> None:
    """A rule file scoped to code and to Markdown pages ("**/*.ts, **/*.md", so its
    rules come with the docs' code samples): a rule on code fires on the code; one that
    speaks of docs keeps every glob."""
    install(repo, "cursor")
    (repo.root / "docs/guide.md").write_text("# Guide\n")
    (repo.root / ".cursor/rules/style.mdc").write_text(
        "---\nglobs: src/**/*.ts, docs/**/*.md\n---\n"
        "- AVOID destructuring nullish nested properties.\n"
        "- Keep the code samples of the docs short.\n"
    )
    import_json("cursor", ".cursor/rules/style.mdc")
    lessons = by_rule(repo)
    assert lessons["AVOID destructuring nullish nested properties."].triggers.files == (
        "src/**/*.ts",
    )
    assert lessons["Keep the code samples of the docs short."].triggers.files == (
        "src/**/*.ts",
        "docs/**/*.md",
    )


def test_a_rule_on_react_components_keeps_the_files_jsx_globs(repo: Layout) -> None:
    """A rule file scoped to `**/*.ts, **/*.tsx`: a rule on components or JSX fires on
    the `.tsx` files, where components are written; a rule on all code keeps both."""
    install(repo, "cursor")
    (repo.root / "src/view.tsx").write_text("export const V = () => null\n")
    (repo.root / ".cursor/rules/style.mdc").write_text(
        "---\nglobs: src/**/*.ts, src/**/*.tsx\n---\n"
        "- Prefer function components.\n"
        "- Use JSX runtime (no need to import React for JSX).\n"
        "- AVOID non-null assertions.\n"
    )
    import_json("cursor", ".cursor/rules/style.mdc")
    lessons = by_rule(repo)
    assert lessons["Prefer function components."].triggers.files == ("src/**/*.tsx",)
    jsx = lessons["Use JSX runtime (no need to import React for JSX)."]
    assert jsx.triggers.files == ("src/**/*.tsx",)
    assert lessons["AVOID non-null assertions."].triggers.files == ("src/**/*.ts", "src/**/*.tsx")


def test_a_rewording_of_a_lesson_already_there_is_that_lesson(repo: Layout) -> None:
    """A rule another import (or a person) already wrote, said in other words in this
    file, is merged into that lesson, as one import merges its own rewordings: its
    triggers join, and no near-copy is written for validate to report (L202)."""
    install(repo, "cursor")
    (repo.root / ".cursor/rules/a.mdc").write_text(
        "---\nglobs: src/**/*.ts\n---\n- Import `@testing-library/react` for rendering.\n"
    )
    (repo.root / ".cursor/rules/b.mdc").write_text(
        "---\nglobs: tests/**/*.ts\n---\n"
        "- Import `@testing-library/react` for rendering utilities.\n"
    )
    import_json("cursor", ".cursor/rules/a.mdc")
    report = import_json("cursor", ".cursor/rules/b.mdc")
    (lesson,) = by_rule(repo).values()
    assert lesson.triggers.files == ("src/**/*.ts", "tests/**/*.ts")
    assert lesson.evidence == ("import:.cursor/rules/a.mdc", "import:.cursor/rules/b.mdc")
    assert report["lessons"]["updated"] == [lesson.id]
    assert (".cursor/rules/b.mdc", "near-duplicate-merged") in codes(report, "translated")


def test_a_rule_file_rule_on_a_command_fires_on_the_command(repo: Layout) -> None:
    """A rule file scoped to `**/*.py` that says how to commit: a command is run from
    anywhere, so the rule fires on the commit, not on the Python files; one on git work
    that names no command stays in the file."""
    install(repo, "cursor")
    (repo.root / "src/app.py").write_text("")
    (repo.root / ".cursor/rules/flow.mdc").write_text(
        "---\nglobs: **/*.py\n---\n"
        "- Before committing, run `ruff check` on the changed files.\n"
        "- Keep functions short.\n"
        "- Keep commits focused on a single change.\n"
    )
    import_json("cursor", ".cursor/rules/flow.mdc")
    lessons = by_rule(repo)
    assert lessons[
        "Before committing, run `ruff check` on the changed files."
    ].triggers.commands == ("git commit",)
    assert lessons["Keep functions short."].triggers.files == ("**/*.py",)
    # git work that names no command: no Python file is where it goes wrong
    assert "Keep commits focused on a single change." not in lessons
