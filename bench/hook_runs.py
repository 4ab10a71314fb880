"""Whole-process runs of ``lessons hook claude-code``: what each benchmark row feeds it.

Each row is one kind of call against one graph, with a payload shaped like the ones
Claude Code sends (``tests/fixtures/claude_code/``), run the way Claude Code runs the
command ``lessons init`` wrote: ``sh -c`` with ``CLAUDE_PROJECT_DIR`` set, through the
committed launcher ``.lessons/run``. A row that must deliver uses a new session every run
(``@RUN@``), so the rules are new each time; "all shown" reuses one session that has
already seen every rule matching the edit; "read: nothing applies" is a ``Read`` of the
file no rule is about. "direct command, silent" is the silent call as the launcher execs
it (the interpreter, isolated and without site, on lessons' entry file): the difference
to "silent: nothing applies" is what the launcher costs; "launcher, no variable, silent"
is the same call through the form written for harnesses that name no project folder
(Codex CLI, Cursor). Every call answers in its own process, as a user's hooks do.
"""

from __future__ import annotations

import itertools
import json
import os
import subprocess
from dataclasses import dataclass

from bench.graphs import Graph
from bench.installs import Install
from bench.timing import RUN, Probe
from lessons_core.store.launcher import hook_command


@dataclass(frozen=True)
class Row:
    graph: Graph
    kind: str  # one of KINDS, DIRECT, NO_VARIABLE
    probe: Probe


SHOWN_SESSION = "bench-shown"
KINDS = (
    "edit",
    "command",
    "prompt",
    "silent: nothing applies",
    "read: nothing applies",
    "silent: all shown",
)
# The rows that must deliver; every other row must stay silent.
DELIVERING = ("edit", "command", "prompt")
DIRECT = "direct command, silent"
# The form written for harnesses that name no project folder (Codex CLI, Cursor).
NO_VARIABLE = "launcher, no variable, silent"


def payload(graph: Graph, session: str, event: str, **fields: object) -> bytes:
    data = {
        "session_id": session,
        "transcript_path": f"/tmp/bench/{session}.jsonl",
        "cwd": str(graph.root),
        "hook_event_name": event,
        **fields,
    }
    return json.dumps(data).encode()


def edit_payload(graph: Graph, session: str, path: str) -> bytes:
    tool_input = {"file_path": str(graph.root / path), "old_string": "a", "new_string": "b"}
    return tool_payload(graph, session, "Edit", tool_input)


def tool_payload(graph: Graph, session: str, tool: str, tool_input: dict[str, str]) -> bytes:
    return payload(
        graph, session, "PreToolUse", tool_name=tool, tool_input=tool_input, tool_use_id="t"
    )


def rows(graph: Graph, install: Install) -> list[Row]:
    """Every kind of call against ``graph``, run through ``install``'s console script."""
    fresh = "bench-" + RUN.decode()
    inputs = {
        "edit": edit_payload(graph, fresh, graph.edit),
        "command": tool_payload(graph, fresh, "Bash", {"command": graph.command}),
        "prompt": payload(graph, fresh, "UserPromptSubmit", prompt=graph.prompt),
        "silent: nothing applies": edit_payload(graph, fresh, graph.quiet),
        "read: nothing applies": tool_payload(
            graph, fresh, "Read", {"file_path": str(graph.root / graph.quiet)}
        ),
        "silent: all shown": edit_payload(graph, SHOWN_SESSION, graph.edit),
    }
    argv = ("sh", "-c", hook_command("claude-code", "CLAUDE_PROJECT_DIR"))
    # LESSONS_PYTHON picks this install where both are on the machine; the launcher's
    # cache keeps its answer, so the search runs once, as on a user's machine.
    env = (
        ("CLAUDE_PROJECT_DIR", str(graph.root)),
        ("LESSONS_PYTHON", install.python),
    )
    # What the launcher execs: the interpreter, isolated and without site, on the entry file.
    info = subprocess.run(
        [install.lessons, "--launch-info"], capture_output=True, text=True, check=True
    ).stdout.splitlines()
    direct = (info[0], "-I", "-S", info[1], "hook", "claude-code")
    no_variable = ("sh", "-c", hook_command("claude-code", None))
    quiet = inputs["silent: nothing applies"]
    kinds = [kind for kind in KINDS if kind != "command" or graph.command]
    return [Row(graph, kind, Probe(argv, graph.root, inputs[kind], env)) for kind in kinds] + [
        Row(graph, DIRECT, Probe(direct, graph.root, quiet)),
        Row(graph, NO_VARIABLE, Probe(no_variable, graph.root, quiet, env)),
    ]


def baseline(install: Install, graph: Graph) -> Probe:
    return Probe((install.python, "-c", "pass"), graph.root)


# Run numbers for checks: negative, so they never meet a measured run's session, and
# each check gets its own (the second install must not find the first's rules shown).
_CHECK_RUNS = itertools.count(-2, -1)


def check_output(probe: Probe) -> bytes:
    """What ``probe`` prints, run once in a session of its own, before any timing."""
    run = next(_CHECK_RUNS)
    return subprocess.run(
        probe.argv_for(run),
        cwd=probe.cwd,
        input=probe.input_for(run),
        env={**os.environ, **dict(probe.env)},
        capture_output=True,
        check=True,
    ).stdout
