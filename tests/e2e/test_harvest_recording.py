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
from tests.e2e.claude_project import Project
from tests.e2e.fake_anthropic import result_text
from tests.e2e.harvest_recording import FIXTURES, LABELS, Scenario, record, scenarios

pytestmark = pytest.mark.e2e


def scenario(project: Project, name: str) -> Scenario:
    return next(s for s in scenarios(project.root) if s.name == name)


def harvest(project: Project, transcript: Path) -> list[tuple[str, str, str]]:
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
    """Record ``name`` again; its candidates, after checking them against the fixture."""
    planned = scenario(project, name)
    text = record(project, planned)
    assert str(project.root) not in text
    assert str(project.home) not in text
    fresh = tmp_path / f"{name}.jsonl"
    fresh.write_text(text)
    found = harvest(project, fresh)
    labels = json.loads((FIXTURES / LABELS).read_text())[fresh.name]
    assert [(k, s) for k, s, _e in found] == [(x["kind"], x["subject"]) for x in labels]
    assert found == harvest(project, FIXTURES / fresh.name)
    return found


def test_a_failed_edit_fixed_by_the_next_one(project: Project, tmp_path: Path) -> None:
    """The client reported the first edit as an error and the second as done."""
    found = rerecord(project, tmp_path, "fail_fix_edit")
    assert found == [("fail-fix", "src/util.py", "edit: old_string not found")]
    # Write, then the Edit whose old text is not there, then the one that applies.
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
