"""Harvest names each action by its ``ActionId``: written out and read back (as the
telemetry log's identity, as a session's evidence keeps it, as a command's words), each
kind of action is the same action, and harvest finds the same candidates with the
trigger that record gives."""

from __future__ import annotations

from pathlib import Path
from typing import Any, NamedTuple

import pytest

from lessons_core.feedback.fixes import related
from lessons_core.session.action import (
    COMMAND,
    FILE,
    ActionId,
    from_identity,
    from_saved,
    of_words,
    precise,
)
from lessons_core.store.layout import Layout
from tests.harvest.test_harvest import bash, edit, harvested, kinds, result

DENIED = "Exit code 126\n/bin/bash: line 1: ./run: Permission denied"
EDIT_DENIED = "EACCES: permission denied, open '/repo/{path}'"
TEST_FAILED = "Exit code 2\nmake: *** [Makefile:2: check] Error 1"


class Case(NamedTuple):
    kind: str
    files: tuple[str, ...]
    command: str | None
    fix: str | None = None  # for a command: a changed form of it that harvest relates


CASES = {
    "a file": Case(FILE, ("src/app.py",), None),
    "a file whose name looks like a pattern": Case(FILE, ("web/pages/[id].tsx",), None),
    "a file with a space": Case(FILE, ("docs/my notes.md",), None),
    "a program and its sub-command": Case(COMMAND, (), "pnpm test:e2e --filter x", "pnpm test:ci"),
    "a command after cd": Case(COMMAND, (), "cd web && npm run test:unit", "npm test"),
    "a program written with pattern characters": Case(
        COMMAND, (), "g++ -o app main.cpp", "uv run g++ -o app main.cpp"
    ),
    "an interpreter's script and its sub-command": Case(
        COMMAND, (), "python3 manage.py migrate --noinput", "uv run python3 manage.py migrate"
    ),
    "a program under a wrapper": Case(
        COMMAND, (), "uv run alembic upgrade head", "alembic upgrade head"
    ),
}


def action_of(case: Case) -> ActionId:
    found = precise(case.files, case.command)
    assert found is not None
    assert found.kind == case.kind
    return found


@pytest.mark.parametrize("case", CASES.values(), ids=list(CASES))
def test_each_kind_of_action_reads_back_as_the_same_action(case: Case) -> None:
    """Its identity (``file PATH``, ``cmd PATTERN``) and its saved form give back the
    record itself, and so the same key, trigger and words."""
    action = action_of(case)
    assert from_identity(action.identity) == action
    assert from_saved(action.saved) == action
    if case.kind == COMMAND:
        # Harvest relates a fix to a failure by the words read back from the pattern.
        assert of_words(action.words) == action
        assert case.fix is not None
        assert related(
            action.words.split(" "), action_of(Case(COMMAND, (), case.fix)).words.split(" ")
        )
    else:
        assert action.words == case.files[0]


def _call(case: Case, call_id: str, command: str | None = None) -> dict[str, Any]:
    if case.kind == FILE:
        return edit(call_id, case.files[0])
    return bash(call_id, command or case.command or "")


@pytest.mark.parametrize("case", CASES.values(), ids=list(CASES))
def test_harvest_finds_each_kind_by_its_action_record(
    case: Case, repo: Layout, tmp_path: Path
) -> None:
    """The action fails twice with an environment error, then passes: a recurring
    failure and a fail-fix, both with the trigger its identity reads back to."""
    denied = EDIT_DENIED.format(path=case.files[0]) if case.kind == FILE else DENIED
    records = []
    for n in range(2):
        records += [_call(case, f"t{n}"), result(f"t{n}", denied, error=True)]
    records += [_call(case, "t2"), result("t2", "ok")]
    found = harvested(tmp_path, records)
    subject = case.command or case.files[0]
    assert kinds(found) == [("recurring", subject), ("fail-fix", subject)]
    flag, value = from_identity(action_of(case).identity).trigger  # type: ignore[union-attr]
    assert [c["trigger"] for c in found] == [{"option": flag, "value": value}] * 2
    assert found[0]["count"] == 2


@pytest.mark.parametrize(
    "case",
    [c for c in CASES.values() if c.kind == COMMAND],
    ids=[n for n, c in CASES.items() if c.kind == COMMAND],
)
def test_a_changed_form_fixes_each_kind_of_command(
    case: Case, repo: Layout, tmp_path: Path
) -> None:
    """A command fails its own way and a changed form of it passes right after: the fix
    is found from the words the failed command's record reads back to."""
    found = harvested(
        tmp_path,
        [
            _call(case, "t1"),
            result("t1", TEST_FAILED, error=True),
            _call(case, "t2", case.fix),
            result("t2", "ok"),
        ],
    )
    assert kinds(found) == [("fail-fix", case.command)]
    assert found[0]["fix"] == case.fix
    flag, value = action_of(case).trigger
    assert found[0]["trigger"] == {"option": flag, "value": value}
