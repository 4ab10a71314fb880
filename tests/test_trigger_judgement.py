"""The one judgement of a trigger: what it refuses and why, where it is applied, and that
one rejected trigger never takes its lesson's other triggers, or other lessons, with it."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from lessons_core.errors import quoted
from lessons_core.index.build import digest
from lessons_core.matching.commands import CommandPattern
from lessons_core.matching.globs import CompiledGlob
from lessons_core.matching.trigger_checks import (
    COMMAND_INVALID,
    GLOB_ABSOLUTE,
    GLOB_INVALID,
    GLOB_OUTSIDE,
    KEYWORD_INVALID,
    TriggerProblem,
    judge_command,
    judge_glob,
    judge_keyword,
    repo_glob,
)
from lessons_core.store.layout import Layout
from lessons_core.store.model import Lesson, Triggers
from lessons_core.validate import validate
from tests.conftest import run
from tests.lesson_graphs import make_project, write_lesson

JUDGES: dict[str, Callable[[str], object]] = {
    "glob": judge_glob,
    "command": judge_command,
    "keyword": judge_keyword,
}
KINDS = {"glob": GLOB_INVALID, "command": COMMAND_INVALID, "keyword": KEYWORD_INVALID}


@pytest.mark.parametrize(
    ("kind", "text", "reason"),
    [
        ("glob", "[z-a]", "bad character range z-a"),
        ("glob", "src/[b-a]*.py", "bad character range b-a"),
        ("glob", "src/" + "n" * 256 + ".py", "more than 255"),
        ("glob", "src/" + "*x" * 300, "more than 255"),
        ("glob", "a/" * 2049, "a trigger is at most 4,096"),
        ("glob", "src/\x00.py", "control character"),
        ("glob", "src/a\x1b[2J.py", "control character"),
        ("glob", "src/\ud800.py", "not valid UTF-8"),
        ("glob", "../x/**", "outside the repo"),
        ("glob", "!src/**", "negations"),
        ("glob", "./", "repo root"),
        ("command", "(a)\\1", "linear-time"),
        ("command", "x*", "empty string"),
        ("command", "git\x00push", "NUL"),
        ("command", "git \ud800", "not valid UTF-8"),
        ("command", "git " + "x" * 4093, "at most 4,096"),
        ("command", "[[:foo:]]", "linear-time"),
        ("keyword", "--", "no letters or digits"),
        ("keyword", "!!!", "no letters or digits"),
        ("keyword", "boto\x1b3", "control character"),
        ("keyword", "boto\ud8003", "not valid UTF-8"),
        ("keyword", "x" * 4097, "at most 4,096"),
    ],
)
def test_a_trigger_that_can_never_fire_is_judged_with_reason_and_fix(
    kind: str, text: str, reason: str
) -> None:
    """Each is a problem (never an exception) saying why and what to write instead."""
    judged = JUDGES[kind](text)
    assert isinstance(judged, TriggerProblem)
    assert judged.kind == KINDS[kind]
    assert reason in judged.problem
    assert judged.fix


@pytest.mark.parametrize(
    "glob", ["src/**", "**/*.test.ts", "src/[a-z]*.py", "docs/?.md", "src/" + "n" * 255]
)
def test_a_glob_that_can_fire_compiles(glob: str) -> None:
    """Real globs, classes and a 255-character name pass."""
    assert isinstance(judge_glob(glob), CompiledGlob)


def test_a_good_command_pattern_compiles() -> None:
    assert isinstance(judge_command("git push --force"), CommandPattern)


def test_a_keyword_is_judged_to_its_words() -> None:
    """What recall matches: the folded words, identifiers split."""
    assert judge_keyword("readOnly Überweisung") == ("read", "only", "überweisung")


def test_a_trigger_is_quoted_short_and_inert() -> None:
    """Messages quote at most 100 characters and escape control characters (a lesson
    file's text never writes an escape sequence to a terminal)."""
    assert quoted("src/a.py") == "'src/a.py'"
    assert quoted("a\x1b[2Jb") == "'a\\x1b[2Jb'"
    assert quoted("x" * 5000) == "'" + "x" * 99 + "…'"


def test_repo_glob_makes_paths_into_the_repo_relative(tmp_path: Path) -> None:
    """Absolute paths inside, './x', backslashes and a root-anchored '/x' all give the
    repo-relative form; the root itself gives the empty glob (judged: names the root)."""
    (tmp_path / "src").mkdir()
    assert repo_glob(f"{tmp_path}/src/api/*.ts", tmp_path) == "src/api/*.ts"
    assert repo_glob("./src\\api\\x.ts", tmp_path) == "src/api/x.ts"
    assert repo_glob("/src/**", tmp_path) == "src/**"
    assert repo_glob("/**/*.py", tmp_path) == "**/*.py"
    assert repo_glob(str(tmp_path), tmp_path) == ""
    judged = judge_glob("")
    assert isinstance(judged, TriggerProblem)
    assert "repo root" in judged.problem


def test_repo_glob_follows_links_to_the_repo(tmp_path: Path) -> None:
    """A path through a link to the checkout (``/tmp`` is one on some systems) is inside."""
    repo = tmp_path / "repo"
    (repo / "src").mkdir(parents=True)
    link = tmp_path / "link"
    link.symlink_to(repo)
    assert repo_glob(f"{link}/src/x.ts", repo) == "src/x.ts"
    assert repo_glob(f"{repo}/src/x.ts", link) == "src/x.ts"


@pytest.mark.parametrize("glob", ["/etc/passwd", "C:\\work\\x.ts", "/opt/repo/src/x.ts"])
def test_repo_glob_refuses_a_path_outside_the_repo(tmp_path: Path, glob: str) -> None:
    placed = repo_glob(glob, tmp_path)
    assert isinstance(placed, TriggerProblem)
    assert placed.kind == GLOB_OUTSIDE
    assert str(tmp_path) in placed.problem


def test_a_stored_absolute_path_into_the_checkout_is_judged_with_the_relative_fix(
    tmp_path: Path,
) -> None:
    """Stored as written it never fires (recall reads it from the root); validate says
    what to write."""
    judged = judge_glob(f"{tmp_path}/src/x.ts", tmp_path)
    assert isinstance(judged, TriggerProblem)
    assert judged.kind == GLOB_ABSOLUTE
    assert judged.fix == "write it from the repo root: 'src/x.ts'"


def test_the_index_leaves_out_only_the_rejected_triggers() -> None:
    """A lesson keeps every trigger the judgement accepts; each rejected one is listed in
    ``skipped`` with its reason."""
    lesson = Lesson(
        id="gen-x",
        rule="Regenerate the client instead of editing it.",
        topics=("gen",),
        triggers=Triggers(
            files=("[z-a]", "src/gen/**"),
            commands=("(a)\\1", "make gen"),
            keywords=("--", "codegen"),
        ),
        created="2026-01-01",
    )
    found = digest(lesson)
    assert [g[0] for g in found.globs] == ["src/gen/**"]
    assert [c[0] for c in found.commands] == ["make gen"]
    assert [k[0] for k in found.keywords] == ["codegen"]
    assert [trigger for trigger, _why in found.skipped] == ["[z-a]", "(a)\\1", "--"]
    assert "bad character range" in found.skipped[0][1]


def bad_and_good(layout: Layout) -> None:
    write_lesson(
        layout, "gen-mixed", "Regenerate generated code instead of editing it.",
        files=["[z-a]", "src/app.py"], keywords=["--"],
    )  # fmt: skip
    write_lesson(layout, "db-models", "Declare every column non-null.", files=["src/db/*.py"])
    write_lesson(layout, "ci-push", "Run the full suite before pushing.", commands=["git push"])


def test_query_serves_every_lesson_beside_a_rejected_trigger(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The lesson with '[z-a]' still fires on its good glob, the others on theirs, and
    --explain says which trigger was left out and why."""
    layout = make_project(tmp_path / "repo")
    bad_and_good(layout)
    monkeypatch.chdir(layout.root)
    result = run("query", "--file", "src/app.py", "--file", "src/db/models.py")
    assert (result.exit_code, result.stderr) == (0, "")
    assert "Regenerate generated code instead of editing it." in result.stdout
    assert "Declare every column non-null." in result.stdout
    assert "Run the full suite" in run("query", "--cmd", "git push origin main").stdout
    explained = run("query", "--file", "src/app.py", "--explain").stdout
    assert "left out: file trigger '[z-a]' is not a valid glob" in explained
    assert "left out: keyword '--' has no letters or digits" in explained


def test_validate_names_each_rejected_trigger_with_its_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """L009 and L012 on the lines that hold the triggers; exit 1; nothing else fails."""
    layout = make_project(tmp_path / "repo")
    bad_and_good(layout)
    monkeypatch.chdir(layout.root)
    result = run("validate", "--format", "json")
    assert result.exit_code == 1
    errors = [f for f in json.loads(result.stdout)["findings"] if f["severity"] == "error"]
    lines = (layout.lessons_dir / "gen-mixed.json").read_text().splitlines()
    assert [(f["code"], f["lesson"], lines[f["line"] - 1].strip()) for f in errors] == [
        ("L009", "gen-mixed", '"[z-a]",'),
        ("L012", "gen-mixed", '"--"'),
    ]


def test_every_trigger_rejected_is_a_lesson_that_can_never_be_recalled(tmp_path: Path) -> None:
    """L106 counts keywords the judgement rejects too."""
    layout = make_project(tmp_path / "repo")
    write_lesson(layout, "gen-dead", "Regenerate the client.", files=["[z-a]"], keywords=["--"])

    assert "L106" in {f.code for f in validate(layout).findings}


def test_validate_reports_absolute_paths_in_a_lesson_file(tmp_path: Path) -> None:
    """One into this checkout gets the relative fix, one elsewhere the outside reason; a
    root-anchored '/src/**' is fine."""
    layout = make_project(tmp_path / "repo")
    root = layout.root
    write_lesson(
        layout, "db-abs", "Declare every column non-null.",
        files=[f"{root}/src/db/models.py", "/etc/db.conf", "/src/db/**"],
    )  # fmt: skip

    found = [(f.code, f.message, f.fix) for f in validate(layout).findings if f.code == "L009"]
    assert found == [
        (
            "L009",
            f"file trigger {quoted(f'{root}/src/db/models.py')} is an absolute path; globs are "
            "read from the repo root, so it never matches",
            "write it from the repo root: 'src/db/models.py'",
        ),
        (
            "L009",
            f"file trigger '/etc/db.conf' is a path outside the repo ({root}), so it never matches",
            "name files inside the repo, from its root, e.g. 'src/app.py'",
        ),
    ]


def test_import_carries_the_good_triggers_and_names_the_rejected_ones(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """agentsmesh: '[z-a]', a 1,000-character name and a keyword without letters are not
    carried, each with its reason and fix; the lesson keeps its good triggers."""
    layout = make_project(tmp_path / "repo")
    monkeypatch.chdir(layout.root)
    long_glob = "src/" + "a" * 1000 + ".py"
    graph = {
        "version": 2,
        "topics": {},
        "triggers": {
            "t1": {"kind": "file_glob", "pattern": "[z-a]"},
            "t2": {"kind": "file_glob", "pattern": long_glob},
            "t3": {"kind": "keyword", "pattern": "--"},
            "t4": {"kind": "file_glob", "pattern": f"{layout.root}/src/app.py"},
            "t5": {"kind": "command_pattern", "pattern": "make gen"},
        },
        "lessons": {
            "gen-x": {
                "rule": "Regenerate generated code instead of editing it.",
                "topics": ["gen"],
                "triggers": ["t1", "t2", "t3", "t4", "t5"],
                "status": "active",
                "createdAt": "2026-02-03",
            }
        },
    }
    source = tmp_path / "lessons.json"
    source.write_text(json.dumps(graph))
    result = run("import", "agentsmesh", str(source), "--json")
    assert result.exit_code == 0, result.output
    lost = [note["detail"] for note in json.loads(result.stdout)["not_carried"]]
    assert len(lost) == 3
    assert "bad character range z-a" in lost[0]
    assert lost[0].endswith(
        "; write a character class from low to high, e.g. '[a-z]', or leave the brackets out"
    )
    assert "more than 255" in lost[1]
    assert "no letters or digits" in lost[2]
    saved = json.loads((layout.lessons_dir / "gen-x.json").read_text())
    assert saved["triggers"] == {
        "commands": ["(?:make gen)"],  # matches inside words, as in JavaScript
        "files": ["src/app.py"],
        "keywords": [],
    }


def test_import_refuses_a_successor_of_the_wrong_type(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """supersededBy as a list: exit 1 naming the field, not a traceback."""
    layout = make_project(tmp_path / "repo")
    monkeypatch.chdir(layout.root)
    graph = {
        "version": 2,
        "lessons": {
            "x": {"rule": "Use make.", "status": "superseded", "supersededBy": ["y"],
                  "createdAt": "2026-01-01"},
        },
    }  # fmt: skip
    source = tmp_path / "lessons.json"
    source.write_text(json.dumps(graph))
    result = run("import", "agentsmesh", str(source))
    assert result.exit_code == 1
    assert "lessons.x.supersededBy" in result.stderr


def test_rule_file_import_judges_its_globs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A Cursor rule whose globs include '[z-a]': that glob is not carried, the rest are."""
    layout = make_project(tmp_path / "repo")
    monkeypatch.chdir(layout.root)
    rules = layout.root / ".cursor" / "rules"
    rules.mkdir(parents=True)
    (rules / "gen.mdc").write_text(
        "---\nglobs: src/[z-a].py, src/app.py\n---\n- Regenerate generated code.\n"
    )
    result = run("import", "cursor", "--json")
    assert result.exit_code == 0, result.output
    lost = json.loads(result.stdout)["not_carried"]
    assert [note["code"] for note in lost] == ["glob"]
    (saved,) = (json.loads(p.read_text()) for p in layout.lessons_dir.glob("*.json"))
    assert saved["triggers"]["files"] == ["src/app.py"]
