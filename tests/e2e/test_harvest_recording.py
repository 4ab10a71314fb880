"""The harvest fixtures re-recorded with the real Claude Code CLI give the same candidates.

Each test runs one scenario of ``harvest_recording`` in a fresh wired repo, checks from the
requests the fake model received that the planted event really happened in the client
(a failed tool result, a gate refusal answered by the same call), and that ``lessons
harvest`` finds in the new transcript exactly what the committed fixture and its label
say, with no temp path left in the portable copy.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from lessons_core.delivery.deliver import GATE_PREFIX
from tests.e2e import codex_project
from tests.e2e.claude_project import Project
from tests.e2e.fake_anthropic import result_text
from tests.e2e.fake_responses import output_text
from tests.e2e.harvest_recording import FIXTURES, LABELS, record, record_codex, scenario_named
from tests.e2e.sample_repo import ClientProject

pytestmark = pytest.mark.e2e


def harvest(project: ClientProject[Any], transcript: Path) -> list[tuple[str, str, str]]:
    data = json.loads(project.lessons("harvest", str(transcript), "--json"))
    return [(c["kind"], c["subject"], c["evidence"]) for c in data["candidates"]]


def blocks(project: Project, role: str, kind: str) -> list[dict[str, Any]]:
    """The ``kind`` blocks of ``role`` messages in the last request the fake model
    received, which carries the whole session."""
    return [
        block
        for message in project.fake.requests[-1]["messages"]
        if message["role"] == role and isinstance(message["content"], list)
        for block in message["content"]
        if block.get("type") == kind
    ]


def results(project: Project) -> list[dict[str, Any]]:
    return blocks(project, "user", "tool_result")


def rerecord(project: Project, tmp_path: Path, name: str) -> list[tuple[str, str, str]]:
    """Record the Claude Code scenario ``name`` again; its candidates (``compare``d)."""
    return compare(project, tmp_path, name, record(project, scenario_named(project.root, name)))


def compare(
    project: ClientProject[Any], tmp_path: Path, name: str, text: str
) -> list[tuple[str, str, str]]:
    """The candidates of a fresh recording, once they are the label's and the committed
    fixture's, and no temp path is left in it."""
    assert str(project.root) not in text
    assert str(project.home) not in text
    fresh = tmp_path / f"{name}.jsonl"
    fresh.write_text(text)
    found = harvest(project, fresh)
    labels = json.loads((FIXTURES / LABELS).read_text())[fresh.name]
    assert [(k, s) for k, s, _e in found] == [(x["kind"], x["subject"]) for x in labels]
    assert found == harvest(project, FIXTURES / fresh.name)
    return found


def test_a_failed_edit_fixed_by_the_next_one_is_no_candidate(
    project: Project, tmp_path: Path
) -> None:
    """The client reported the first edit as an error and the second as done: the edit
    tool's own error, the agent's slip."""
    assert rerecord(project, tmp_path, "fail_fix_edit") == []
    # Write, then the Edit whose old text is not there, then the one that applies.
    assert [bool(r.get("is_error")) for r in results(project)] == [False, True, False]


def test_a_missing_target_then_another_of_its_family(project: Project, tmp_path: Path) -> None:
    """`make deploy-prod` failed (no such target) and `make deploy ENV=prod` ran right
    after: one fail-fix on the failed command."""
    found = rerecord(project, tmp_path, "fail_fix_other_target")
    assert found == [("fail-fix", "make deploy-prod", "exit 2: No rule to make target")]
    # The Makefile written, the failing target, the one that works.
    assert [bool(r.get("is_error")) for r in results(project)] == [False, True, False]


def test_a_gate_answered_by_the_same_call(project: Project, tmp_path: Path) -> None:
    """The model got the gate's refusal as the result, then sent the identical call."""
    found = rerecord(project, tmp_path, "gate_ignored")
    assert [kind for kind, _s, _e in found] == ["gate-ignored"]
    calls = blocks(project, "assistant", "tool_use")
    refused = [r for r in results(project) if GATE_PREFIX in result_text(r)]
    assert len(calls) == 2
    assert calls[0]["input"] == calls[1]["input"]
    assert [r["tool_use_id"] for r in refused] == [calls[0]["id"]]


def test_a_session_with_nothing_to_find(project: Project, tmp_path: Path) -> None:
    """Two prompts ("No rush, ..." is no correction), no failed result: no candidate."""
    assert rerecord(project, tmp_path, "clean_session") == []
    assert not any(r.get("is_error") for r in results(project))


def test_codex_a_gate_answered_by_the_same_call_and_a_failure_twice(
    codex: codex_project.Project, tmp_path: Path
) -> None:
    """Codex's session file: the gate's refusal reached the model as the call's output and
    the same command came back; make deploy failed twice the same way."""
    name = "codex_gate_and_recurring"
    text = record_codex(codex, scenario_named(codex.root, name))
    found = compare(codex, tmp_path, name, text)
    assert [kind for kind, _s, _e in found] == ["gate-ignored", "recurring"]
    items = codex.fake.requests[-1]["input"]
    calls = [i for i in items if i.get("type") == "function_call"]
    outputs = {
        i["call_id"]: output_text(i) for i in items if i.get("type") == "function_call_output"
    }
    assert [c["arguments"] for c in calls[:2]] == ['{"cmd": "bash scripts/release.sh"}'] * 2
    assert "Command blocked by PreToolUse hook" in outputs[calls[0]["call_id"]]
    assert "Process exited with code 0" in outputs[calls[1]["call_id"]]
    assert ["Process exited with code 2" in outputs[c["call_id"]] for c in calls[2:]] == [True] * 2


def test_codex_a_missing_target_then_another_of_its_family(
    codex: codex_project.Project, tmp_path: Path
) -> None:
    """Codex's session file: `make deploy-prod` exited 2, `make deploy ENV=prod` 0."""
    name = "codex_fail_fix_other_target"
    text = record_codex(codex, scenario_named(codex.root, name))
    found = compare(codex, tmp_path, name, text)
    assert found == [("fail-fix", "make deploy-prod", "exit 2: No rule to make target")]
    items = codex.fake.requests[-1]["input"]
    outputs = [output_text(i) for i in items if i.get("type") == "function_call_output"]
    assert ["Process exited with code 2" in out for out in outputs[-2:]] == [True, False]


def test_codex_a_session_with_nothing_to_find(codex: codex_project.Project, tmp_path: Path) -> None:
    name = "codex_clean_session"
    assert (
        compare(codex, tmp_path, name, record_codex(codex, scenario_named(codex.root, name))) == []
    )
