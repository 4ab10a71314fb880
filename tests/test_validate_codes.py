"""Every validate code: one test that makes it fire, one that keeps it quiet."""

from __future__ import annotations

from pathlib import Path

import pytest

from lessons_core.matching.commit_messages import UNTYPED_COMMIT
from lessons_core.matching.thresholds import NEVER_RECALLED_MIN_RECALLS, REPEATED_FAILURE_MIN
from lessons_core.store.config import Config, load_config
from lessons_core.store.layout import Layout
from lessons_core.store.project import init_project
from lessons_core.validate import validate
from tests.lesson_graphs import log_failure, log_recall, make_project, write_lesson, write_raw


def codes(layout: Layout) -> set[tuple[str, str | None]]:
    return {(f.code, f.lesson_id) for f in validate(layout).findings}


def only_codes(layout: Layout) -> set[str]:
    return {f.code for f in validate(layout).findings}


def good(layout: Layout, lesson_id: str = "db-good", **fields: object) -> None:
    fields.setdefault("files", ["src/db/models.py"])
    write_lesson(layout, lesson_id, "Declare every column of the models as non-null.", **fields)


# L001-L011: schema


def test_l001_fires_on_a_file_that_is_not_json(tmp_path: Path) -> None:
    """A lesson file that does not parse is L001."""
    layout = make_project(tmp_path)
    write_raw(layout, "db-broken.json", "{not json")
    assert ("L001", "db-broken") in codes(layout)


def test_l001_quiet_on_valid_json(tmp_path: Path) -> None:
    """A well-formed lesson file raises no L001."""
    layout = make_project(tmp_path)
    good(layout)
    assert "L001" not in only_codes(layout)


def test_l002_fires_on_an_unknown_field(tmp_path: Path) -> None:
    """A field the schema does not know is L002."""
    layout = make_project(tmp_path)
    good(layout, colour="red")
    assert ("L002", "db-good") in codes(layout)


def test_l002_quiet_with_optional_fields(tmp_path: Path) -> None:
    """Known optional fields (rationale, gate) are not L002."""
    layout = make_project(tmp_path)
    good(layout, rationale="Nulls broke the reports.", gate=True)
    assert "L002" not in only_codes(layout)


def test_l003_fires_on_a_missing_field(tmp_path: Path) -> None:
    """A lesson without a created date is L003."""
    layout = make_project(tmp_path)
    path = write_lesson(layout, "db-nodate", "Declare columns non-null.", files=["src/**"])
    path.write_text(path.read_text().replace('"created": "2026-01-01",', ""))
    assert ("L003", "db-nodate") in codes(layout)


def test_l003_quiet_when_every_required_field_is_there(tmp_path: Path) -> None:
    """A complete lesson is not L003."""
    layout = make_project(tmp_path)
    good(layout)
    assert "L003" not in only_codes(layout)


def test_l004_fires_on_an_unknown_status(tmp_path: Path) -> None:
    """status 'retired' is L004."""
    layout = make_project(tmp_path)
    good(layout, status="retired")
    assert ("L004", "db-good") in codes(layout)


def test_l004_quiet_on_deprecated(tmp_path: Path) -> None:
    """status 'deprecated' is valid."""
    layout = make_project(tmp_path)
    good(layout, status="deprecated")
    assert "L004" not in only_codes(layout)


def test_l005_fires_on_a_bad_date(tmp_path: Path) -> None:
    """created 'yesterday' is L005."""
    layout = make_project(tmp_path)
    good(layout, created="yesterday")
    assert ("L005", "db-good") in codes(layout)


def test_l005_quiet_on_an_iso_date(tmp_path: Path) -> None:
    """created '2026-03-04' is valid."""
    layout = make_project(tmp_path)
    good(layout, created="2026-03-04")
    assert "L005" not in only_codes(layout)


def test_l006_fires_when_the_id_differs_from_the_file_name(tmp_path: Path) -> None:
    """A file db-a.json holding id db-b is L006."""
    layout = make_project(tmp_path)
    path = write_lesson(layout, "db-b", "Declare columns non-null.", files=["src/db/**"])
    path.rename(layout.lessons_dir / "db-a.json")
    found = validate(layout).findings
    assert [(f.code, f.file, f.line) for f in found if f.code == "L006"] == [
        ("L006", ".lessons/lessons/db-a.json", 4)
    ]


def test_l006_quiet_when_id_and_file_name_agree(tmp_path: Path) -> None:
    """A lesson in its own id's file is not L006."""
    layout = make_project(tmp_path)
    good(layout)
    assert "L006" not in only_codes(layout)


def test_l007_fires_on_a_dangling_superseded_by(tmp_path: Path) -> None:
    """superseded_by naming no lesson is L007."""
    layout = make_project(tmp_path)
    good(layout, status="superseded", superseded_by="db-ghost")
    assert ("L007", "db-good") in codes(layout)


def test_l007_quiet_when_the_successor_exists(tmp_path: Path) -> None:
    """superseded_by naming an active lesson is fine."""
    layout = make_project(tmp_path)
    good(layout, status="superseded", superseded_by="db-new")
    write_lesson(layout, "db-new", "Use the NOT NULL helper for columns.", files=["src/db/**"])
    assert {"L007", "L008"}.isdisjoint(only_codes(layout))


def test_l008_fires_when_the_successor_is_deprecated(tmp_path: Path) -> None:
    """A successor that is itself deprecated is L008."""
    layout = make_project(tmp_path)
    good(layout, status="superseded", superseded_by="db-new")
    write_lesson(
        layout, "db-new", "Use the NOT NULL helper.", files=["src/**"], status="deprecated"
    )
    assert ("L008", "db-good") in codes(layout)


def test_l008_quiet_without_superseded_by(tmp_path: Path) -> None:
    """An active lesson with no successor is not L008."""
    layout = make_project(tmp_path)
    good(layout)
    assert "L008" not in only_codes(layout)


def test_l009_fires_on_a_glob_outside_the_repo(tmp_path: Path) -> None:
    """'../x/**' is L009."""
    layout = make_project(tmp_path)
    good(layout, files=["../outside/**"])
    assert ("L009", "db-good") in codes(layout)


def test_l009_quiet_on_a_repo_glob(tmp_path: Path) -> None:
    """'src/db/**' compiles."""
    layout = make_project(tmp_path)
    good(layout, files=["src/db/**"])
    assert "L009" not in only_codes(layout)


def test_l010_fires_on_a_backreference(tmp_path: Path) -> None:
    """A pattern RE2 refuses is L010, pointing at its line."""
    layout = make_project(tmp_path)
    good(layout, commands=["(git) \\1"])
    found = [f for f in validate(layout).findings if f.code == "L010"]
    assert len(found) == 1
    assert found[0].line is not None
    assert "backreferences" in found[0].message


def test_l010_quiet_on_a_literal_command(tmp_path: Path) -> None:
    """'git push --force' compiles."""
    layout = make_project(tmp_path)
    good(layout, commands=["git push --force"])
    assert "L010" not in only_codes(layout)


def test_l011_fires_on_a_misspelt_setting(tmp_path: Path) -> None:
    """An unknown key in config.json is L011 on that file."""
    layout = make_project(tmp_path)
    layout.config_path.write_text('{"telemtry": true}\n')
    found = [f for f in validate(layout).findings if f.code == "L011"]
    assert [(f.file, f.line) for f in found] == [(".lessons/config.json", 1)]


def test_l011_quiet_on_the_default_config(tmp_path: Path) -> None:
    """The config init writes is valid."""
    layout = make_project(tmp_path)
    assert "L011" not in only_codes(layout)


def test_l011_names_each_bad_setting_and_recall_keeps_the_others(tmp_path: Path) -> None:
    """Three bad settings are three findings; recall runs with their defaults and the good
    setting as written."""
    layout = make_project(tmp_path)
    layout.config_path.write_text(
        '{"max_tokens": "600", "max_trigger_matches": -1, "delivery_file": "loud",'
        ' "max_prompt_matches": 1}\n'
    )
    found = sorted(f.message for f in validate(layout).findings if f.code == "L011")
    assert found == [
        "setting 'delivery_file' must be 'gate' or 'context'; the default \"gate\" is used",
        "setting 'max_tokens' must be a whole number; the default 600 is used",
        "setting 'max_trigger_matches' must not be negative; the default 3 is used",
    ]
    assert load_config(layout.config_path) == Config(max_prompt_matches=1)


def test_a_config_holding_nan_is_not_json(tmp_path: Path) -> None:
    """NaN is not JSON: config.json holding it is reported unparsable, as any other file
    of the store, and recall runs with the defaults."""
    layout = make_project(tmp_path)
    layout.config_path.write_text('{"max_tokens": NaN}\n')
    assert "not valid JSON" in next(
        f.message for f in validate(layout).findings if f.code == "L011"
    )
    assert load_config(layout.config_path) == Config()


def test_l012_fires_on_a_keyword_that_can_never_fire(tmp_path: Path) -> None:
    """A keyword without letters or digits is L012."""
    layout = make_project(tmp_path)
    good(layout, keywords=["--"])
    assert ("L012", "db-good") in codes(layout)


def test_l012_quiet_on_a_real_keyword(tmp_path: Path) -> None:
    """'alembic' is a keyword."""
    layout = make_project(tmp_path)
    good(layout, keywords=["alembic"])
    assert "L012" not in only_codes(layout)


# L101-L106: triggers


def test_l101_fires_on_a_glob_matching_no_tracked_file(tmp_path: Path) -> None:
    """'src/legacy/**' in a repo without src/legacy is L101."""
    layout = make_project(tmp_path)
    good(layout, files=["src/legacy/**"])
    assert ("L101", "db-good") in codes(layout)


def test_l101_quiet_on_a_glob_matching_files(tmp_path: Path) -> None:
    """'src/db/**' matches tracked files."""
    layout = make_project(tmp_path)
    good(layout, files=["src/db/**"])
    assert "L101" not in only_codes(layout)


def test_l101_reads_the_tree_outside_git_honouring_gitignore(tmp_path: Path) -> None:
    """Outside git, a glob matching only ignored files is dead, one matching others is not."""
    (tmp_path / "build").mkdir()
    (tmp_path / "build" / "out.js").write_text("x")
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "app.py").write_text("x")
    (tmp_path / ".gitignore").write_text("build/\n")
    layout, _ = init_project(tmp_path)
    write_lesson(layout, "build-a", "Never edit the bundle by hand.", files=["build/**"])
    write_lesson(layout, "src-b", "Keep app startup import-free.", files=["src/app.py"])
    found = codes(layout)
    assert ("L101", "build-a") in found
    assert ("L101", "src-b") not in found


def test_l102_fires_on_a_glob_naming_a_folder(tmp_path: Path) -> None:
    """'src/db' names a directory: L102, with the dir/** fix."""
    layout = make_project(tmp_path)
    good(layout, files=["src/db"])
    found = [f for f in validate(layout).findings if f.code == "L102"]
    assert len(found) == 1
    assert "'src/db/**'" in found[0].fix


def test_l102_quiet_on_a_file_path(tmp_path: Path) -> None:
    """'src/db/models.py' names a file."""
    layout = make_project(tmp_path)
    good(layout, files=["src/db/models.py"])
    assert "L102" not in only_codes(layout)


def test_l103_fires_on_a_glob_matching_most_files(tmp_path: Path) -> None:
    """'src/**' matches 7 of 12 files: L103."""
    layout = make_project(tmp_path)
    good(layout, files=["src/**"])
    assert ("L103", "db-good") in codes(layout)


def test_l103_fires_on_double_star(tmp_path: Path) -> None:
    """'**' is L103 even in a small repo."""
    layout = make_project(tmp_path, files=["a.py"])
    good(layout, files=["**"])
    assert ("L103", "db-good") in codes(layout)


def test_l103_quiet_on_a_folder_glob(tmp_path: Path) -> None:
    """'src/db/**' matches 5 of 12 files."""
    layout = make_project(tmp_path)
    good(layout, files=["src/db/**"])
    assert "L103" not in only_codes(layout)


def test_l104_fires_on_a_pattern_matching_most_probes(tmp_path: Path) -> None:
    """'[a-z]' fires on every ordinary command: L104."""
    layout = make_project(tmp_path)
    good(layout, commands=["[a-z]"])
    assert ("L104", "db-good") in codes(layout)


def test_l104_quiet_on_an_anchored_command(tmp_path: Path) -> None:
    """'git push --force' fires on no probe."""
    layout = make_project(tmp_path)
    good(layout, commands=["git push --force"])
    assert "L104" not in only_codes(layout)


def test_l105_fires_on_a_common_keyword(tmp_path: Path) -> None:
    """Keyword 'the file' is L105."""
    layout = make_project(tmp_path)
    good(layout, keywords=["the file"])
    assert ("L105", "db-good") in codes(layout)


def test_l105_quiet_on_a_project_term(tmp_path: Path) -> None:
    """Keyword 'alembic' is specific."""
    layout = make_project(tmp_path)
    good(layout, keywords=["alembic"])
    assert "L105" not in only_codes(layout)


def test_l106_fires_on_an_active_lesson_without_triggers(tmp_path: Path) -> None:
    """No trigger at all: L106."""
    layout = make_project(tmp_path)
    good(layout, files=[])
    assert ("L106", "db-good") in codes(layout)


def test_l106_fires_when_every_trigger_is_invalid(tmp_path: Path) -> None:
    """An invalid glob plus a folder glob plus a broken pattern: L106."""
    layout = make_project(tmp_path)
    good(layout, files=["../x", "src/db"], commands=["(a)\\1"])
    assert ("L106", "db-good") in codes(layout)


def test_l106_quiet_with_one_keyword(tmp_path: Path) -> None:
    """A keyword can always fire, even beside broken triggers."""
    layout = make_project(tmp_path)
    good(layout, files=["../x"], keywords=["alembic"])
    assert "L106" not in only_codes(layout)


def test_l106_quiet_on_a_deprecated_lesson(tmp_path: Path) -> None:
    """A deprecated lesson is never recalled on purpose."""
    layout = make_project(tmp_path)
    good(layout, files=[], status="deprecated")
    assert "L106" not in only_codes(layout)


# L201-L203: duplicates


def test_l201_fires_on_identical_rules(tmp_path: Path) -> None:
    """Same rule up to case and final dot: L201 on the newer lesson."""
    layout = make_project(tmp_path)
    write_lesson(layout, "db-a", "Run alembic upgrade before tests.", files=["src/db/**"])
    write_lesson(
        layout, "db-b", "run Alembic upgrade before tests", files=["docs/**"], created="2026-02-01"
    )
    assert ("L201", "db-b") in codes(layout)
    assert ("L201", "db-a") not in codes(layout)


def test_l201_quiet_when_the_twin_is_deprecated(tmp_path: Path) -> None:
    """A deprecated twin is history, not a duplicate."""
    layout = make_project(tmp_path)
    write_lesson(layout, "db-a", "Run alembic upgrade before tests.", files=["src/db/**"])
    write_lesson(
        layout, "db-b", "Run alembic upgrade before tests.", files=["src/**"], status="deprecated"
    )
    assert "L201" not in only_codes(layout)


def test_l202_fires_on_near_duplicates(tmp_path: Path) -> None:
    """Two wordings of one rule: L202 names the older one."""
    layout = make_project(tmp_path)
    write_lesson(
        layout, "db-a", "Run alembic upgrade head before the integration tests.", files=["src/**"]
    )
    write_lesson(
        layout,
        "db-b",
        "Always run alembic upgrade head before integration tests.",
        files=["docs/**"],
        created="2026-02-01",
    )
    found = [f for f in validate(layout).findings if f.code == "L202"]
    assert [(f.lesson_id, "'db-a'" in f.message) for f in found] == [("db-b", True)]


def test_l202_quiet_on_different_rules(tmp_path: Path) -> None:
    """Rules sharing one word are not near-duplicates."""
    layout = make_project(tmp_path)
    write_lesson(layout, "db-a", "Run alembic upgrade before tests.", files=["src/db/**"])
    write_lesson(layout, "db-b", "Keep alembic revision ids short.", files=["src/db/**"])
    assert "L202" not in only_codes(layout)


def test_l203_fires_when_three_lessons_share_a_trigger_set(tmp_path: Path) -> None:
    """Three lessons with exactly the same triggers: L203 on each."""
    layout = make_project(tmp_path)
    for number, rule in enumerate(["Quote identifiers.", "Index foreign keys.", "Avoid ORM."]):
        write_lesson(layout, f"db-{number}", rule, files=["src/db/**"], keywords=["sqlalchemy"])
    found = codes(layout)
    assert {("L203", f"db-{n}") for n in range(3)} <= found


def test_l203_quiet_when_triggers_differ(tmp_path: Path) -> None:
    """Three lessons whose trigger sets differ in one glob do not tie."""
    layout = make_project(tmp_path)
    write_lesson(layout, "db-0", "Quote identifiers.", files=["src/db/**"])
    write_lesson(layout, "db-1", "Index foreign keys.", files=["src/db/**"])
    write_lesson(layout, "db-2", "Avoid the ORM.", files=["src/db/models.py"])
    assert "L203" not in only_codes(layout)


def test_l207_not_l203_when_a_folder_file_scopes_its_rules_to_its_folder(tmp_path: Path) -> None:
    """Rules imported from src/api/AGENTS.md, all on src/api/**: the file's own scope, a
    notice; with one written by hand on the same folder they crowd (L203)."""
    layout = make_project(tmp_path)
    rules = ["Quote identifiers.", "Index foreign keys.", "Avoid the ORM."]
    for number, rule in enumerate(rules):
        evidence = ["import:src/api/AGENTS.md"]
        write_lesson(layout, f"api-{number}", rule, files=["src/api/**"], evidence=evidence)
    found = codes(layout)
    assert {("L207", f"api-{n}") for n in range(3)} <= found
    assert not any(code == "L203" for code, _ in found)
    write_lesson(layout, "api-3", "Log every request.", files=["src/api/**"])
    assert {("L203", f"api-{n}") for n in range(4)} <= codes(layout)


def test_l207_needs_the_whole_folder_and_file_triggers_only(tmp_path: Path) -> None:
    """One exact file of the folder, or a shared keyword, is a tie L203 still reports."""
    layout = make_project(tmp_path)
    for number, rule in enumerate(["Quote identifiers.", "Index foreign keys.", "Avoid ORM."]):
        write_lesson(
            layout,
            f"db-{number}",
            rule,
            files=["src/db/models.py"],
            evidence=["import:src/db/AGENTS.md"],
        )
        write_lesson(
            layout,
            f"kw-{number}",
            rule + " Always.",
            files=["src/kw/**"],
            keywords=["sqlalchemy"],
            evidence=["import:src/kw/AGENTS.md"],
        )
    found = codes(layout)
    assert {("L203", f"db-{n}") for n in range(3)} | {
        ("L203", f"kw-{n}") for n in range(3)
    } <= found
    assert "L207" not in only_codes(layout)


# L301-L302: telemetry


def _recalls(layout: Layout, count: int, delivered: list[str], key: str = "src/app.py") -> None:
    for _ in range(count):
        log_recall(layout, key, delivered)


def test_l301_fires_for_a_lesson_never_delivered(tmp_path: Path) -> None:
    """N logged recalls without the lesson: L301, a notice."""
    layout = make_project(tmp_path, telemetry=True)
    good(layout)
    write_lesson(layout, "app-other", "Keep startup import-free.", files=["src/app.py"])
    _recalls(layout, NEVER_RECALLED_MIN_RECALLS, ["app-other"])
    found = [f for f in validate(layout).findings if f.code == "L301"]
    assert [(f.lesson_id, f.severity.value) for f in found] == [("db-good", "notice")]
    assert "never matched" in found[0].message


def test_l301_quiet_when_telemetry_is_off(tmp_path: Path) -> None:
    """With telemetry off the log is not read."""
    layout = make_project(tmp_path, telemetry=True)
    good(layout)
    _recalls(layout, NEVER_RECALLED_MIN_RECALLS, [])
    layout.config_path.write_text('{"telemetry": false}\n')
    assert "L301" not in only_codes(layout)


def test_l301_quiet_below_the_minimum_recalls(tmp_path: Path) -> None:
    """Too few recalls say nothing."""
    layout = make_project(tmp_path, telemetry=True)
    good(layout)
    _recalls(layout, NEVER_RECALLED_MIN_RECALLS - 1, [])
    assert "L301" not in only_codes(layout)


def test_l302_fires_when_shown_before_repeated_failures(tmp_path: Path) -> None:
    """Delivered, then the same command failed three times: L302."""
    layout = make_project(tmp_path, telemetry=True)
    good(layout, commands=["alembic upgrade"])
    for session in ("s1", "s2", "s3")[:REPEATED_FAILURE_MIN]:
        log_recall(layout, "alembic upgrade head", ["db-good"], session)
        assert log_failure(layout, "alembic upgrade head", session)
    found = [f for f in validate(layout).findings if f.code == "L302"]
    assert [f.lesson_id for f in found] == ["db-good"]
    assert "'alembic upgrade head'" in found[0].message


def test_l302_quiet_below_the_repeat_threshold(tmp_path: Path) -> None:
    """Fewer failures than the threshold are not a pattern."""
    layout = make_project(tmp_path, telemetry=True)
    good(layout, commands=["alembic upgrade"])
    log_recall(layout, "alembic upgrade", ["db-good"])
    for _ in range(REPEATED_FAILURE_MIN - 1):
        assert log_failure(layout, "alembic upgrade")
    assert "L302" not in only_codes(layout)


def test_l301_counts_every_recall_for_an_impossible_date(tmp_path: Path) -> None:
    """A created date like 2026-13-45 does not break the telemetry checks."""
    layout = make_project(tmp_path, telemetry=True)
    good(layout, created="2026-13-45")
    _recalls(layout, NEVER_RECALLED_MIN_RECALLS, [])
    assert ("L301", "db-good") in codes(layout)


def test_l107_warns_on_a_bare_interpreter(tmp_path: Path) -> None:
    """'^bash' fires on every shell script: L107, a warning only."""
    layout = make_project(tmp_path)
    good(layout, commands=["^bash"])
    assert ("L107", "db-good") in codes(layout)


def test_l107_quiet_when_the_script_is_named(tmp_path: Path) -> None:
    """'^bash scripts/release\\.sh' names the script."""
    layout = make_project(tmp_path)
    good(layout, commands=["^bash scripts/release\\.sh"])
    assert "L107" not in only_codes(layout)


def test_l104_fires_on_a_bare_program_name(tmp_path: Path) -> None:
    """'git' fires on 9 of 60 probes, but on every everyday git command: L104 as well."""
    layout = make_project(tmp_path)
    good(layout, commands=["git"])
    assert ("L104", "db-good") in codes(layout)


@pytest.mark.parametrize(
    ("fields", "trigger", "why"),
    [
        ({"commands": ["pytest"]}, "pytest", "it fires on 5 of the ordinary commands"),
        ({"files": ["docs/**"]}, "docs/**", "it sweeps a whole tree by file type"),
    ],
)
def test_l108_names_a_trigger_recall_holds_back_as_broad(
    tmp_path: Path, fields: dict[str, object], trigger: str, why: str
) -> None:
    """A trigger recall treats as broad is a notice at validate, naming it and why."""
    layout = make_project(tmp_path)
    good(layout, "db-good", **fields)
    found = [f for f in validate(layout).findings if f.code == "L108"]
    assert [(f.lesson_id, f.severity.value) for f in found] == [("db-good", "notice")]
    assert f"'{trigger}' is broad ({why}" in found[0].message


def test_l108_counts_a_crowded_trigger_and_spares_gates_and_precise_ones(tmp_path: Path) -> None:
    """Six lessons sharing a folder glob are each told; a gated or precise one is not."""
    layout = make_project(tmp_path)
    for n in range(6):
        write_lesson(layout, f"db-r{n}", f"Rule number {n} about models.", files=["src/db/**"])
    write_lesson(layout, "db-gated", "Never drop a column.", files=["src/**"], gate=True)
    write_lesson(layout, "db-push", "Run the migrations first.", commands=["git push"])
    found = [f for f in validate(layout).findings if f.code == "L108"]
    assert sorted(f.lesson_id or "" for f in found) == [f"db-r{n}" for n in range(6)]
    assert "6 active lessons carry it" in found[0].message


def test_l208_not_l203_when_imported_rules_share_the_kind_of_file_they_describe(
    tmp_path: Path,
) -> None:
    """Rules imported from instruction files, all on the test sources they speak of, or
    on the folder a heading names: the files' own meaning, a notice; the same rules with
    one written by hand, or on one exact file, still crowd (L203)."""
    layout = make_project(tmp_path)
    rules = ["Use anyio, not asyncio.", "Avoid fixed sleeps.", "Wrap indefinite waits."]
    sources = ["import:AGENTS.md", "import:tests/AGENTS.md", "import:AGENTS.md"]
    for number, (rule, source) in enumerate(zip(rules, sources, strict=True)):
        write_lesson(layout, f"t-{number}", rule, files=["tests/**/*.py"], evidence=[source])
        write_lesson(
            layout, f"x-{number}", rule + " Here.", files=["tests/test_app.py"], evidence=[source]
        )
    found = codes(layout)
    assert {("L208", f"t-{n}") for n in range(3)} <= found
    assert {("L203", f"x-{n}") for n in range(3)} <= found
    write_lesson(layout, "t-3", "Keep tests fast.", files=["tests/**/*.py"])
    assert {("L203", f"t-{n}") for n in range(4)} <= codes(layout)
    # a rule file's `*.py`: the root's files of that kind
    for number, rule in enumerate(["Type every function.", "Log lazily.", "Name tests well."]):
        evidence = ["import:.cursor/rules/python.mdc"]
        write_lesson(layout, f"py-{number}", rule, files=["*.py"], evidence=evidence)
    assert {("L208", f"py-{n}") for n in range(3)} <= codes(layout)
    # the rules of the root file's "### `tests/e2e`" section, on the folder it names
    for number, rule in enumerate(["Poll, never sleep.", "Mark serial tests.", "No shards."]):
        evidence = ["import:AGENTS.md"]
        write_lesson(layout, f"e2e-{number}", rule, files=["tests/e2e/**"], evidence=evidence)
    e2e = [f for f in validate(layout).findings if f.lesson_id == "e2e-0"]
    assert ("L208", "notice") in [(f.code, f.severity.value) for f in e2e]
    assert "L203" not in [f.code for f in e2e]
    assert "fire on the folder it describes" in e2e[0].message


def test_l208_when_imported_rules_share_the_git_action_they_describe(tmp_path: Path) -> None:
    """Rules an instruction file gives about opening a pull request all fire on
    ``gh pr create``: the file's own meaning, a notice; one written by hand makes it L203,
    and so does a command that is no git or pull-request action. Its rules on the type a
    commit message opens with meet at the commits that break them."""
    layout = make_project(tmp_path)
    rules = ["Confirm the change is user-facing.", "Disclose AI help.", "Never write PR bodies."]
    for number, rule in enumerate(rules):
        evidence = ["import:AGENTS.md"]
        write_lesson(layout, f"pr-{number}", rule, commands=["gh pr create"], evidence=evidence)
        write_lesson(layout, f"mk-{number}", rule + " Here.", commands=["make"], evidence=evidence)
    found = codes(layout)
    assert {("L208", f"pr-{n}") for n in range(3)} <= found
    assert {("L203", f"mk-{n}") for n in range(3)} <= found
    write_lesson(layout, "pr-3", "Keep pull requests small.", commands=["gh pr create"])
    assert {("L203", f"pr-{n}") for n in range(4)} <= codes(layout)
    # "Commit with conventional commits", said three times, at the untyped commits
    typed = ["Use Conventional Commits.", "Follow conventional commits.", "Type every commit."]
    for number, rule in enumerate(typed):
        evidence = ["import:AGENTS.md"]
        write_lesson(layout, f"cc-{number}", rule, commands=[UNTYPED_COMMIT], evidence=evidence)
    assert {("L208", f"cc-{n}") for n in range(3)} <= codes(layout)
