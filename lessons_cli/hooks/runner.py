"""Run one hook: read the harness's JSON on stdin, answer on stdout, never get in the way.

Fail open: bad input, a missing or broken ``.lessons/``, an unreadable config or any bug
ends with exit 0 and no output, plus one line in ``.lessons/local/hook.log``. A project
without ``.lessons/`` is simply not using lessons, so the hook stays silent there and
logs nothing; so does one whose ``.lessons/`` folders are links leading out of the repo.
"""

from __future__ import annotations

import contextlib
import json
import os
import sys
from importlib import import_module
from pathlib import Path
from typing import Any, BinaryIO, Protocol

from lessons_core.config import Config, load_config
from lessons_core.layout import Layout, escaping_link, find_root

# Harness name on the command line -> adapter module under lessons_cli.hooks.
HARNESSES: dict[str, str] = {
    "claude-code": "claude_code",
    "codex": "codex",
    "gemini": "gemini",
    "cursor": "cursor",
}


class Adapter(Protocol):
    def project_dir(self, payload: dict[str, Any]) -> str | None: ...

    def handle(
        self, layout: Layout, payload: dict[str, Any], config: Config
    ) -> dict[str, Any] | None: ...


def run_hook(harness: str, stdin: BinaryIO | None = None, stdout: BinaryIO | None = None) -> int:
    """Answer one hook call; always returns 0."""
    event = ""
    root: Path | None = None
    try:
        raw = (stdin or sys.stdin.buffer).read()
        adapter: Adapter = import_module(f"lessons_cli.hooks.{HARNESSES[harness]}")
        payload = json.loads(raw)
        if not isinstance(payload, dict):
            raise ValueError("hook input is not a JSON object")
        event = str(payload.get("hook_event_name", ""))
        root = find_root(Path(adapter.project_dir(payload) or os.getcwd()))
        if root is None:
            return 0
        layout = Layout(root)
        if escaping_link(layout) is not None:
            return 0  # not a store lessons may use, nor log into: see escaping_link
        answer = adapter.handle(layout, payload, load_config(layout.config_path))
        output = _dumps(answer) if answer else b""
    except Exception as err:
        with contextlib.suppress(Exception):
            from lessons_core.hooklog import log_failure  # only on failure: it masks secrets

            root = root or find_root(Path(os.getcwd()))
            if root is not None:
                log_failure(root, harness, event, err)
        return 0
    if output:
        with contextlib.suppress(OSError):
            out = stdout or sys.stdout.buffer
            out.write(output + b"\n")
            out.flush()
    return 0


def _dumps(answer: dict[str, Any]) -> bytes:
    """Compact UTF-8 JSON. The standard ``json`` module rather than orjson on this path:
    importing orjson (it pulls in dataclasses, uuid and datetime) costs ~10 ms a call."""
    return json.dumps(answer, ensure_ascii=False, separators=(",", ":")).encode()
