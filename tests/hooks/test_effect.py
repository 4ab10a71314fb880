"""The effect of what was shown, from what the real hook logged: whether a gated call was
changed before it was made again, and whether a delivered lesson held; `lessons stats`
and `lessons validate` (L303) report them."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from lessons_cli.app import cli
from lessons_core.jsonio import dumps
from lessons_core.matching.thresholds import NEVER_HELD_MIN_SHOWN
from lessons_core.store.layout import Layout
from lessons_core.telemetry.effect import CALL, FAILURE, Effect, Event, log_events, measure
from lessons_core.telemetry.log import read_log
from lessons_core.validate.runner import validate
from tests.hooks.conftest import answer, payload, write_lesson

RULE = "Run make gen before pushing generated code."


def _setup(layout: Layout) -> None:
    layout.config_path.write_bytes(dumps({"telemetry": True}))
    write_lesson(layout, "build-gen", RULE, commands=("git push",))


def _before(layout: Layout, command: str, session: str) -> dict[str, object] | None:
    data = payload("claude-code", "pre_tool_use_bash_redirect", layout.root, session_id=session)
    return answer("claude-code", {**data, "tool_input": {"command": command}})


def _failed(layout: Layout, command: str, session: str) -> None:
    data = payload("claude-code", "post_tool_use_failure_bash", layout.root, session_id=session)
    answer("claude-code", {**data, "tool_input": {"command": command}})


def _effect(layout: Layout) -> Effect:
    return measure(log_events(read_log(layout)))


def test_a_gate_retried_with_another_call_counts_as_changed(project: Layout) -> None:
    """Refused, then the same program and sub-command with other arguments: changed."""
    _setup(project)
    assert _before(project, "git push origin main", "s1") is not None
    _before(project, "git push origin main --force-with-lease", "s1")
    effect = _effect(project)
    assert (effect.gates, effect.changed, effect.unchanged) == (1, 1, 0)
    assert effect.changed_share == 1.0


def test_a_gate_sent_again_unchanged_and_one_never_retried(project: Layout) -> None:
    """The same call again is unchanged; a gate with no later call on it is not retried."""
    _setup(project)
    _before(project, "git push origin main", "s1")
    _before(project, "git push origin main", "s1")
    _before(project, "git push origin main", "s2")
    effect = _effect(project)
    assert (effect.gates, effect.changed, effect.unchanged, effect.not_retried) == (2, 0, 1, 1)
    assert effect.changed_share == 0.0


def test_an_edit_retried_with_other_text_counts_as_changed(project: Layout) -> None:
    """A file gate's retry on the same file with other text is changed: the call digest
    covers the tool's input, not only its path."""
    project.config_path.write_bytes(dumps({"telemetry": True, "delivery_file": "gate"}))
    write_lesson(
        project, "app-rule", "Keep src/a.py free of import-time work.", files=("src/a.py",)
    )
    edit = payload("claude-code", "pre_tool_use_edit", project.root)
    assert answer("claude-code", edit) is not None
    changed_input = {**edit["tool_input"], "new_string": "something else"}
    answer("claude-code", {**edit, "tool_input": changed_input})
    effect = _effect(project)
    assert (effect.gates, effect.changed) == (1, 1)


def test_a_lesson_holds_unless_its_action_fails_again(project: Layout) -> None:
    """Shown and no later failure of that action: held; shown and failed after: not."""
    _setup(project)
    _before(project, "git push origin main", "held")
    _before(project, "git push origin main", "held")
    _before(project, "git push origin main", "broke")
    _before(project, "git push origin main", "broke")
    _failed(project, "git push origin main", "broke")
    effect = _effect(project)
    counted = effect.lessons["build-gen"]
    assert (counted.shown, counted.held, counted.not_held) == (2, 1, 1)
    assert counted.held_rate == 0.5


def test_validate_warns_about_a_lesson_that_never_held(project: Layout) -> None:
    """Shown NEVER_HELD_MIN_SHOWN times, its action failing again each time: L303."""
    _setup(project)
    for n in range(NEVER_HELD_MIN_SHOWN):
        _before(project, "git push origin main", f"s{n}")
        _before(project, "git push origin main", f"s{n}")
        _failed(project, "git push origin main", f"s{n}")
    found = [f for f in validate(project).findings if f.code == "L303"]
    assert [(f.lesson_id, f.severity.value) for f in found] == [("build-gen", "warning")]
    assert f"shown {NEVER_HELD_MIN_SHOWN} times" in found[0].message


def test_validate_is_quiet_about_a_lesson_that_held_once(project: Layout) -> None:
    """One session in which the action did not fail again: no L303."""
    _setup(project)
    for n in range(NEVER_HELD_MIN_SHOWN):
        _before(project, "git push origin main", f"s{n}")
        _failed(project, "git push origin main", f"s{n}")
    _before(project, "git push origin main", "fine")
    assert "L303" not in {f.code for f in validate(project).findings}


def test_stats_reports_the_effect(project: Layout, monkeypatch: pytest.MonkeyPatch) -> None:
    """`lessons stats` prints the changed share and held rates; --json has them all."""
    _setup(project)
    _before(project, "git push origin main", "s1")
    _before(project, "git push origin main --force-with-lease", "s1")
    monkeypatch.chdir(project.root)
    runner = CliRunner()
    text = runner.invoke(cli, ["stats"])
    assert text.exit_code == 0, text.output
    assert "changed by a gate     100% of retried gates (1 changed, 0 sent again" in text.output
    assert "  build-gen: 1 of 1 held (100%)" in text.output
    data = json.loads(runner.invoke(cli, ["stats", "--json"]).output)
    assert data["effect"]["changed_share"] == 1.0
    assert data["effect"]["lessons"] == [
        {"lesson_id": "build-gen", "shown": 1, "held": 1, "not_held": 0, "held_rate": 1.0}
    ]


def test_measure_reads_each_session_on_its_own() -> None:
    """A failure in another session, or of another action, does not touch a delivery."""
    events = [
        Event("a", CALL, "cmd ^make", "c1", ("x",), gate=True),
        Event("b", FAILURE, "cmd ^make"),
        Event("a", FAILURE, "cmd ^pnpm"),
        Event("a", CALL, "cmd ^make", "c1"),
    ]
    effect = measure(events)
    assert (effect.gates, effect.unchanged) == (1, 1)
    assert effect.lessons["x"].held == 1
