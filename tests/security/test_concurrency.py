"""Concurrency: 50 hook processes on one session and `lessons add` processes at the same
time lose no update and no lesson, and no reader ever sees half a file."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from lessons_core.delivery.hooklog import log_path
from lessons_core.session import state as sessions
from lessons_core.store.files import load_graph
from lessons_core.store.layout import Layout
from tests.conftest import save_lesson
from tests.security.conftest import checked_answer

HOOKS = 50
STAGES = 10  # five hooks race for each lesson
NEW_RULES = {
    "invoice": "Round invoice totals only after summing the line items.",
    "ledger": "Close the ledger through LedgerService, never with raw SQL.",
    "tenant": "Scope every tenant query by its organisation id.",
    "webhook": "Verify webhook signatures before parsing the payload.",
    "quota": "Read quota limits from settings, not from constants.",
    "replica": "Send analytics reads to the replica database.",
}
MERGED = ("smoke", "canary")


def start(cwd: Path, *args: str) -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        [sys.executable, "-m", "lessons_cli", *args],
        cwd=cwd,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )


def stage_rule(stage: int) -> str:
    return f"Run the smoke check for stage {stage}."


def deploy_call(root: Path, stage: int) -> bytes:
    """A Claude Code PreToolUse call running `deploy-STAGE` in the shared session."""
    call = {
        "hook_event_name": "PreToolUse",
        "session_id": "shared",
        "cwd": str(root),
        "tool_name": "Bash",
        "tool_input": {"command": f"deploy-{stage} --go"},
    }
    return json.dumps(call).encode()


def test_fifty_hooks_and_parallel_adds_lose_nothing(project: Layout) -> None:
    """50 PreToolUse hooks on one session (five per lesson) while 8 `lessons add` run, two
    of them rewriting a lesson the hooks are reading: every lesson shown exactly once,
    the session records all of them, every add lands, every file parses."""
    for stage in range(STAGES):
        save_lesson(project, f"deploy-step-{stage}", stage_rule(stage),
                    commands=(f"deploy-{stage}",), topics=("deploy",))  # fmt: skip
    root = project.root
    hooks = [(start(root, "hook", "claude-code"), n % STAGES) for n in range(HOOKS)]
    new = [start(root, "add", rule, "--topic", "ops", "--trigger-keyword", noun)
           for noun, rule in NEW_RULES.items()]  # fmt: skip
    # The same rule as a lesson the hooks deliver: each add merges a keyword into its file.
    merges = [start(root, "add", stage_rule(0), "--topic", "deploy",
                    "--trigger-keyword", word) for word in MERGED]  # fmt: skip
    for proc, stage in hooks:  # every input first, so the hooks really race
        assert proc.stdin is not None
        proc.stdin.write(deploy_call(root, stage))
        proc.stdin.flush()
    texts = []
    for proc, _stage in hooks:
        out, err = proc.communicate(timeout=120)
        assert (proc.returncode, err) == (0, b"")
        texts.append(checked_answer("claude-code", "PreToolUse", out))
    added = [proc.communicate(timeout=120) for proc in new + merges]
    assert [proc.returncode for proc in new + merges] == [0] * 8, [err for _, err in added]

    delivered = "\n".join(text for text in texts if text)
    for stage in range(STAGES):
        assert delivered.count(stage_rule(stage)) == 1, stage
    stages = {f"deploy-step-{stage}" for stage in range(STAGES)}
    assert sessions.load(project, "shared").shown == stages
    graph = load_graph(project)
    assert not graph.broken
    new_ids = {out.decode().strip() for out, _ in added[: len(NEW_RULES)]}
    assert set(graph.lessons) == stages | new_ids
    assert len(new_ids) == len(NEW_RULES)
    assert set(graph.lessons["deploy-step-0"].triggers.keywords) == set(MERGED)
    assert not log_path(root).exists()
    assert [p.name for p in project.lessons_dir.iterdir() if p.name.startswith(".")] == []
