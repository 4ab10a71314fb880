"""Broad rules at a tool call, through the real hook runner: a rule whose trigger names
the exact file or command touched is always shown; rules that fire only through a broad
trigger (a pattern firing on many everyday commands, a glob sweeping a tree by file type)
wait while it speaks, and the block's count of them names the command that lists them."""

from __future__ import annotations

import os
import shlex
import subprocess
import sys
from pathlib import Path
from typing import Any

from lessons_core.store.layout import Layout
from tests.hooks.conftest import answer, write_lesson

EXACT_COMMAND = "Run pnpm test with CI=true so it never waits for a TTY."
EXACT_FILE = "Keep src/a.py free of import-time side effects."
# ``test`` fires on ``pnpm test``, ``npm test``, ``pytest`` ... of the probe commands.
BROAD_COMMANDS = tuple(f"Broad test rule {n}: read the test log first." for n in range(3))
BROAD_FILES = tuple(f"Broad python rule {n}: type every function." for n in range(3))


def call(root: Path, session: str, **tool: Any) -> str:
    """What the model receives for one Claude Code tool call, refused or not."""
    name = "Bash" if "command" in tool else "Edit"
    if "file_path" in tool:
        tool = {**tool, "file_path": str(root / tool["file_path"]), "old_string": "x"}
        tool["new_string"] = "y"
    found = answer(
        "claude-code",
        {
            "session_id": session,
            "transcript_path": "/x",
            "cwd": str(root),
            "hook_event_name": "PreToolUse",
            "tool_name": name,
            "tool_input": tool,
            "tool_use_id": f"toolu_{session}",
        },
    )
    if found is None:
        return ""
    out = found["hookSpecificOutput"]
    return str(out.get("permissionDecisionReason") or out.get("additionalContext", ""))


def broad_command_lessons(project: Layout) -> None:
    write_lesson(project, "pnpm-test-ci", EXACT_COMMAND, commands=(r"^pnpm test$",))
    for n, rule in enumerate(BROAD_COMMANDS):
        write_lesson(project, f"broad-test-{n}", rule, commands=(r"\btest\b",))


def broad_file_lessons(project: Layout) -> None:
    write_lesson(project, "code-a-exact", EXACT_FILE, files=("src/a.py",))
    for n, rule in enumerate(BROAD_FILES):
        write_lesson(project, f"broad-py-{n}", rule, files=("**/*.py",))


def pointer(text: str) -> str:
    """The command the block's count of rules left out names."""
    line = next(line for line in text.splitlines() if " more rule" in line)
    return line.split(": ", 1)[1]


def run_pointer(command: str, root: Path) -> str:
    """``command`` as the agent's shell runs it, with this install's ``lessons`` on PATH."""
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"}
    done = subprocess.run(
        ["sh", "-c", command], cwd=root, env=env, capture_output=True, text=True, check=True
    )
    return done.stdout


def test_the_exact_command_rule_speaks_every_session_the_broad_ones_wait(
    project: Layout,
) -> None:
    """Three sessions running ``pnpm test``: each shows the rule about that very command,
    and counts the three broad ones instead of showing them."""
    broad_command_lessons(project)
    for day in range(3):
        text = call(project.root, f"day-{day}", command="pnpm test")
        assert f"- {EXACT_COMMAND}" in text, day
        assert not any(rule in text for rule in BROAD_COMMANDS), day
        assert "3 more rules match: " in text, day


def test_the_exact_file_rule_speaks_the_sweeping_glob_rules_wait(project: Layout) -> None:
    broad_file_lessons(project)
    text = call(project.root, "s", file_path="src/a.py")
    assert f"- {EXACT_FILE}" in text
    assert not any(rule in text for rule in BROAD_FILES)
    assert "3 more rules match: " in text


def test_the_pointer_runs_and_lists_every_rule_left_out(project: Layout) -> None:
    """The count's command is runnable as written and prints the rules the block left
    out, for the command and for the file the call touched."""
    broad_command_lessons(project)
    broad_file_lessons(project)
    root = project.root
    command = pointer(call(root, "cmd", command="pnpm test"))
    assert command.endswith(" query --cmd 'pnpm test' --all")
    listed = run_pointer(command, root)
    assert all(rule in listed for rule in (EXACT_COMMAND, *BROAD_COMMANDS))
    command = pointer(call(root, "file", file_path="src/a.py"))
    assert command.endswith(f" query --file {shlex.quote('src/a.py')} --all")
    listed = run_pointer(command, root)
    assert all(rule in listed for rule in (EXACT_FILE, *BROAD_FILES))


def test_a_broad_rule_still_speaks_when_nothing_more_specific_matches(
    project: Layout,
) -> None:
    """Demoted, not withheld: ``npm test`` has no rule of its own, so one broad rule
    speaks (``max_broad_matches``), and the count points to the others."""
    broad_command_lessons(project)
    text = call(project.root, "s", command="npm test")
    assert sum(rule in text for rule in BROAD_COMMANDS) == 1
    assert EXACT_COMMAND not in text
    assert pointer(text).endswith(" query --cmd 'npm test' --all")


def test_after_the_session_note_the_pointer_is_short_and_a_plain_count_has_none(
    project: Layout,
) -> None:
    """Once the session note named the launcher, the pointer is ``query ... --all``, as
    the note's ``show ID`` is; a count of specific rules left out (they come on a later
    call) names no command."""
    broad_command_lessons(project)
    for n in range(4):
        write_lesson(project, f"code-src-{n}", f"Folder rule {n}.", files=("src/*.py",))
    root = project.root
    started = answer(
        "claude-code",
        {
            "session_id": "noted",
            "transcript_path": "/x",
            "cwd": str(root),
            "hook_event_name": "SessionStart",
            "source": "startup",
        },
    )
    assert started is not None
    text = call(root, "noted", command="pnpm test")
    assert text.splitlines()[-2] == "3 more rules match: query --cmd 'pnpm test' --all"
    text = call(root, "noted", file_path="src/a.py")
    assert text.splitlines()[-2] == "1 more rule matches."
