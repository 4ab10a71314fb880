"""L401 and L402: always-on lessons over the budget, and ones that could have a trigger."""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path

import pytest

from lessons_core.matching.thresholds import NEVER_RECALLED_MIN_RECALLS
from lessons_core.validate import validate
from lessons_core.validate.always import precise_trigger
from tests.lesson_graphs import make_project, write_lesson
from tests.test_validate_codes import _recalls, codes, only_codes


@pytest.fixture
def programs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """``npm``, ``pnpm``, ``write`` and ``true`` on the PATH, first."""
    folder = tmp_path / "bin"
    folder.mkdir()
    for name in ("npm", "pnpm", "write", "true"):
        program = folder / name
        program.write_text("#!/bin/sh\n")
        program.chmod(program.stat().st_mode | stat.S_IXUSR)
    monkeypatch.setenv("PATH", f"{folder}{os.pathsep}{os.environ.get('PATH', '')}")
    return folder


def test_l401_fires_on_each_always_on_lesson_the_budget_cuts(tmp_path: Path) -> None:
    """Twelve long always-on rules in 120 tokens: the newest ones are cut, each an L401
    naming the budget and the total; the oldest is not."""
    layout = make_project(tmp_path / "repo", always_max_tokens=120)
    for n in range(12):
        rule = f"Rule number {n} applies to every task in this repository, whatever it is."
        write_lesson(layout, f"all-{n:02d}", rule, always=True, created=f"2026-01-{n + 1:02d}")
    found = [f for f in validate(layout).findings if f.code == "L401"]
    cut = {f.lesson_id for f in found}
    assert "all-00" not in cut
    assert "all-11" in cut
    assert 0 < len(cut) < 12
    assert "always_max_tokens (120)" in found[0].message
    assert found[0].line is not None  # the line of "always"


def test_l401_quiet_within_the_budget_and_when_turned_off(tmp_path: Path) -> None:
    """Two short always-on rules fit 300 tokens; a budget of 0 (off) warns about nothing."""
    layout = make_project(tmp_path / "repo")
    write_lesson(layout, "git-german", "Write commit messages in German.", always=True)
    write_lesson(layout, "build-pnpm", "Prefer the lockfile as it is.", always=True)
    assert "L401" not in only_codes(layout)
    off = make_project(tmp_path / "off", always_max_tokens=0)
    write_lesson(off, "git-german", "Write commit messages in German.", always=True)
    assert "L401" not in only_codes(off)


def test_always_on_lesson_without_trigger_is_not_l106(tmp_path: Path) -> None:
    """An always-on lesson needs no trigger: no "can never be recalled" error."""
    layout = make_project(tmp_path / "repo")
    write_lesson(layout, "git-german", "Write commit messages in German.", always=True)
    assert "L106" not in only_codes(layout)
    write_lesson(layout, "git-english", "Write comments in English.")
    assert ("L106", "git-english") in codes(layout)


@pytest.mark.parametrize(
    ("rule", "expected"),
    [
        (
            "Never hand-edit src/db/models.py; regenerate it.",
            ("--trigger-file", "src/db/models.py"),
        ),
        ("Keep README.md short.", ("--trigger-file", "README.md")),
        (
            "Migrations under src/db/migrations/ are append-only.",
            ("--trigger-file", "src/db/migrations/**"),
        ),
        ("Run `pnpm install --frozen-lockfile` in CI.", ("--trigger-cmd", "pnpm install")),
        (
            "Run `git push --force-with-lease`, never a plain force push.",
            ("--trigger-cmd", "git push"),
        ),
        ("Run `npm ci` rather than install.", ("--trigger-cmd", "npm ci")),
    ],
)
def test_l402_finds_a_path_or_command_that_exists(
    tmp_path: Path, programs: Path, rule: str, expected: tuple[str, str]
) -> None:
    """A tracked file, a folder written with its slash, a program in backticks."""
    layout = make_project(tmp_path / "repo")
    write_lesson(layout, "all-rule", rule, always=True)
    found = [f for f in validate(layout).findings if f.code == "L402"]
    assert [f.lesson_id for f in found] == ["all-rule"]
    option, value = expected
    assert f"{option} '{value}'" in found[0].fix


@pytest.mark.parametrize(
    "rule",
    [
        "Write commit messages in German.",  # `write` is a program, but not in backticks
        "Use pnpm, never npm, for packages.",  # plain words never count
        "Use `pnpm`, never `npm`, for packages.",  # a bare program capture refuses as broad
        "Set `strict` to `true` in every config.",  # an ordinary value alone
        "Call `write` only through the logger.",  # ordinary word alone in backticks
        "Never touch src/legacy/old.py again.",  # no such file
        "Prefer e.g. short names, i.e. one word.",  # dots inside ordinary words
        "Keep the src folder tidy.",  # a folder without its slash is a word
        "Use `lessons-no-such-tool` for packages.",  # not on the PATH
    ],
)
def test_l402_quiet_on_ordinary_words(tmp_path: Path, programs: Path, rule: str) -> None:
    """No false alarm on words, values, missing files or programs that are not there."""
    layout = make_project(tmp_path / "repo")
    write_lesson(layout, "all-rule", rule, always=True)
    assert "L402" not in only_codes(layout)


def test_l402_only_judges_always_on_lessons(tmp_path: Path, programs: Path) -> None:
    """A triggered lesson naming a program is none of L402's business."""
    layout = make_project(tmp_path / "repo")
    write_lesson(layout, "build-pnpm", "Use `pnpm`, never `npm`.", commands=["npm"])
    assert "L402" not in only_codes(layout)


def test_precise_trigger_prefers_a_path_named_in_a_code_span() -> None:
    """A repo script in backticks is its path, found as a file first."""
    files = frozenset({"scripts/test"})
    assert precise_trigger("Run `scripts/test` before pushing.", files, frozenset({"scripts"})) == (
        "--trigger-file",
        "scripts/test",
    )


@pytest.mark.parametrize(
    ("setting", "problem"),
    [
        ({"always_max_tokens": "300"}, "setting 'always_max_tokens' must be a whole number"),
        ({"always_max_tokens": -1}, "setting 'always_max_tokens' must not be negative"),
        ({"session_topics": "yes"}, "setting 'session_topics' must be true or false"),
    ],
)
def test_a_bad_always_on_setting_is_l011_naming_it(
    tmp_path: Path, setting: dict[str, object], problem: str
) -> None:
    """The new settings are checked like every other: L011 names the key, the problem and
    that the default is used meanwhile."""
    layout = make_project(tmp_path / "repo")
    layout.config_path.write_text(json.dumps(setting))
    (found,) = [f for f in validate(layout).findings if f.code == "L011"]
    assert found.message.startswith(problem)
    assert "the default" in found.message


def test_an_always_on_lesson_is_not_l301(tmp_path: Path) -> None:
    """Telemetry logs recalls, not session starts: an always-on lesson missing from the
    log was still delivered, so it is no "never recalled" notice."""
    layout = make_project(tmp_path / "repo", telemetry=True)
    write_lesson(layout, "git-german", "Write commit messages in German.", always=True)
    write_lesson(layout, "app-other", "Keep startup import-free.", files=["src/app.py"])
    _recalls(layout, NEVER_RECALLED_MIN_RECALLS, [])
    assert ("L301", "app-other") in codes(layout)
    assert ("L301", "git-german") not in codes(layout)
