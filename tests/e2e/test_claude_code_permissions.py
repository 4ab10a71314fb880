"""`lessons export --format claude-permissions` with the real Claude Code CLI: the client
itself refuses a command an enforced lesson's deny rule names, every time."""

from __future__ import annotations

import json

import pytest

from lessons_core.delivery.deliver import GATE_PREFIX
from tests.e2e.claude_project import TOOLS, Project, bash_call
from tests.e2e.fake_anthropic import result_text, tool_results

pytestmark = pytest.mark.e2e

RULE = "Never run scripts/release.sh by hand; the release job runs it."


@pytest.mark.parametrize("mode", ["allowed", "skip-permissions"])
def test_claude_code_refuses_an_exported_deny_rule_itself(project: Project, mode: str) -> None:
    """The deny entry holds where the hook's gate lets a retry through, and with
    --dangerously-skip-permissions too: the script never runs."""
    lesson = {
        "created": "2026-12-01",
        "enforce": True,
        "evidence": [],
        "id": "release-by-hand",
        "rule": RULE,
        "status": "active",
        "topics": ["release"],
        "triggers": {"commands": [r"^bash scripts/release\.sh( |$)"], "files": [], "keywords": []},
    }
    path = project.root / ".lessons" / "lessons" / "release-by-hand.json"
    path.write_text(json.dumps(lesson, indent=2, sort_keys=True) + "\n")
    settings = project.root / ".claude" / "settings.json"
    hooks = json.loads(settings.read_text())["hooks"]
    report = project.lessons("export", "--format", "claude-permissions")
    assert "Bash(bash scripts/release.sh:*)  lesson release-by-hand" in report
    written = json.loads(settings.read_text())
    assert written["permissions"]["deny"] == ["Bash(bash scripts/release.sh:*)"]
    assert written["hooks"] == hooks  # the lessons wiring is untouched

    fake = project.fake
    fake.scenarios["deny"] = [bash_call("bash scripts/release.sh")] * 3
    flags = ["--allowedTools", TOOLS] if mode == "allowed" else ["--dangerously-skip-permissions"]
    # IS_SANDBOX=1: the client's own switch that lets --dangerously-skip-permissions run
    # as root, which these tests are in their container.
    result = project.claude("SCENARIO:deny release it", *flags, IS_SANDBOX="1")
    assert not (project.root / "released.txt").exists()  # refused every time
    results = [r for request in fake.requests for r in tool_results(request)]
    last = tool_results(fake.requests[-1])[-1]
    assert last["is_error"] is True
    assert GATE_PREFIX not in result_text(last)  # Claude Code's own refusal, not the gate's
    assert "denied" in result_text(last).lower()
    assert len([d for d in result["permission_denials"] if d["tool_name"] == "Bash"]) >= 2
    assert len(results) >= 3
