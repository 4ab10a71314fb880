"""``lessons eval --import``: labels, the rebuilt repos, the judge, and a run over every
vendored public project."""

from __future__ import annotations

import json
import re
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from lessons_core.eval.adoption import Figures, evaluate_project
from lessons_core.eval.adoption_judge import GOOD, POOR, WRONG, Judge, holds
from lessons_core.eval.adoption_labels import (
    NOT_RULE,
    RULE,
    Label,
    LabelError,
    read_index,
    read_labels,
    words,
)
from lessons_core.eval.adoption_repo import materialise
from lessons_core.matching.glob_counts import FileIndex
from lessons_core.matching.globs import compile_glob
from lessons_core.project_commands import ProjectCommand
from lessons_core.store.model import Lesson, Triggers
from tests.conftest import run

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "adoption"
INDEX = FIXTURES / "index.json"
FILES = ["src/api/app.py", "src/api/db.py", "src/cli/main.py", "tests/test_app.py", "Makefile"]
SMALL = ("simonw__llm", "ollama__ollama")
EVERYDAY = tuple(
    ProjectCommand(c, "Makefile", n)
    for n, c in enumerate(["uv run pytest", "uv run ruff check .", "uv run mypy", "make docs"], 1)
)


def label(kind: str, quote: str, **fields: Any) -> Label:
    return Label(kind=kind, file="AGENTS.md", quote=quote, words=words(quote), **fields)


def lesson(rule: str, files: tuple[str, ...] = (), commands: tuple[str, ...] = ()) -> Lesson:
    return Lesson(
        id="x",
        rule=rule,
        topics=("t",),
        triggers=Triggers(files=files, commands=commands),
        created="2026-12-07",
        evidence=("import:AGENTS.md",),
    )


@pytest.fixture
def judge() -> Judge:
    labels = [
        label(RULE, "Never print in API handlers", files=("src/api/**",)),
        label(RULE, "Avoid `make docs` between edits", commands=("make docs",)),
        label(
            RULE, "Run `make docs` before you push", commands=("git push",), not_on=("make docs",)
        ),
        label(RULE, "Add migrations with the tool", files=("src/**",), negated=True),
        label(NOT_RULE, "`src/api/` holds the HTTP layer", why="a description"),
        label(NOT_RULE, "**Build**", why="a heading"),
    ]
    return Judge(labels, FileIndex(FILES), EVERYDAY)


def test_a_rule_on_the_files_it_names_is_good(judge: Judge) -> None:
    """The quote found whatever the markup, a glob within the labelled folder: good."""
    found = judge.judge(lesson("Never print in **API handlers**.", files=("src/api/*.py",)))
    assert (found.verdict, found.reason) == (GOOD, "")


def test_a_rule_on_a_wider_glob_is_poor(judge: Judge) -> None:
    """A glob matching files outside the rule's folder is not where the mistake is made."""
    found = judge.judge(lesson("Never print in API handlers", files=("src/**",)))
    assert found.verdict == POOR
    assert "src/**" in found.reason


def test_a_rule_without_trigger_is_poor(judge: Judge) -> None:
    """An always-on or trigger-less copy of a placed rule misses its place."""
    assert judge.judge(lesson("Avoid make docs between edits")).verdict == POOR


def test_a_command_rule_on_its_command_is_good_and_a_broad_one_is_poor(judge: Judge) -> None:
    """'make docs' is where the rule applies; 'uv run' also fires on most commands."""
    assert (
        judge.judge(lesson("Avoid make docs between edits", commands=("make docs",))).verdict
        == GOOD
    )
    broad = judge.judge(lesson("Avoid make docs between edits", commands=("make docs", "uv run")))
    assert broad.verdict == POOR
    assert broad.broad == ("uv run",)
    assert judge.fired_on("uv run") == 3


def test_firing_on_the_command_the_rule_asks_for_is_wrong(judge: Judge) -> None:
    """'Run make docs before you push' must not refuse 'make docs' itself."""
    found = judge.judge(lesson("Run make docs before you push", commands=("make docs",)))
    assert found.verdict == WRONG
    assert "asks for" in found.reason


def test_a_prohibition_turned_into_an_instruction_is_wrong(judge: Judge) -> None:
    """A 'Do not' bullet imported without its 'not' says the opposite of its source."""
    flipped = judge.judge(lesson("Add migrations with the tool", files=("src/**",)))
    kept = judge.judge(lesson("Do not: add migrations with the tool", files=("src/**",)))
    assert flipped.verdict == WRONG
    assert kept.verdict == GOOD


def test_a_description_is_wrong_and_an_unknown_sentence_is_poor(judge: Judge) -> None:
    """Labelled descriptions are wrong; sentences the labels do not know are poor."""
    found = judge.judge(lesson("`src/api/` holds the HTTP layer.", files=("src/api/**",)))
    assert (found.verdict, found.reason) == (WRONG, "not a rule: a description")
    unknown = judge.judge(lesson("Something else entirely", files=("src/api/**",)))
    assert unknown.verdict == POOR
    assert unknown.label is None


def test_a_quote_across_the_rationale_import_split_off_is_matched(judge: Judge) -> None:
    """ "Never print in API handlers - stdout is the protocol" is one sentence in the
    file; its lesson holds the rule and keeps the reason as its rationale."""
    labels = [label(RULE, "Never print in API handlers - stdout is", files=("src/api/**",))]
    split = lesson("Never print in API handlers.", files=("src/api/*.py",))
    found = Judge(labels, FileIndex(FILES), EVERYDAY).judge(
        replace(split, rationale="stdout is the protocol")
    )
    assert (found.verdict, found.label) == (GOOD, labels[0])
    assert judge.judge(replace(split, rationale="stdout is the protocol")).verdict == GOOD


def test_a_bullet_saying_the_heading_it_completes_is_its_rule() -> None:
    """ "- `src/api/`" under "## Do Not Edit" is "Do not edit `src/api/`": the heading's
    words in the lesson are the bullet's context, not a heading imported as a rule."""
    labels = [
        label(RULE, "`src/api/`", files=("src/api/**",), negated=True),
        label(NOT_RULE, "Do Not Edit", why="a heading"),
    ]
    judge = Judge(labels, FileIndex(FILES), EVERYDAY)
    found = judge.judge(lesson("Do not edit `src/api/`", files=("src/api/**",)))
    assert (found.verdict, found.label) == (GOOD, labels[0])
    assert judge.judge(lesson("Do not edit the docs", files=("src/api/**",))).verdict == WRONG


def test_labels_of_another_file_do_not_match(judge: Judge) -> None:
    """A lesson is judged against the labels of the file it was imported from."""
    other = lesson("Never print in API handlers", files=("src/api/**",))
    other = replace(other, evidence=("import:docs/AGENTS.md",))
    assert judge.judge(other).label is None


def test_one_rule_in_two_folders_files_is_judged_on_both() -> None:
    """The same bullet in `src/api/AGENTS.md` and `src/cli/AGENTS.md` is one lesson on
    both folders: good, carrying both labels; on the tests too it is poor."""
    quote = "Never print to stdout"
    labels = [
        replace(label(RULE, quote, files=("src/api/**",)), file="src/api/AGENTS.md"),
        replace(label(RULE, quote, files=("src/cli/**",)), file="src/cli/AGENTS.md"),
    ]
    judge = Judge(labels, FileIndex(FILES), EVERYDAY)
    both = replace(
        lesson("Never print to stdout.", files=("src/api/**", "src/cli/**")),
        evidence=("import:src/api/AGENTS.md", "import:src/cli/AGENTS.md"),
    )
    found = judge.judge(both)
    assert found.verdict == GOOD
    assert found.carried == tuple(labels)
    wider = judge.judge(replace(both, triggers=Triggers(files=("**/*.py",))))
    assert wider.verdict == POOR
    assert wider.carried == ()


def test_a_lesson_holding_two_labelled_rules_carries_both() -> None:
    """ "Keep handlers thin; never print in them." holds two labelled rules of one file:
    on the handlers' folder it carries both; one whose place it misses is not carried."""
    thin = label(RULE, "Keep handlers thin", files=("src/api/**",))
    silent = label(RULE, "never print in them", files=("src/api/**",))
    elsewhere = label(RULE, "Keep handlers thin", files=("src/cli/**",))
    judge = Judge([thin, silent], FileIndex(FILES), EVERYDAY)
    both = lesson("Keep handlers thin; never print in them.", files=("src/api/**",))
    assert judge.judge(both).carried == (thin, silent)
    judge = Judge([elsewhere, silent], FileIndex(FILES), EVERYDAY)
    assert judge.judge(both).carried == (silent,)


def test_short_quotes_match_whole_text_only() -> None:
    """A one- or two-word quote (a heading) is not found inside a longer sentence."""
    assert holds(words("**Build**"), words("**Build**"))
    assert not holds(words("Build the server binary"), words("**Build**"))
    assert holds(words("Don't edit generated files."), words("do not edit generated"))
    assert not holds(words("running tests"), words("run tests now"))


def test_a_rule_label_must_say_where(tmp_path: Path) -> None:
    """A rule without files or commands is refused, naming the file and entry."""
    path = tmp_path / "labels.json"
    path.write_text(json.dumps({"rules": [{"file": "AGENTS.md", "quote": "Use uv"}]}))
    with pytest.raises(LabelError, match=r"labels.json: rules\[0\]: a rule names where"):
        read_labels(path)


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("not json", "not JSON"),
        ('{"rules": {}}', "'rules' must be a list"),
        ('{"extra": []}', "keys among"),
        ('{"not_rules": ["x"]}', r"not_rules\[0\] is not an object"),
        ('{"not_rules": [{"file": "A.md", "quote": "..."}]}', "no words to find"),
        ('{"not_rules": [{"file": "A.md"}]}', "'quote' must be a non-empty string"),
        ('{"rules": [{"file": "A.md", "quote": "a b c", "files": "x"}]}', "list of non-empty"),
    ],
)
def test_a_bad_labels_file_is_refused_by_name(tmp_path: Path, content: str, message: str) -> None:
    """Each mistake in a labels file is named with the file and the entry at fault."""
    path = tmp_path / "labels.json"
    path.write_text(content)
    with pytest.raises(LabelError, match=message):
        read_labels(path)


def test_a_bad_index_is_refused(tmp_path: Path) -> None:
    """No projects, an entry that is no object, a held_out that is no boolean, a missing
    file: each is refused naming the index."""
    index = tmp_path / "index.json"
    for content, message in (
        ('{"projects": []}', "at least one project"),
        ('{"projects": [3]}', "is not an object"),
        ('{"projects": [{"dir": "p", "held_out": "yes"}]}', "'held_out' must be true or false"),
    ):
        (tmp_path / "p").mkdir(exist_ok=True)
        (tmp_path / "p" / "files.txt").write_text("a.py\n")
        index.write_text(content)
        with pytest.raises(LabelError, match=message):
            read_index(index)
    with pytest.raises(LabelError, match="cannot read it"):
        read_index(tmp_path / "missing.json")


def test_an_index_entry_without_a_file_list_is_refused(tmp_path: Path) -> None:
    """Each project folder must hold files.txt."""
    (tmp_path / "p").mkdir()
    (tmp_path / "index.json").write_text(json.dumps({"projects": [{"dir": "p"}]}))
    with pytest.raises(LabelError, match=r"has no files\.txt"):
        read_index(tmp_path / "index.json")


def test_a_path_leaving_the_repo_is_refused(tmp_path: Path) -> None:
    """A file list naming '../x' is not a repo-relative path."""
    folder = tmp_path / "p"
    folder.mkdir()
    (folder / "files.txt").write_text("ok.py\n../escape.py\n")
    (folder / "labels.json").write_text("{}")
    (tmp_path / "index.json").write_text(
        json.dumps({"projects": [{"dir": "p", "repo": "a/b", "language": "Go", "licence": "MIT"}]})
    )
    project = read_index(tmp_path / "index.json")[0]
    with pytest.raises(LabelError, match="not a plain repo-relative path"):
        materialise(project, tmp_path / "repo")


def small_project(tmp_path: Path) -> Path:
    folder = tmp_path / "fixtures" / "demo"
    (folder / "files" / "src").mkdir(parents=True)
    (folder / "files.txt").write_text("AGENTS.md\nsrc/app.py\nsrc/db.py\n")
    (folder / "files" / "AGENTS.md.vendored").write_text("# Demo\n\nThe app lives in `src/`.\n")
    (folder / "labels.json").write_text(
        json.dumps({"not_rules": [{"file": "AGENTS.md", "quote": "The app lives in"}]})
    )
    index = tmp_path / "fixtures" / "index.json"
    index.write_text(
        json.dumps(
            {"projects": [{"dir": "demo", "repo": "o/demo", "language": "Go", "licence": "MIT"}]}
        )
    )
    return index


def test_a_project_is_rebuilt_with_its_files_and_vendored_text(tmp_path: Path) -> None:
    """Listed paths become empty files, vendored ones keep their text, all committed."""
    project = read_index(small_project(tmp_path))[0]
    root = tmp_path / "repo"
    materialise(project, root)
    assert (root / "src" / "db.py").read_text() == ""
    assert (root / "AGENTS.md").read_text().startswith("# Demo")
    result = evaluate_project(project)
    figures = result.figures
    assert figures.imported == figures.good + figures.poor + figures.wrong
    assert figures.rules == 0
    assert result.breadth.prefixes == 0


def test_figures_add_up_and_an_empty_share_meets_its_goal() -> None:
    """Totals sum per field; nothing imported and nothing labelled meets every goal."""
    one = Figures(imported=2, good=1, wrong=1, rules=4, carried=1)
    both = one + Figures(imported=2, good=2, rules=1, carried=1)
    assert (both.imported, both.good, both.rules, both.carried) == (4, 3, 5, 2)
    assert both.shares["good"] == 0.75
    assert both.shares["carried"] == 0.4
    assert all(Figures().met.values())
    assert not one.met["wrong"]
    assert not one.met["good"]


def test_every_label_quotes_its_vendored_file() -> None:
    """Labels stay true to the sources: each names a vendored file whose words hold its quote."""
    for project in read_index(INDEX):
        texts = {
            path.relative_to(project.dir / "files").as_posix().removesuffix(".vendored"): words(
                path.read_text()
            )
            for path in (project.dir / "files").rglob("*.vendored")
        }
        for item in project.labels:
            assert item.file in texts, f"{project.repo}: {item.file} is not vendored"
            assert holds(texts[item.file], item.words) or len(item.words.split()) < 3, (
                f"{project.repo}: '{item.quote}' is not in {item.file}"
            )


def test_every_placed_rule_names_files_the_project_tracks() -> None:
    """A rule scoped to files whose globs match none of the project's paths could never
    be carried by a good lesson."""
    for project in read_index(INDEX):
        files = FileIndex((project.dir / "files.txt").read_text().split("\n")[:-1])
        for item in project.rules:
            if item.files:
                assert any(files.count(compile_glob(glob)) for glob in item.files), (
                    f"{project.repo}: '{item.quote}' names no tracked file"
                )


def test_the_fixtures_cover_the_languages_with_notices_and_held_out_projects() -> None:
    """At least ten projects in four languages, three or more held out, each with its
    licence, a notice naming its source, and labelled rules."""
    projects = read_index(INDEX)
    assert len(projects) >= 10
    assert {p.language for p in projects} >= {"Python", "TypeScript", "Go", "Rust"}
    assert sum(p.held_out for p in projects) >= 3
    for project in projects:
        assert f"https://github.com/{project.repo}" in (project.dir / "NOTICE").read_text()
        assert (project.dir / "LICENSE").stat().st_size > 500
    assert sum(len(p.rules) for p in projects) >= 100


def test_eval_import_over_every_fixture(tmp_path: Path) -> None:
    """The command over all vendored projects: JSON per project and in total, tuned and
    held out apart, counts that add up, and exit 1 exactly when a goal is missed."""
    result = run("eval", "--import", str(INDEX), "--json")
    report = json.loads(result.stdout)
    assert result.exit_code == (0 if report["met"] else 1)
    projects = report["projects"]
    assert len(projects) == len(read_index(INDEX))
    for project in projects:
        assert project["imported"] == project["good"] + project["poor"] + project["wrong"]
        assert project["imported"] == len(project["lessons"])
        assert project["carried"] <= project["rules"]
        breadth = project["breadth"]
        assert breadth["commands"] == len(breadth["everyday_commands"])
        assert set(breadth["naive_triggers"]) >= {"uv run", "npx", "gh", "just"}
        assert all(0 <= n <= breadth["commands"] for n in breadth["naive_triggers"].values())
        for judged in project["lessons"]:
            assert judged["verdict"] in (GOOD, POOR, WRONG)
    held = [p for p in projects if p["held_out"]]
    assert report["held_out"]["imported"] == sum(p["imported"] for p in held)
    assert report["total"]["rules"] == sum(p["rules"] for p in projects)


def test_the_text_report_has_a_row_per_project_and_the_breadth_lines(tmp_path: Path) -> None:
    """Two projects, one held out: their rows, the tuned, held-out and overall totals,
    the goals, the naive triggers that would be broad, and which goals are missed."""
    picked = [p for p in json.loads(INDEX.read_text())["projects"] if p["dir"] in SMALL]
    for entry in picked:
        entry["dir"] = str(FIXTURES / entry["dir"])
        entry["held_out"] = entry["dir"].endswith("ollama__ollama")
    index = tmp_path / "index.json"
    index.write_text(json.dumps({"projects": picked}))
    result = run("eval", "--import", str(index))
    lines = result.stdout.splitlines()
    assert lines[0].split()[:4] == ["project", "imported", "good", "poor"]
    assert [line.split()[0] for line in lines[1:6]] == [
        "simonw/llm",
        "tuned",
        "ollama/ollama",
        "held",
        "all",
    ]
    assert lines[6].startswith("goal")
    assert ">=90%" in lines[6]
    breadth = next(line for line in lines if line.startswith("  simonw/llm: "))
    assert re.fullmatch(
        r"  simonw/llm: \d+ commands, \d+ programs and prefixes; .*'uv' \d+/\d+", breadth
    )
    assert lines[-1] == "every goal met" if result.exit_code == 0 else lines[-1].startswith("goals")


def test_import_takes_no_other_mode(tmp_path: Path) -> None:
    """--import with CASES is a usage error."""
    cases = tmp_path / "cases.jsonl"
    cases.write_text("")
    result = run("eval", str(cases), "--import", str(INDEX))
    assert result.exit_code == 2
    assert "--import scores the importer" in result.stderr
