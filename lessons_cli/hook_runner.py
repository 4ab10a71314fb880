"""Run one hook: read the harness's JSON on stdin, answer on stdout, never get in the way.

Fail open: bad input, a missing or broken ``.lessons/``, an unreadable config or any bug
ends with exit 0 and no output, plus one line in ``.lessons/local/hook.log``. A project
without ``.lessons/`` is simply not using lessons, so the hook stays silent there and
logs nothing. One whose ``.lessons/`` folders lead out of the repo through a link is not
used: no output, and one log line when the log's own folder stays inside the repo.
"""

from __future__ import annotations

import os
import sys

from lessons_cli.harnesses import harness as harness_module
from lessons_core import hookjson
from lessons_core.store.config import load_config
from lessons_core.store.layout import Layout, contained, find_root

# Every import here is paid on every tool call: typing, pathlib, json, contextlib and
# importlib are left out (about 8, 8, 6, 1 and 1 ms on a 2-core VM; lessons_core.records).
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import BinaryIO


def run_hook(harness: str, stdin: BinaryIO | None = None, stdout: BinaryIO | None = None) -> int:
    """Answer one hook call; always returns 0."""
    if sys.platform == "win32":
        return 0  # unsupported, and `lessons init` says so; a hook only stays out of the way
    event = ""
    root: str | None = None
    try:
        raw = (stdin or sys.stdin.buffer).read()
        adapter = harness_module(harness)
        payload = hookjson.loads(raw)
        if not isinstance(payload, dict):
            raise ValueError("hook input is not a JSON object")
        # Copilot's payloads name no event: its adapter reads it from their fields.
        named = getattr(adapter, "event_of", None)
        event = str(named(payload) if named else payload.get("hook_event_name", ""))
        root = find_root(adapter.project_dir(payload) or os.getcwd())
        if root is None:
            return 0
        # A store whose folders lead out of the repo is not used (LeavesRepo, logged
        # only where the log itself stays inside: see log_failure).
        layout = contained(Layout(root))
        answer = adapter.handle(layout, payload, load_config(layout.config_file))
        output = hookjson.dumps(answer).encode() if answer else b""
    except Exception as err:
        try:
            from lessons_core.delivery.hooklog import (
                log_failure,  # only on failure: it masks secrets
            )

            root = root or find_root(os.getcwd())
            if root is not None:
                log_failure(root, harness, event, err)
        except Exception:  # fail open: a log that cannot be written is skipped
            return 0
        return 0
    if output:
        try:
            out = stdout or sys.stdout.buffer
            out.write(output + b"\n")
            out.flush()
        except OSError:
            pass
    return 0
