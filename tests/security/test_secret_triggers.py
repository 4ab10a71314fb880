"""Secrets through the side: a credential in a trigger (file, command, keyword) or a topic
is refused like one in the rule, by `lessons add`, by the MCP tool `lessons_add` and by
`lessons import`; `lessons validate` reports one already committed (L501)."""

from __future__ import annotations

import json
from typing import Any

import pytest

from lessons_cli.mcp_tools import call_tool
from lessons_core.store.files import load_graph
from lessons_core.store.layout import Layout
from lessons_core.validate import validate
from tests.conftest import lesson_count, run, save_lesson
from tests.security.secret_corpus import SECRET_SHAPES

RULE = "Seed the database with the seed script only."
FLAGS = {
    "command": "--trigger-cmd",
    "keyword": "--trigger-keyword",
    "file": "--trigger-file",
    "topic": "--topic",
}
ARGUMENTS = {"command": "commands", "keyword": "keywords", "file": "files", "topic": "topic"}
# The cases as reported, and one of each family of the corpus.
CASES = {
    "postgres url": "psql postgres://admin:S3cr3tP4ss@db/app",
    "github": "ghp_R7x2Kq9LmZ4vT8nW3pY6bC1dF5gH0jA2sE4u",
    "aws": "AKIA4HZQX7MRT2LKWN9P",
    "mysql -p": "mysql -u root -pS3cr3tP4ss app",
    "escaped in a pattern": r"psql postgres://admin:S3cr3tP4ss@db\.internal/app",
}


def add_args(where: str, secret: str) -> list[str]:
    args = [RULE, "--trigger-file", "src/db/models.py"]
    if where != "topic":
        args += ["--topic", "db"]
    return [*args, FLAGS[where], secret]


@pytest.mark.parametrize("where", sorted(FLAGS))
@pytest.mark.parametrize("case", sorted(CASES))
def test_add_refuses_a_secret_in_a_trigger_or_topic(repo: Layout, where: str, case: str) -> None:
    """Exit 1 naming the trigger, the fix, and no lesson file."""
    result = run("add", *add_args(where, CASES[case]))
    assert result.exit_code == 1, (where, case, result.stdout)
    assert "what looks like a secret would be committed" in result.stderr
    assert f"({where}" in result.stderr
    assert "fix: remove the credential" in result.stderr
    assert lesson_count(repo) == 0


@pytest.mark.parametrize("kind", sorted(SECRET_SHAPES))
def test_add_refuses_every_shape_of_the_corpus_as_a_command_trigger(
    repo: Layout, kind: str
) -> None:
    """Each of the corpus's credential shapes, through the real command, as the text of a
    command trigger."""
    result = run("add", RULE, "--topic", "db", "--trigger-cmd", SECRET_SHAPES[kind].text)
    assert result.exit_code == 1, (kind, result.stdout, result.stderr)
    assert "(command trigger #1" in result.stderr
    assert lesson_count(repo) == 0


@pytest.mark.parametrize("where", sorted(ARGUMENTS))
def test_mcp_add_refuses_a_secret_in_a_trigger_or_topic(repo: Layout, where: str) -> None:
    """The MCP tool answers with the 'secret' error and saves nothing."""
    secret = CASES["github"]
    files = ["src/db/models.py", secret] if where == "file" else ["src/db/models.py"]
    arguments: dict[str, object] = {"rule": RULE, "topic": "db", "files": files}
    if where == "topic":
        arguments["topic"] = secret
    elif where != "file":
        arguments[ARGUMENTS[where]] = [secret]
    reply = call_tool("lessons_add", arguments, repo.root)
    assert reply.is_error, reply.text
    assert reply.data["error"]["code"] == "secret"
    assert f"({where}" in reply.data["error"]["problem"]
    assert lesson_count(repo) == 0


def import_rule_files(repo: Layout, files: dict[str, tuple[str, str]]) -> dict[str, Any]:
    """`lessons import claude-rules --json` over ``.claude/rules/NAME`` files, each with
    one glob and its bullets; the report."""
    rules = repo.root / ".claude" / "rules"
    rules.mkdir(parents=True)
    for name, (glob, bullets) in files.items():
        (rules / name).write_text(f'---\npaths:\n  - "{glob}"\n---\n# Rules\n\n{bullets}')
    result = run("import", "claude-rules", "--json")
    assert result.exit_code == 0, result.output
    report: dict[str, Any] = json.loads(result.stdout)
    return report


def test_import_does_not_write_a_rule_whose_trigger_holds_a_secret(repo: Layout) -> None:
    """A rule file whose glob holds a token: that rule is not carried, named with the
    reason; the file's other rule is imported."""
    report = import_rule_files(
        repo,
        {
            "db.md": (f"src/db/{CASES['github']}/*.py", "- Declare every column as non-null.\n"),
            "api.md": (
                "src/app.py",
                "- Run the seed with mysql -u root -pS3cr3tP4ss when testing.\n"
                "- Keep src/app.py free of import-time side effects.\n",
            ),
        },
    )
    not_carried = {(n["subject"], n["code"]): n["detail"] for n in report["not_carried"]}
    refused = [detail for (_, code), detail in not_carried.items() if code == "secret"]
    assert len(refused) == 2, report["not_carried"]
    assert any("file trigger #1" in detail for detail in refused)
    assert any("(rule" in detail for detail in refused)
    rules_saved = {lesson.rule for lesson in load_graph(repo).lessons.values()}
    assert rules_saved == {"Keep src/app.py free of import-time side effects."}
    text = "".join(p.read_text() for p in repo.lessons_dir.glob("*.json"))
    assert "S3cr3tP4ss" not in text
    assert CASES["github"] not in text


@pytest.mark.parametrize("where", ["commands", "keywords", "files", "topics"])
def test_validate_reports_a_committed_secret_in_a_trigger(repo: Layout, where: str) -> None:
    """A lesson file written by hand (or merged) with a credential in a trigger: L501,
    an error, naming the lesson, the trigger and the line."""
    secret = CASES["postgres url"] if where == "commands" else CASES["github"]
    fields: dict[str, tuple[str, ...]] = {"files": ("src/app.py",), where: (secret,)}
    if where == "files":
        fields["files"] = (f"src/{secret}/*.py",)
    save_lesson(repo, "db-seed", RULE, **fields)  # type: ignore[arg-type]
    report = validate(repo)
    found = [f for f in report.findings if f.code == "L501"]
    assert len(found) == 1, report.findings
    assert found[0].lesson_id == "db-seed"
    assert found[0].severity.value == "error"
    label = {"commands": "command trigger", "keywords": "keyword trigger"}
    label |= {"files": "file trigger", "topics": "topic"}
    assert f"in the {label[where]} #1" in found[0].message
    assert found[0].line is not None
    assert report.failed()


def test_validate_is_quiet_on_ordinary_lessons(repo: Layout) -> None:
    """Placeholders and flags in triggers are not secrets (no L501)."""
    save_lesson(
        repo, "db-prompt", "Run mysql -p alone so it prompts for the password.",
        commands=(r"mysql\s+-p\b", "curl -u \\$USER:\\$TOKEN"), keywords=("password",),
    )  # fmt: skip
    assert [f for f in validate(repo).findings if f.code == "L501"] == []


def test_validate_command_names_l501(repo: Layout) -> None:
    """The real `lessons validate` exits 1 with the L501 line and its fix."""
    save_lesson(repo, "db-seed", RULE, keywords=(CASES["aws"],))
    result = run("validate")
    assert result.exit_code == 1
    assert "L501 error: what looks like a secret is committed in the keyword trigger #1" in (
        result.stdout
    )
    assert "rotate it" in result.stdout
