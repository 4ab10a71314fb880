"""The capture nudge after a failed call: precise trigger, once per key, secrets masked."""

from __future__ import annotations

import shlex

import pytest

from lessons_core.authoring.guards import PROBE_COMMANDS, probe_hits
from lessons_core.delivery.nudges import after_failure, failure_nudge
from lessons_core.delivery.tool_action import ToolAction
from lessons_core.matching.commands import compile_command
from lessons_core.session.action import ActionId, precise
from lessons_core.store.config import Config
from lessons_core.store.layout import Layout


@pytest.mark.parametrize(
    ("command", "pattern"),
    [
        ("pnpm test:e2e --filter web", "^pnpm test:e2e"),
        ("cd web && pnpm test:e2e", "^pnpm test:e2e"),
        ("git push --force origin main", "^git push"),
        ("python -m pytest tests/test_x.py -q", "^python -m pytest"),
        ("make release VERSION=1.2", "^make release"),
        ("npx tsc --noEmit", "^npx tsc"),
        ("terraform apply plan.out", "^terraform apply"),
        ("FOO=1 cargo test -p core", "^cargo test"),
        ("c++ main.cpp", "^c\\+\\+"),
    ],
)
def test_command_pattern_is_anchored_to_what_failed(command: str, pattern: str) -> None:
    """Program and sub-commands up to the first option, path or value, anchored at ^."""
    assert _pattern(command) == pattern


def test_command_pattern_is_accepted_by_capture_and_matches_the_failure() -> None:
    """The suggested pattern compiles, fires on the failed command, and is not broad."""
    for command in ("pnpm test:e2e --filter web", "git push origin main", "make release"):
        pattern = _pattern(command)
        assert pattern is not None
        compiled = compile_command(pattern)
        assert compiled.matches(command)
        assert len(probe_hits(compiled.matches)) <= len(PROBE_COMMANDS) // 2


def test_a_failed_pure_read_gets_no_pattern() -> None:
    """cat of a missing file teaches nothing about the project."""
    assert _pattern("cat missing.txt") is None
    assert _pattern("git status") is None


def test_nudge_names_the_repo_relative_path_for_a_file(project: Layout) -> None:
    """A failed edit gives --trigger-file with the repo-relative path."""
    text = failure_nudge(project, _precise(("src/a.py",), None))
    assert "--trigger-file src/a.py" in text
    assert f"sh {project.root}/.lessons/run add" in text


def test_nudge_line_is_a_working_shell_command(project: Layout) -> None:
    """The lessons add line splits into the arguments lessons add expects."""
    text = failure_nudge(project, _precise((), "cd web && pnpm test:e2e --filter x"))
    line = text.splitlines()[-1].strip()
    words = shlex.split(line)
    assert words[:3] == ["sh", f"{project.root}/.lessons/run", "add"]
    assert words[words.index("--trigger-cmd") + 1] == "^pnpm test:e2e"


def test_nudge_comes_once_per_session_and_key(project: Layout) -> None:
    """The same failure nudges once; another key or session nudges again."""
    push = ToolAction(command="git push origin main")
    config = Config()
    wrong = "error: unknown option `frce'"
    first = after_failure(project, "s", push, wrong, config)
    assert first is not None
    assert first.startswith("That call failed.")
    again = after_failure(project, "s", push, wrong, config)  # the recurrence's nudge
    assert again is not None
    assert not again.startswith("That call failed.")
    assert after_failure(project, "s", push, wrong, config) is None
    release = ToolAction(command="make release")
    assert after_failure(project, "s", release, "No rule to make target 'release'", config)
    assert after_failure(project, "other", push, wrong, config) is not None


def test_a_failure_that_is_the_work_brings_no_capture_nudge(project: Layout) -> None:
    """A failing test, a plain exit 1, an edit's text not found: no capture nudge."""
    config = Config()
    run = ToolAction(command="make check")
    assert after_failure(project, "s", run, "Exit code 1\nAssertionError: 1 != 2", config) is None
    assert (
        after_failure(project, "s", ToolAction(command="make lint"), "Exit code 1", config) is None
    )
    edit = ToolAction(files=("src/a.py",))
    assert after_failure(project, "s", edit, "String to replace not found in file", config) is None


def test_nudge_never_offers_a_trigger_quoting_a_secret(project: Layout) -> None:
    """A token the trigger would quote never reaches the agent: no nudge for that call."""
    token = "ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"
    assert precise((), f"{token} deploy now") is None
    text = failure_nudge(project, _precise((), f"gh release --token {token}"))
    assert "^gh release" in text
    assert token not in text


def _pattern(command: str) -> str | None:
    """The command pattern a failure of ``command`` suggests, or None."""
    found = precise((), command)
    return found.value if found is not None else None


def _precise(files: tuple[str, ...], command: str | None) -> ActionId:
    found = precise(files, command)
    assert found is not None
    return found
