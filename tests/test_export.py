"""``lessons export --format agents-md``."""

from __future__ import annotations

from lessons_core.export import code
from lessons_core.fsutil import atomic_write
from lessons_core.jsonio import dumps
from lessons_core.store.layout import Layout
from lessons_core.store.topics import Topic, topic_path
from tests.conftest import run

EXPECTED = """\
# Project lessons

Rules learned in this project (2 active), written by `lessons export` from `.lessons/`. \
Change the lessons, not this file.

## build

How the package is built.

- Run make dist before tagging a release.
  When running `make release`; mentioning `release notes`. (`build-dist-tagging-release`)

## paths

- Never split('/') a filesystem path; use os.path.basename().
  When editing `src/util/*.py`. (`paths-split-filesystem-path-os`)
"""

RELEASE_RULE = (
    "Run make dist before tagging a release.",
    "--topic",
    "build",
    "--trigger-cmd",
    "make release",
)


def add(*args: str) -> str:
    result = run("add", *args)
    assert result.exit_code == 0, result.output
    return result.stdout.strip()


def test_agents_md_groups_active_lessons_by_topic(repo: Layout) -> None:
    """Active lessons appear under their first topic with summary, triggers and id."""
    add(
        "Never split('/') a filesystem path; use os.path.basename().",
        "--topic",
        "paths",
        "--trigger-file",
        "src/util/*.py",
    )
    add(*RELEASE_RULE, "--trigger-keyword", "release notes")
    old = add(
        "Edit the changelog by hand before each release.",
        "--topic",
        "build",
        "--trigger-keyword",
        "changelog",
    )
    assert run("deprecate", old).exit_code == 0
    atomic_write(
        topic_path(repo, "build"), dumps(Topic("build", "How the package is built.").to_dict())
    )
    result = run("export", "--format", "agents-md")
    assert result.exit_code == 0
    assert result.stderr == ""
    assert result.stdout == EXPECTED


def test_always_on_lessons_come_first_in_their_own_section(repo: Layout) -> None:
    """An always-on lesson is listed before every topic, under "Every task", and not
    again under its topic."""
    add(*RELEASE_RULE)
    always = add("Use pnpm, never npm, for package commands.", "--topic", "build", "--always")
    out = run("export", "--format", "agents-md").stdout
    section = f"## Every task\n\n- Use pnpm, never npm, for package commands. (`{always}`)\n"
    assert section in out
    assert out.index("## Every task") < out.index("## build")
    assert out.count("Use pnpm") == 1


def test_output_file_is_written(repo: Layout) -> None:
    """``--output`` writes the same document to a file and says so on stderr."""
    add(*RELEASE_RULE)
    result = run("export", "--format", "agents-md", "--output", "AGENTS.md")
    assert result.exit_code == 0
    assert result.stdout == ""
    assert result.stderr == "wrote AGENTS.md\n"
    assert (repo.root / "AGENTS.md").read_text() == run("export", "--format", "agents-md").stdout


def test_empty_store(repo: Layout) -> None:
    """With no lessons the document says so and has no sections."""
    result = run("export", "--format", "agents-md")
    assert "(0 active)" in result.stdout
    assert "## " not in result.stdout


def test_unknown_format_is_a_usage_error(repo: Layout) -> None:
    """Only agents-md exists; anything else is a usage error (exit 2)."""
    result = run("export", "--format", "html")
    assert result.exit_code == 2
    assert "'html' is not 'agents-md'" in result.stderr


def test_code_spans_survive_backticks() -> None:
    """A pattern holding backticks is fenced with a longer run."""
    assert code("git push") == "`git push`"
    assert code("echo `date`") == "`` echo `date` ``"
