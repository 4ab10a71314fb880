"""A writer killed at any moment never leaves a half-written lesson, config or state file."""

from __future__ import annotations

import random
import signal
import subprocess
import sys
import time

import orjson

from lessons_core.session import state as sessions
from lessons_core.store.files import load_graph
from lessons_core.store.layout import Layout
from tests.conftest import git

# Rewrites one lesson (merge of new evidence), the config and a session file, forever.
WRITER = """
import sys, itertools
from pathlib import Path
from lessons_core.session import state as sessions
from lessons_core.authoring.capture import add_lesson
from lessons_core.store.config import Config
from lessons_core.fsutil import atomic_write
from lessons_core.authoring.guards import CaptureDraft
from lessons_core.jsonio import dumps
from lessons_core.store.layout import Layout
from lessons_core.store.model import Triggers

layout = Layout(Path(sys.argv[1]))
for n in itertools.count():
    draft = CaptureDraft(rule="Flush the audit queue before closing the ledger.",
                         topics=("ledger",), triggers=Triggers(keywords=("ledger",)),
                         evidence=(f"run:{n}",) * 1, rationale="x" * (n % 1500))
    add_lesson(layout, draft)
    atomic_write(layout.config_path, dumps(Config(max_tokens=100 + n % 50).to_dict()))
    sessions.claim(layout, "s", [f"lesson-{n}"])
    print(n, flush=True)
"""


def test_killed_writers_never_leave_partial_files(repo: Layout) -> None:
    """SIGKILL at random points, 40 times: every file still parses, no temp file is a lesson."""
    rng = random.Random(1)
    completed = 0
    for _ in range(40):
        proc = subprocess.Popen(
            [sys.executable, "-c", WRITER, str(repo.root)],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        assert proc.stdout is not None
        proc.stdout.readline()  # at least one full cycle ran, so the files exist
        time.sleep(rng.uniform(0, 0.05))
        proc.send_signal(signal.SIGKILL)
        proc.communicate()
        graph = load_graph(repo)
        assert not graph.broken, graph.broken
        assert len(graph.lessons) == 1
        orjson.loads(repo.config_path.read_bytes())
        assert isinstance(sessions.load(repo, "s").shown, frozenset)
        completed += 1
    assert completed == 40
    (lesson,) = load_graph(repo).lessons.values()
    assert len(lesson.evidence) > 1  # the writers really did rewrite it
    status = git(repo.root, "status", "--porcelain", "--untracked-files=all")
    assert ".tmp" not in status
