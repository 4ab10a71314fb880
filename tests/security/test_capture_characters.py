"""Control characters at capture: ESC, BEL, C1 controls, DEL, line separators and
bidirectional controls are refused in every field by `lessons add`, the MCP tool
`lessons_add` and `lessons import`, with the field, the character as an escape and the
fix; tab and line breaks stay fine in a rationale."""

from __future__ import annotations

import pytest

from lessons_cli.mcp_tools import call_tool
from lessons_core.store.files import load_graph
from lessons_core.store.layout import Layout
from tests.conftest import lesson_count, run
from tests.security.test_secret_triggers import import_rule_files

RULE = "Run the migrations before the seed script."
CHARACTERS = {
    "ESC": ("\x1b", r"\x1b"),
    "BEL": ("\x07", r"\x07"),
    "backspace": ("\x08", r"\x08"),
    "lone CR": ("\r", r"\x0d"),
    "DEL": ("\x7f", r"\x7f"),
    "C1 NEL": ("\x85", r"\x85"),
    "C1 CSI": ("\x9b", r"\x9b"),
    "line separator": ("\u2028", r"\u2028"),
    "paragraph separator": ("\u2029", r"\u2029"),
    "RLO override": ("\u202e", r"\u202e"),
    "LRE embedding": ("\u202a", r"\u202a"),
    "RLI isolate": ("\u2067", r"\u2067"),
    "PDI": ("\u2069", r"\u2069"),
}
# Each field, the `lessons add` arguments that put TEXT in it, and how errors name it.
FIELDS = {
    "rule": (["Run the {}migrations first.", "--topic", "db", "--trigger-keyword", "seed"],
             "rule"),
    "rationale": ([RULE, "--topic", "db", "--trigger-keyword", "seed", "--rationale",
                   "Seeds need {}the schema."], "rationale"),
    "topic": ([RULE, "--topic", "db{}", "--trigger-keyword", "seed"], "topic #1"),
    "evidence": ([RULE, "--topic", "db", "--trigger-keyword", "seed", "--evidence",
                  "pr:{}42"], "evidence #1"),
    "file trigger": ([RULE, "--topic", "db", "--trigger-file", "src/db/{}models.py"],
                     "file trigger #1"),
    "command trigger": ([RULE, "--topic", "db", "--trigger-cmd", "make {}seed"],
                        "command trigger #1"),
    "keyword trigger": ([RULE, "--topic", "db", "--trigger-keyword", "seed{}ing"],
                        "keyword trigger #1"),
}  # fmt: skip


def with_char(field: str, char: str) -> list[str]:
    args, _ = FIELDS[field]
    return [arg.format(char) if "{}" in arg else arg for arg in args]


@pytest.mark.parametrize("field", sorted(FIELDS))
@pytest.mark.parametrize("name", sorted(CHARACTERS))
def test_add_refuses_a_control_character_in_any_field(repo: Layout, field: str, name: str) -> None:
    """Exit 1 with the field, the character's escape and the fix; nothing written."""
    char, escape = CHARACTERS[name]
    result = run("add", *with_char(field, char))
    assert result.exit_code == 1, (field, name, result.stdout)
    label = FIELDS[field][1]
    assert f"error: the {label} holds " in result.stderr
    assert escape in result.stderr
    assert char not in result.stderr
    assert f"fix: retype the {label} without it" in result.stderr
    assert lesson_count(repo) == 0


def test_a_line_break_in_a_rule_is_refused_as_several_lines(repo: Layout) -> None:
    """The rule's own refusal says what to do: write one sentence."""
    result = run("add", *with_char("rule", "\r\n"))
    assert result.exit_code == 1
    assert "the rule spans several lines" in result.stderr


@pytest.mark.parametrize("field", ["topic", "evidence", "keyword trigger", "command trigger"])
def test_tab_and_line_breaks_are_refused_in_one_line_fields(repo: Layout, field: str) -> None:
    for char, escape in (("\t", r"\x09"), ("\n", r"\x0a")):
        result = run("add", *with_char(field, char))
        assert result.exit_code == 1, (field, repr(char))
        assert escape in result.stderr


def test_tab_and_line_breaks_are_fine_in_a_rationale(repo: Layout) -> None:
    """A rationale keeps its paragraphs, its tabs and Windows line ends."""
    rationale = "Seeds need the schema.\r\n\n\tSee the runbook."
    args = [RULE, "--topic", "db", "--trigger-keyword", "seed", "--rationale", rationale]
    result = run("add", *args)
    assert result.exit_code == 0, result.stderr
    (lesson,) = load_graph(repo).lessons.values()
    assert lesson.rationale == rationale


def test_ordinary_unicode_is_kept(repo: Layout) -> None:
    """Accents, CJK, emoji and right-to-left letters are text, not controls."""
    rule = "Écrivez les migrations d'abord — 先に移行を実行 ✅ שלום."
    result = run("add", rule, "--topic", "db", "--trigger-keyword", "seed")
    assert result.exit_code == 0, result.stderr


@pytest.mark.parametrize(
    ("argument", "value", "label"),
    [
        ("rule", "Run the \x1b[31mmigrations first.", "rule"),
        ("rationale", "Seeds need\u2028the schema.", "rationale"),
        ("topic", "db\x07", "topic #1"),
        ("keywords", ["seed\u202eing"], "keyword trigger #1"),
        ("commands", ["make\x1b]0;title\x07 seed"], "command trigger #1"),
        ("files", ["src/db/\x85models.py"], "file trigger #1"),
        ("evidence", ["pr:\u206742"], "evidence #1"),
    ],
)
def test_mcp_add_refuses_a_control_character(
    repo: Layout, argument: str, value: object, label: str
) -> None:
    """The MCP tool answers with the 'control-character' error and saves nothing."""
    arguments: dict[str, object] = {"rule": RULE, "topic": "db", "keywords": ["seed"]}
    arguments[argument] = value
    reply = call_tool("lessons_add", arguments, repo.root)
    assert reply.is_error, reply.text
    error = reply.data["error"]
    assert error["code"] == "control-character"
    assert error["problem"].startswith(f"the {label} holds ")
    assert "\\x" in error["problem"] or "\\u" in error["problem"]
    assert lesson_count(repo) == 0


def test_import_does_not_write_a_rule_with_a_control_character(repo: Layout) -> None:
    """A rule file bullet carrying an escape sequence is not carried, with the reason;
    the next bullet is imported."""
    bullets = "- Run the \x1b[2J\x1b[Hmigrations first.\n- Declare every column as non-null.\n"
    report = import_rule_files(repo, {"db.md": ("src/db/models.py", bullets)})
    refused = [n for n in report["not_carried"] if n["code"] == "control-character"]
    assert len(refused) == 1, report["not_carried"]
    assert r"\x1b" in refused[0]["detail"]
    assert {lesson.rule for lesson in load_graph(repo).lessons.values()} == {
        "Declare every column as non-null."
    }
