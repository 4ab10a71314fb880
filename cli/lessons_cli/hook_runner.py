"""Run one hook: read the harness's JSON on stdin, answer on stdout, never get in the way.

Fail open: bad input, a missing or broken ``.lessons/``, an unreadable config or any bug
ends with exit 0 and no output, plus one line in ``.lessons/local/hook.log``. A project
without ``.lessons/`` is simply not using lessons, so the hook stays silent there and
logs nothing. One whose ``.lessons/`` folders lead out of the repo through a link is not
used: no output, and one log line when the log's own folder stays inside the repo.
"""

from __future__ import annotations

import json
import os
import sys
from typing import BinaryIO

from lessons_cli.harnesses import MAX_PAYLOAD_BYTES
from lessons_cli.harnesses import harness as harness_module
from lessons_cli.harnesses.events import answer as answer_of
from lessons_cli.harnesses.events import event_of
from lessons_core import fsutil
from lessons_core.store.config import load_config
from lessons_core.store.layout import Layout, contained, find_root

# A hook's lock waits together end this long after it starts, well under every harness's
# hook timeout (10 s and more): then the hook serves without what it could not lock
# (docs/security.md). Its input is read up to ``MAX_PAYLOAD_BYTES`` (lessons_cli.harnesses).
LOCK_BUDGET_SECONDS = 2.0


def run_hook(harness: str, stdin: BinaryIO | None = None, stdout: BinaryIO | None = None) -> int:
    """Answer one hook call; always returns 0."""
    if sys.platform == "win32":
        return 0  # unsupported, and `lessons init` says so; a hook only stays out of the way
    fsutil.set_deadline(LOCK_BUDGET_SECONDS)
    fsutil.NOTED.clear()  # what this call meets, not what the process met before it
    try:
        return _run(harness, stdin, stdout)
    finally:
        fsutil.set_deadline(None)
        fsutil.NOTED.clear()


def _run(harness: str, stdin: BinaryIO | None, stdout: BinaryIO | None) -> int:
    event = ""
    root: str | None = None
    try:
        raw = _read_input(stdin or sys.stdin.buffer)
        adapter = harness_module(harness)
        payload = json.loads(raw)
        if not isinstance(payload, dict):
            raise ValueError("hook input is not a JSON object")
        event = event_of(adapter, payload)
        root = find_root(adapter.project_dir(payload) or os.getcwd())
        if root is None:
            return 0
        # A store whose folders lead out of the repo is not used (LeavesRepo, logged
        # only where the log itself stays inside: see log_failure).
        layout = contained(Layout(root))
        config = load_config(layout.config_file)
        answer = answer_of(adapter.ANSWERS, event, layout, payload, config)
        output = (
            json.dumps(answer, ensure_ascii=False, separators=(",", ":")).encode()
            if answer
            else b""
        )
        if fsutil.NOTED:  # served, around a store it could not write or lock: say so
            _log(root, harness, event, fsutil.NOTED)
    except Exception as err:
        _log(root, harness, event, [err])
        return 0
    if output:
        try:
            out = stdout or sys.stdout.buffer
            out.write(output + b"\n")
            out.flush()
        except OSError:
            pass
    return 0


def _read_input(stream: BinaryIO) -> bytes:
    """All of ``stream``; ``ValueError`` past ``MAX_PAYLOAD_BYTES``."""
    data = stream.read(MAX_PAYLOAD_BYTES + 1)
    if len(data) > MAX_PAYLOAD_BYTES:
        raise ValueError(f"hook input is over {MAX_PAYLOAD_BYTES:,} bytes; not read")
    return data


def _log(root: str | None, harness: str, event: str, problems: list[BaseException]) -> None:
    """One line in the hook's log per problem; never raises."""
    try:
        from lessons_core.delivery.hooklog import log_failure  # noqa: PLC0415 (heavy: secret patterns)

        where = root or find_root(os.getcwd())
        if where is None:
            return
        for problem in problems:
            log_failure(where, harness, event, problem)
    except Exception:  # fail open: a log that cannot be written is skipped
        return
