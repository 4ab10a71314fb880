"""``lessons review`` over real git histories: adds, edits, deprecations, removals."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from lessons_core.review.markdown import code, text
from lessons_core.store.layout import Layout
from tests.conftest import git, make_repo, run
from tests.lesson_graphs import make_project, write_lesson


def _main_history(root: Path) -> Layout:
    """main: five lessons committed."""
    layout = make_project(root)
    write_lesson(layout, "db-a", "Run alembic upgrade head before tests.", files=["src/db/**"])
    write_lesson(layout, "db-b", "Never edit migrations by hand.", files=["src/db/migrations/*"])
    write_lesson(layout, "cli-c", "Keep CLI startup free of heavy imports.", files=["src/cli/**"])
    write_lesson(
        layout, "docs-d", "Build the docs before publishing.", commands=["mkdocs gh-deploy"]
    )
    write_lesson(layout, "app-e", "Keep app.py import-free.", files=["src/app.py"])
    git(root, "add", "-A")
    git(root, "commit", "-qm", "lessons")
    return layout


def _feature_branch(root: Path, layout: Layout, monkeypatch: pytest.MonkeyPatch) -> None:
    """A branch that adds, edits, deprecates, supersedes and removes lessons."""
    monkeypatch.chdir(root)
    git(root, "checkout", "-qb", "feature")
    write_lesson(
        layout,
        "db-a",
        "Run alembic upgrade head before the integration tests.",
        files=["src/db/**", "tests/**"],
    )
    write_lesson(
        layout, "docs-f", "Run mkdocs build --strict before deploying.", files=["docs/*.md"],
        commands=["mkdocs gh-deploy"], keywords=["mkdocs"],
    )  # fmt: skip
    write_lesson(layout, "db-g", "Name every index explicitly.", files=["src/models/**"])
    assert run("deprecate", "db-b").exit_code == 0
    assert run("supersede", "docs-d", "--by", "docs-f").exit_code == 0
    assert run("rm", "cli-c").exit_code == 0
    git(root, "add", "-A")
    git(root, "commit", "-qm", "lesson changes")


@pytest.fixture
def history(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Layout:
    layout = _main_history(tmp_path)
    _feature_branch(tmp_path, layout, monkeypatch)
    return layout


def test_json_classifies_every_change(history: Layout) -> None:
    """Added, changed, deprecated, superseded and removed, each with its lesson."""
    result = run("review", "--json")
    assert result.exit_code == 0
    assert result.stderr == ""
    data = json.loads(result.stdout)
    assert data["base_ref"] == "main"
    assert data["base"] == git(history.root, "rev-parse", "main").strip()
    kinds = [(c["change"], c["id"]) for c in data["changes"]]
    assert kinds == [
        ("added", "db-g"),
        ("added", "docs-f"),
        ("changed", "db-a"),
        ("deprecated", "db-b"),
        ("superseded", "docs-d"),
        ("removed", "cli-c"),
    ]
    assert data["summary"] == {
        "added": 2, "changed": 1, "deprecated": 1, "superseded": 1, "removed": 1,
    }  # fmt: skip


def test_changed_lessons_list_changed_fields_and_glob_matches(history: Layout) -> None:
    """An edit names its fields; each glob has a count and examples from the tree."""
    data = json.loads(run("review", "--json").stdout)
    edit = next(c for c in data["changes"] if c["id"] == "db-a")
    assert edit["fields"] == ["rule", "triggers"]
    assert edit["before"]["rule"] == "Run alembic upgrade head before tests."
    assert edit["globs"] == [
        {
            "glob": "src/db/**",
            "count": 4,
            "examples": ["src/db/migrations/001_init.sql", "src/db/migrations/002_users.sql",
                         "src/db/models.py"],
        },
        {"glob": "tests/**", "count": 1, "examples": ["tests/test_app.py"]},
    ]  # fmt: skip


def test_findings_are_attached_to_the_changed_lessons_only(history: Layout) -> None:
    """A dead glob on an added lesson shows; unchanged lessons add none."""
    write_lesson(history, "app-e", "Keep app.py import-free.", files=["src/gone.py"])
    git(history.root, "commit", "-qam", "break an unchanged-looking lesson")
    git(history.root, "checkout", "-q", "main", "--", ".lessons/lessons/app-e.json")
    data = json.loads(run("review", "--json").stdout)
    added = next(c for c in data["changes"] if c["id"] == "db-g")
    assert [f["code"] for f in added["findings"]] == ["L101"]
    assert "app-e" not in [c["id"] for c in data["changes"]]


def test_markdown_reads_as_a_pr_comment(history: Layout) -> None:
    """Headings per kind, the rule quoted, triggers with counts, findings inline."""
    result = run("review", "--format", "markdown")
    assert result.exit_code == 0
    out = result.stdout
    assert out.startswith("## Lesson changes since `")
    assert "`, the merge base of HEAD and main\n" in out.splitlines(keepends=True)[0]
    assert "2 added · 1 changed · 1 deprecated · 1 superseded · 1 removed" in out
    for heading in ("### Added", "### Changed", "### Deprecated", "### Superseded", "### Removed"):
        assert heading in out
    assert out.index("### Added") < out.index("### Changed") < out.index("### Removed")
    assert "> Run alembic upgrade head before the integration tests." in out
    assert "- rule was: Run alembic upgrade head before tests." in out
    assert "- file `tests/**` (new): 1 tracked file (`tests/test_app.py`)" in out
    assert "- file `src/db/**`: 4 tracked files (" in out
    assert "- status: superseded by `docs-f`" in out
    assert "**L101 warning** (line " in out
    assert "- file `src/models/**`: matches no tracked file" in out


def test_an_explicit_base_is_used(history: Layout) -> None:
    """BASE=HEAD shows no changes at all."""
    result = run("review", "HEAD")
    assert result.exit_code == 0
    assert "No lesson changed." in result.stdout
    assert "0 added · 0 changed" in result.stdout


def test_uncommitted_edits_count(history: Layout) -> None:
    """The working tree is compared, so an uncommitted edit shows against HEAD."""
    write_lesson(
        history, "app-e", "Keep app.py free of imports at module level.", files=["src/app.py"]
    )
    data = json.loads(run("review", "HEAD", "--json").stdout)
    assert [(c["change"], c["id"]) for c in data["changes"]] == [("changed", "app-e")]


def test_a_base_that_names_no_commit_is_a_user_error(history: Layout) -> None:
    """Exit 1 with the bad name and how to fix it."""
    result = run("review", "no-such-branch")
    assert result.exit_code == 1
    assert result.stdout == ""
    assert "'no-such-branch' names no commit" in result.stderr


def test_the_default_base_follows_origin_head_in_a_clone(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """In a clone the base is the merge base with origin/HEAD; later upstream work is ignored."""
    upstream = tmp_path / "upstream"
    layout = _main_history(upstream)
    clone = tmp_path / "clone"
    git(tmp_path, "clone", "-q", str(upstream), str(clone))
    monkeypatch.chdir(clone)
    git(clone, "checkout", "-qb", "topic")
    write_lesson(Layout(clone), "app-h", "Log through the app logger.", files=["src/app.py"])
    git(clone, "add", "-A")
    git(clone, "commit", "-qm", "add app-h")
    # Upstream moves on after the branch point; that is not this branch's change.
    write_lesson(layout, "app-z", "Upstream rule.", files=["src/app.py"])
    git(upstream, "add", "-A")
    git(upstream, "commit", "-qm", "upstream")
    git(clone, "fetch", "-q")
    data = json.loads(run("review", "--json").stdout)
    assert data["base_ref"] == "origin/main"
    assert [(c["change"], c["id"]) for c in data["changes"]] == [("added", "app-h")]


def test_rule_text_cannot_inject_markdown() -> None:
    """Links, HTML and headings in a rule are escaped; backticks in code are fenced."""
    assert text("[x](http://e) <b>hi</b> # h") == r"\[x\]\(http://e\) \<b\>hi\</b\> \# h"
    assert code("a`b") == "`` a`b ``"
    assert code("src/**") == "`src/**`"


def test_a_first_lessons_commit_and_a_broken_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A base without .lessons/ makes every lesson added; a broken one shows its L001."""
    make_repo(tmp_path, {"src/app.py": "x\n"})
    monkeypatch.chdir(tmp_path)
    assert run("init").exit_code == 0
    git(tmp_path, "checkout", "-qb", "first-lessons")
    assert (
        run(
            "add", "Keep app.py import-free.", "--topic", "app", "--trigger-file", "src/app.py"
        ).exit_code
        == 0
    )
    (tmp_path / ".lessons" / "lessons" / "app-broken.json").write_text("{")
    result = run("review", "--format", "markdown")
    assert result.exit_code == 0
    assert "2 added · 0 changed" in result.stdout
    assert (
        "- `.lessons/lessons/app-broken.json` does not parse; see the findings below"
        in result.stdout
    )
    assert "**L001 error**" in result.stdout
    assert "- file `src/app.py`: 1 tracked file (`src/app.py`)" in result.stdout


def test_an_always_on_lesson_is_marked_in_the_review(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A lesson added always-on says so: its tokens go to every session."""
    layout = _main_history(tmp_path)
    monkeypatch.chdir(tmp_path)
    git(tmp_path, "checkout", "-qb", "feature")
    write_lesson(layout, "git-german", "Write commit messages in German.", always=True)
    git(tmp_path, "add", "-A")
    git(tmp_path, "commit", "-qm", "always")
    out = run("review", "--format", "markdown").stdout
    section = out[out.index("#### `git-german`") :]
    assert "- always on: delivered at every session start and after compaction" in section
    assert "always on" not in out[: out.index("#### `git-german`")]


def test_the_terminal_gets_plain_text_with_status_reason_and_base(history: Layout) -> None:
    """By default: no Markdown escapes, every retired lesson with its status (and the
    reason it was given), also when it is listed as changed, and the base commit with how
    it was chosen."""
    assert (
        run("deprecate", "db-b", "--reason", "migrations (all of them) are generated").exit_code
        == 0
    )
    out = run("review").stdout
    first = out.splitlines()[0]
    assert re.fullmatch(
        r"Lesson changes since '[0-9a-f]{12}', the merge base of HEAD and main", first
    )
    assert "\\(" not in out
    assert "**L101" not in out
    assert "###" not in out
    assert "- status: superseded by 'docs-f'" in out
    assert "- reason: migrations (all of them) are generated" in out
    assert "- file 'src/db/**': 4 tracked files (" in out
    git(history.root, "commit", "-qam", "reason")
    write_lesson(
        history, "docs-d", "Build the docs before you publish.", commands=["mkdocs gh-deploy"],
        status="superseded", superseded_by="docs-f",
    )  # fmt: skip
    since_head = run("review", "HEAD").stdout
    assert since_head.splitlines()[0].endswith(", HEAD, as given")
    changed = since_head[since_head.index("Changed") :]
    assert "- status: superseded by 'docs-f'" in changed
