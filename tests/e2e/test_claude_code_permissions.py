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
# Each form a trigger translates to (prefix, exact command, wildcard), the rule it gives,
# and a command it refuses, which would leave the file named if it ran.
TRIGGERS = {
    r"^bash scripts/release\.sh( |$)": ("Bash(bash scripts/release.sh:*)", "released.txt"),
    r"^touch exact\.txt$": ("Bash(touch exact.txt)", "exact.txt"),
    r"^touch wild-": ("Bash(touch wild-*)", "wild-1.txt"),
}
COMMANDS = {
    "released.txt": "bash scripts/release.sh",
    "exact.txt": "touch exact.txt",
    "wild-1.txt": "touch wild-1.txt",
}


@pytest.mark.parametrize("mode", ["allowed", "skip-permissions"])
def test_claude_code_refuses_an_exported_deny_rule_itself(project: Project, mode: str) -> None:
    """Each exported form of rule (prefix, exact, wildcard) holds without the lessons hooks,
    and with --dangerously-skip-permissions too: no command runs."""
    lesson = {
        "created": "2026-12-01",
        "enforce": True,
        "evidence": [],
        "id": "release-by-hand",
        "rule": RULE,
        "status": "active",
        "topics": ["release"],
        "triggers": {"commands": list(TRIGGERS), "files": [], "keywords": []},
    }
    path = project.root / ".lessons" / "lessons" / "release-by-hand.json"
    path.write_text(json.dumps(lesson, indent=2, sort_keys=True) + "\n")
    settings = project.root / ".claude" / "settings.json"
    hooks = json.loads(settings.read_text())["hooks"]
    report = project.lessons("export", "--format", "claude-permissions")
    rules = [rule for rule, _ in TRIGGERS.values()]
    assert all(f"{rule}  lesson release-by-hand" in report for rule in rules)
    written = json.loads(settings.read_text())
    assert written["permissions"]["deny"] == rules
    assert written["hooks"] == hooks  # the lessons wiring is untouched
    # The enforced lesson's hook would refuse first; without the hooks (a teammate who has
    # not installed lessons) only the client's own deny rules stand in the way.
    del written["hooks"]
    settings.write_text(json.dumps(written, indent=2) + "\n")

    fake = project.fake
    # Each command twice: a retry runs past a refusal made once; the deny rule refuses it again.
    fake.scenarios["deny"] = [bash_call(c) for c in COMMANDS.values() for _ in range(2)]
    flags = ["--allowedTools", TOOLS] if mode == "allowed" else ["--dangerously-skip-permissions"]
    # IS_SANDBOX=1: the client's own switch that lets --dangerously-skip-permissions run
    # as root, which these tests are in their container.
    result = project.claude("SCENARIO:deny release it", *flags, IS_SANDBOX="1")
    assert [name for name in COMMANDS if (project.root / name).exists()] == []
    results = tool_results(fake.requests[-1])  # every call's result, in the last request
    assert GATE_PREFIX not in result_text(results[-1])  # the client's refusal, no hook's
    assert len([d for d in result["permission_denials"] if d["tool_name"] == "Bash"]) >= 6
    assert all(r["is_error"] for r in results)
    denied = {result_text(r) for r in results}
    for command in COMMANDS.values():  # the client's own words, for each form of rule
        assert f"Permission to use Bash with command {command} has been denied." in denied
