"""L204 (lessons that contradict each other), L205/L206 (a lesson against the project's
CLAUDE.md / AGENTS.md), near-copies as one cluster (L202), and their measured quality."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from lessons_core.authoring.guards import similarity
from lessons_core.authoring.stances import opposed, stances
from lessons_core.eval.conflicts import read_pairs, score_pairs
from lessons_core.store.layout import Layout
from lessons_core.store.model import Lesson, Triggers
from lessons_core.validate import Finding, validate
from lessons_core.validate.contradictions import contradictions
from lessons_core.validate.overlap import shared_trigger
from tests.conftest import git, run
from tests.lesson_graphs import make_project, write_lesson

PAIRS = Path(__file__).resolve().parent / "fixtures" / "conflicts" / "pairs.json"


def found(layout: Layout, code: str) -> list[Finding]:
    return [f for f in validate(layout).findings if f.code == code]


# Stances, in every language the correction cues cover.


@pytest.mark.parametrize(
    ("first", "second"),
    [
        ("Never push tags.", "Always push tags."),
        ("Use pnpm instead of npm.", "Use npm instead of pnpm."),
        ("Prefer `pathlib` over `os.path`.", "Prefer `os.path` over `pathlib`."),
        ("Always use pnpm, never npm.", "Use npm instead of pnpm."),
        ("Don't forget to run `pnpm build` first.", "Never run `pnpm build` first."),
        ("Nie `npm` verwenden.", "Always use `npm`."),
        ("Verwende `pnpm` statt `npm`.", "Nie `pnpm` verwenden."),
        ("N'utilise jamais `yarn`.", "Utilise toujours `yarn`."),
        ("Nunca uses `npm`.", "Usa siempre `npm`."),
        ("Não use `console.log`.", "Sempre use `console.log`."),
        ("Никогда не используй `npm`.", "Всегда используй `npm`."),
        ("不要用 `npm` 安装依赖", "总是用 `npm` 安装依赖"),
        ("`npm` ではなく `pnpm` を使ってください", "`pnpm` ではなく `npm` を使ってください"),
        ("`yarn` 말고 `pnpm`을 사용하세요", "항상 `yarn`을 사용하세요"),
    ],
)
def test_opposite_rules_hold_opposite_stances(first: str, second: str) -> None:
    assert opposed(stances(first), stances(second)) is not None


@pytest.mark.parametrize(
    ("first", "second"),
    [
        ("Never push to main.", "Always push tags."),
        ("Use pathlib.", "Don't use pathlib.Path.resolve() on user input."),
        ("If CI is red, never push.", "Always push."),
        ("Never use `--force` with git push.", "Use `--force-with-lease` with git push."),
        ("Never use npm.", "Use pnpm instead of npm."),  # both are against npm
        ("`npm`を使わないで", "`npm` ではなく `pnpm` を使って"),
        ("Não use `console.log` no código.", "Use `console.log` no teste."),
        # A clause in the middle of a description is for nothing ("input length").
        ("Bound total NFA work, not input length.", "Cap states, input length, and time."),
    ],
)
def test_rules_about_different_things_do_not_oppose(first: str, second: str) -> None:
    assert opposed(stances(first), stances(second)) is None


# Trigger overlap.


@pytest.mark.parametrize(
    ("first", "second", "meet"),
    [
        (Triggers(files=("src/db/*.py",)), Triggers(files=("src/**/*.py",)), True),
        (Triggers(files=("**/*.ts",)), Triggers(files=("src/cli/index.ts",)), True),
        (Triggers(files=("src/db/*.py",)), Triggers(files=("src/api/**",)), False),
        (Triggers(commands=("git push",)), Triggers(commands=("(?:git push.*--force)",)), True),
        (Triggers(commands=("git push",)), Triggers(commands=("git commit",)), False),
        (Triggers(keywords=("read-only",)), Triggers(keywords=("Read only",)), True),
        (Triggers(keywords=("alembic",)), Triggers(files=("alembic/**",)), False),
    ],
)
def test_triggers_meet_when_one_call_fires_both(
    first: Triggers, second: Triggers, meet: bool
) -> None:
    assert (shared_trigger(first, second) is not None) is meet


# L204 through validate, on files on disk.


def test_l204_names_both_lessons_their_words_and_the_fix(tmp_path: Path) -> None:
    layout = make_project(tmp_path)
    write_lesson(layout, "vcs-never-tags", "Never push tags.", commands=["git push"])
    write_lesson(
        layout,
        "vcs-always-tags",
        "Always push tags. A release without one cannot be found again.",
        commands=["git push --tags"],
        created="2026-02-01",
    )
    [finding] = found(layout, "L204")
    assert finding.lesson_id == "vcs-always-tags"
    assert finding.line == 5  # the "rule" line of the file
    assert "'vcs-never-tags'" in finding.message
    assert '"Always push tags"' in finding.message
    assert '"Never push tags"' in finding.message
    assert "lessons supersede vcs-always-tags --by vcs-never-tags" in finding.fix
    assert "narrow a trigger" in finding.fix


def test_l204_quiet_when_the_triggers_never_fire_together(tmp_path: Path) -> None:
    layout = make_project(tmp_path)
    write_lesson(layout, "py-tabs", "Never use tabs.", files=["src/**/*.py"])
    write_lesson(layout, "make-tabs", "Always use tabs.", files=["Makefile"])
    assert found(layout, "L204") == []


def test_l204_quiet_when_one_is_deprecated(tmp_path: Path) -> None:
    layout = make_project(tmp_path)
    write_lesson(layout, "vcs-a", "Never push tags.", commands=["git push"])
    write_lesson(layout, "vcs-b", "Always push tags.", commands=["git push"], status="deprecated")
    assert found(layout, "L204") == []


def test_l204_quiet_on_the_same_topic_about_another_object(tmp_path: Path) -> None:
    layout = make_project(tmp_path)
    write_lesson(layout, "vcs-main", "Never push to main.", commands=["git push"])
    write_lesson(layout, "vcs-tags", "Always push tags.", commands=["git push"])
    assert found(layout, "L204") == []


def test_l204_one_finding_a_lesson_however_many_it_contradicts() -> None:
    """Ten copies of "never" against ten of "always": one finding for each newer lesson
    that contradicts an older one, each naming at most five others, not 100 pairs."""
    lessons = [
        Lesson(
            id=f"vcs-{n:02d}",
            rule="Never push tags." if n % 2 else "Always push tags.",
            topics=("vcs",),
            triggers=Triggers(commands=("git push",)),
            created=f"2026-01-{n + 1:02d}",
        )
        for n in range(20)
    ]
    found_pairs = contradictions(lessons)
    assert [c.newer.id for c in found_pairs] == [f"vcs-{n:02d}" for n in range(1, 20)]
    assert all(len(c.others) <= 4 for c in found_pairs)


# L205 / L206: the project's instruction files.


def _agents_md(tmp_path: Path, text: str, name: str = "AGENTS.md") -> Layout:
    layout = make_project(tmp_path)
    (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
    (tmp_path / name).write_text(text)
    git(tmp_path, "add", name)
    return layout


def test_l205_names_the_file_and_line_it_contradicts(tmp_path: Path) -> None:
    layout = _agents_md(
        tmp_path, "# Rules\n\n- Keep it short.\n- Never edit `src/db/models.py` by hand.\n"
    )
    write_lesson(layout, "db-hand", "Edit src/db/models.py by hand.", files=["src/db/models.py"])
    [finding] = found(layout, "L205")
    assert finding.lesson_id == "db-hand"
    assert "AGENTS.md:4" in finding.message
    assert "file 'src/db/models.py'" in finding.message
    assert '"Never edit src/db/models.py by hand"' in finding.message
    assert "line 4 of AGENTS.md" in finding.fix


def test_l205_quiet_when_the_file_agrees_or_speaks_in_code(tmp_path: Path) -> None:
    text = (
        "- Never edit `src/db/models.py` by hand.\n"
        "```\nEdit src/db/models.py by hand.\n```\n"
        "<!-- lessons:start -->\nEdit src/db/models.py by hand.\n<!-- lessons:end -->\n"
    )
    layout = _agents_md(tmp_path, text, "CLAUDE.md")
    write_lesson(layout, "db-hand", "Never edit src/db/models.py by hand.", files=["src/db/**"])
    write_lesson(layout, "db-other", "Edit docs/guide.md by hand.", files=["docs/guide.md"])
    assert found(layout, "L205") == []


def test_l205_reads_a_bullet_under_a_do_not_heading_as_a_prohibition(tmp_path: Path) -> None:
    """ "- `src/db/models.py`" under "## Do Not Edit" forbids editing it, as a lesson does."""
    layout = _agents_md(tmp_path, "## Do Not Edit\n\n- `src/db/models.py`\n")
    write_lesson(layout, "db-hand", "Do not edit `src/db/models.py`.", files=["src/db/models.py"])
    assert found(layout, "L205") == []
    write_lesson(layout, "db-edit", "Edit `src/db/models.py`.", files=["src/db/models.py"])
    [finding] = found(layout, "L205")
    assert finding.lesson_id == "db-edit"


def test_l205_reads_a_nested_tracked_file(tmp_path: Path) -> None:
    layout = _agents_md(tmp_path, "- Always run `alembic upgrade head` first.\n", "src/AGENTS.md")
    write_lesson(
        layout, "db-upgrade", "Never run alembic upgrade head first.", commands=["alembic upgrade"]
    )
    [finding] = found(layout, "L205")
    assert "src/AGENTS.md:1" in finding.message


def test_l206_refuses_a_link_out_of_the_repo_by_name(tmp_path: Path) -> None:
    outside = tmp_path / "outside.md"
    outside.write_text("- Edit `src/db/models.py` by hand.\n")
    layout = make_project(tmp_path / "repo")
    os.symlink(outside, tmp_path / "repo" / "CLAUDE.md")
    write_lesson(layout, "db-hand", "Never edit src/db/models.py by hand.", files=["src/db/**"])
    [notice] = found(layout, "L206")
    assert notice.file == "CLAUDE.md"
    assert "is a symbolic link to" in notice.message
    assert "outside the repo" in notice.message
    assert found(layout, "L205") == []  # what it leads to is never read


def test_a_link_inside_the_repo_is_read_once(tmp_path: Path) -> None:
    layout = _agents_md(tmp_path, "- Never edit `src/db/models.py` by hand.\n")
    os.symlink("AGENTS.md", tmp_path / "CLAUDE.md")
    write_lesson(layout, "db-hand", "Edit src/db/models.py by hand.", files=["src/db/models.py"])
    assert [f.message.split(":")[0] for f in found(layout, "L205")] == [
        "the rule contradicts CLAUDE.md"
    ]
    assert found(layout, "L206") == []


def test_l206_on_a_file_that_is_not_utf8(tmp_path: Path) -> None:
    layout = make_project(tmp_path)
    (tmp_path / "AGENTS.md").write_bytes(b"\xff\xfe never")
    write_lesson(layout, "db-hand", "Never edit src/db/models.py by hand.", files=["src/db/**"])
    [notice] = found(layout, "L206")
    assert notice.file == "AGENTS.md"


# L202: near-copies as one cluster.


def test_many_rewordings_of_one_rule_are_one_finding(tmp_path: Path) -> None:
    layout = make_project(tmp_path)
    wordings = [
        "Run alembic upgrade head before the integration tests.",
        "Always run alembic upgrade head before integration tests.",
        "Run alembic upgrade head before integration tests, always.",
        "Run `alembic upgrade head` before the integration tests!",
        "Before the integration tests, run alembic upgrade head.",
        "Please run alembic upgrade head before integration tests.",
    ]
    for n, rule in enumerate(wordings):
        write_lesson(layout, f"db-{n}", rule, files=["src/db/**"], created=f"2026-01-0{n + 1}")
    [finding] = found(layout, "L202")
    assert finding.lesson_id == "db-5"
    assert "one of 6 near-copies of active lesson 'db-0'" in finding.message
    assert all(f"db-{n}" in finding.message for n in range(1, 5))


def test_opposite_rules_are_a_contradiction_not_a_copy(tmp_path: Path) -> None:
    """ "Never"/"always" are common words, so the two rules share every meaningful word."""
    layout = make_project(tmp_path)
    write_lesson(layout, "vcs-a", "Never push release tags.", commands=["git push"])
    write_lesson(layout, "vcs-b", "Always push release tags.", commands=["git push"])
    codes = {f.code for f in validate(layout).findings}
    assert "L204" in codes
    assert "L202" not in codes


def test_opposite_stances_on_the_same_flag_worded_apart_contradict(tmp_path: Path) -> None:
    """The same flag and command, for in one rule and against in the other, worded apart:
    L204 on the newer one, quoting both stances."""
    layout = make_project(tmp_path)
    write_lesson(layout, "deps-legacy",
                 "Always run npm install with --legacy-peer-deps in this repo.",
                 commands=["npm install"], created="2026-01-01")  # fmt: skip
    write_lesson(layout, "deps-ranges",
                 "Never pass --legacy-peer-deps to npm install; fix the peer ranges instead.",
                 commands=["npm install"], created="2026-01-02")  # fmt: skip
    (finding,) = found(layout, "L204")
    assert finding.lesson_id == "deps-ranges"
    assert "contradicts active lesson 'deps-legacy'" in finding.message
    assert "Never pass --legacy-peer-deps to npm install" in finding.message


@pytest.mark.parametrize(
    ("first", "second"),
    [
        # The same flag, other objects: a lease is not a force push.
        ("Never use --force with git push.", "Always use --force-with-lease with git push."),
        # The same variable, another place: through env, not into the script.
        ("Never interpolate `${{ inputs.tag }}` into `run:` bodies.",
         "Always pass `${{ inputs.tag }}` through `env:`."),
        # The same code, said of something else.
        ("`tmpdir` is from `node:os`, not `node:path`.",
         "Use `basename(path)` from `node:path` for file names."),
        # Two paths that end in the same folder: one's own sources, another's.
        ("NEVER import from `@trpc/*/src`.",
         "Import TanStack React Query utilities from `../src`."),
    ],
)  # fmt: skip
def test_the_same_code_about_other_things_is_no_contradiction(first: str, second: str) -> None:
    """Naming the same code is not enough: the rest of the shorter clause must be said
    in the other too."""
    one = Lesson.from_dict(_lesson("a-one", first), Path("a.json"))
    two = Lesson.from_dict(_lesson("a-two", second), Path("b.json"))
    assert contradictions([one, two]) == []


def _lesson(lesson_id: str, rule: str) -> dict[str, object]:
    return {
        "id": lesson_id, "rule": rule, "topics": ["x"], "status": "active",
        "created": "2026-01-01",
        "triggers": {"files": [], "commands": ["git push"], "keywords": []},
    }  # fmt: skip


# Measured on the labelled pairs.


def test_the_labelled_pairs_score_as_documented() -> None:
    """Precision first: no false alarm on the fixtures, and the recall docs/validate.md
    gives; a change that moves these figures updates the docs with them."""
    score = score_pairs(read_pairs(PAIRS))
    assert score.pairs >= 60
    assert score.contradictions.false_alarms == ()
    assert score.near_copies.false_alarms == ()
    assert (score.contradictions.hits, len(score.contradictions.labelled)) == (26, 28)
    assert (score.near_copies.hits, len(score.near_copies.labelled)) == (10, 11)
    docs = (Path(__file__).resolve().parents[1] / "docs" / "validate.md").read_text()
    assert score.summary() in docs


def test_the_held_out_pairs_raise_no_false_alarm() -> None:
    """Pairs written after the checks were tuned on pairs.json, and never tuned on."""
    score = score_pairs(read_pairs(PAIRS.with_name("held-out.json")))
    assert score.contradictions.false_alarms == ()
    assert score.near_copies.false_alarms == ()
    assert (
        score.summary()
        in (Path(__file__).resolve().parents[1] / "docs" / "validate.md").read_text()
    )


def test_eval_conflicts_prints_the_line_and_fails_on_a_false_alarm(tmp_path: Path) -> None:
    result = run("eval", "--conflicts", str(PAIRS))
    assert result.exit_code == 0, result.output
    assert result.stdout.startswith("contradictions: precision 1.000, recall 0.929")
    wrong = tmp_path / "pairs.json"
    pair = {
        "name": "tags",
        "label": "agree",
        "a": {"rule": "Never push tags.", "commands": ["git push"]},
        "b": {"rule": "Always push tags.", "commands": ["git push"]},
    }
    wrong.write_text(json.dumps({"pairs": [pair]}))
    result = run("eval", "--conflicts", str(wrong))
    assert result.exit_code == 1
    assert "FALSE ALARM contradiction: tags" in result.stdout
    data = json.loads(run("eval", "--conflicts", str(wrong), "--json").stdout)
    assert data["contradictions"]["false_alarms"] == ["tags"]


def test_a_bad_pairs_file_names_the_pair_and_the_fault(tmp_path: Path) -> None:
    bad = tmp_path / "pairs.json"
    bad.write_text(json.dumps({"pairs": [{"name": "x", "label": "maybe", "a": {}, "b": {}}]}))
    result = run("eval", "--conflicts", str(bad))
    assert result.exit_code != 0
    assert "pair 1 ('x'): label must be one of" in result.output


def test_lessons_add_takes_the_opposite_rule_as_no_duplicate(repo: Layout) -> None:
    """Capture judges near-duplicates as L202 does: the opposite rule is added (and
    validate names the pair L204), a rewording is still refused."""
    first = run("add", "Never push release tags.", "--topic", "vcs", "--trigger-cmd", "git push")
    assert first.exit_code == 0, first.output
    opposite = run(
        "add", "Always push release tags.", "--topic", "vcs", "--trigger-cmd", "git push"
    )
    assert opposite.exit_code == 0, opposite.output
    copy = run("add", "Don't push release tags!", "--topic", "vcs", "--trigger-cmd", "git push")
    assert copy.exit_code != 0
    assert "100% like" in copy.output
    assert [f.code for f in validate(repo).findings if f.code.startswith("L20")] == ["L204"]


def test_rule_terms_read_short_negations_and_plurals() -> None:
    assert (
        similarity(
            "Never embed tokens in git remote URLs.", "Never embed a token in a git remote URL."
        )
        == 1.0
    )
    assert similarity("Don't forget to run pnpm typecheck.", "Always run pnpm typecheck.") < 1.0
    assert similarity("Don't commit the last-run file.", "Do not commit the last-run file.") == 1.0
