"""Crash injection beyond the store's own files: a process killed at any moment while it
merges harness settings, edits AGENTS.md (the init and the export sections), rewrites a
lesson, resets session state, appends to the hook log or appends to (and rotates) the
telemetry log never leaves a half-written file, and keeps what others wrote."""

from __future__ import annotations

import json
import random
import signal
import subprocess
import sys
import time
from typing import Any

import orjson

from lessons_cli.harnesses.agent_docs import END, EXPORT, START
from lessons_core.delivery.hooklog import log_path
from lessons_core.session import state as sessions
from lessons_core.store.files import load_graph
from lessons_core.store.layout import Layout
from lessons_core.telemetry import log as telemetry
from tests.conftest import save_lesson

# Every write the CLI and the hook make outside lesson creation, in a loop, forever.
WRITER = """
import itertools, sys
from dataclasses import replace
from pathlib import Path
from lessons_cli.harnesses import wiring, wirings
from lessons_cli.harnesses import agent_docs
from lessons_core.session import state as sessions
from lessons_core.telemetry import log as telemetry
from lessons_core.store.config import Config
from lessons_core.delivery.hooklog import log_failure
from lessons_core.store.layout import Layout
from lessons_core.store.files import get_lesson, update_lesson
from lessons_core.export import agents_md

root = Path(sys.argv[1])
layout = Layout(root)
spec = wirings()["claude-code"]
config = Config(telemetry=True, telemetry_max_bytes=4000)  # rotates every ~15 records
for n in itertools.count():
    wiring.install(root, spec, f"/venv{n % 7}/bin/python -m lessons_cli hook claude-code")
    if n % 3 == 0:
        wiring.uninstall(root, spec)
    (agent_docs.add_snippet if n % 2 else agent_docs.remove_snippet)(root / "AGENTS.md")
    if n % 4 == 3:
        agent_docs.EXPORT.remove(root / "AGENTS.md")
    else:
        agent_docs.EXPORT.put(root / "AGENTS.md", agent_docs.EXPORT.wrap(agents_md(layout)))
    lesson = get_lesson(layout, "code-sorted")
    update_lesson(layout, replace(lesson, rationale="because " * (n % 400)))
    sessions.claim(layout, "s", [f"lesson-{n}"])
    if n % 5 == 0:
        sessions.reset(layout, "s")
    sessions.forget_lesson(layout, f"lesson-{n - 1}")
    log_failure(root, "claude-code", "PreToolUse", ValueError(f"failure {n}"))
    telemetry.record_recall(layout, config, event="PreToolUse", key=f"make step{n}",
                            candidates=["code-sorted"], delivered=["code-sorted"], tokens=40,
                            session="s")
    telemetry.record_failure(layout, config, event="PostToolUseFailure", key=f"make step{n}",
                             session="s")
    print(n, flush=True)
"""
USER_SETTINGS: dict[str, Any] = {
    "permissions": {"allow": ["Bash(npm test)"]},
    "hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command",
                                                            "command": "./audit.sh"}]}]},
}  # fmt: skip
USER_AGENTS = "# Agents\n\nRun npm test before pushing.\n"


def check_files(layout: Layout) -> None:
    """Every file the writer touches parses, and what the user wrote is still there."""
    root = layout.root
    settings = orjson.loads((root / ".claude" / "settings.json").read_bytes())
    assert settings["permissions"] == USER_SETTINGS["permissions"]
    assert USER_SETTINGS["hooks"]["PreToolUse"][0] in settings["hooks"]["PreToolUse"]
    agents = (root / "AGENTS.md").read_text()
    assert agents.startswith(USER_AGENTS)
    assert agents.count(START) == agents.count(END) <= 1
    assert agents.count(EXPORT.start) == agents.count(EXPORT.end) <= 1
    graph = load_graph(layout)
    assert not graph.broken, graph.broken
    assert set(graph.lessons) == {"code-sorted"}
    for state in (layout.local_dir / "sessions").glob("*.json"):
        assert isinstance(json.loads(state.read_bytes())["shown"], list)
    assert isinstance(sessions.load(layout, "s").shown, frozenset)
    log = log_path(root).read_bytes()
    assert log.endswith(b"\n")
    assert all(line.count(b"ValueError: failure") == 1 for line in log.splitlines())
    records = telemetry.read_log(layout)
    assert records.skipped == 0
    assert records.recalls
    assert all(f.after == ("code-sorted",) for f in records.failures)


def test_writers_killed_at_random_leave_every_file_whole(project: Layout) -> None:
    """SIGKILL at random points, 30 times: settings.json, AGENTS.md, the lesson, session
    files, the hook log and the telemetry log all parse, and the user's own settings and
    text survive."""
    root = project.root
    (root / ".claude").mkdir()
    (root / ".claude" / "settings.json").write_text(json.dumps(USER_SETTINGS, indent=2))
    (root / "AGENTS.md").write_text(USER_AGENTS)
    save_lesson(project, "code-sorted", "Keep imports in src/ sorted.", files=("src/**",))
    rng = random.Random(8)
    cycles = 0
    for _ in range(30):
        proc = subprocess.Popen(
            [sys.executable, "-c", WRITER, str(root)],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        assert proc.stdout is not None
        # Two full cycles ran (every file exists, and rewrites are under way), whatever the
        # machine's load; the kill then lands at a random point of a later cycle.
        proc.stdout.readline()
        proc.stdout.readline()
        time.sleep(rng.uniform(0, 0.04))
        proc.send_signal(signal.SIGKILL)
        out, err = proc.communicate()
        assert proc.returncode == -signal.SIGKILL, err
        cycles += len(out.splitlines()) + 2
        check_files(project)
    assert cycles >= 60  # the writers got well into their loops, not just past start-up
    temps = [p for p in root.rglob("*.tmp") if ".git" not in p.parts]
    assert all(p.name.startswith(".") for p in temps)  # never a file the harness reads
