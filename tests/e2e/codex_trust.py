"""Codex CLI's two trust switches, and what the real client reports about its hooks.

Codex reads a repo's ``.codex/hooks.json`` only in a trusted project, and then runs a
hook only while its current hash equals the hash trusted for it; an untrusted or changed
hook is skipped without a word in ``codex exec``. Both switches live in the user's
``$CODEX_HOME/config.toml``, written by Codex's own trust steps:

    [projects."/abs/repo"]
    trust_level = "trusted"      # the folder-trust prompt, or `codex exec --trust`

    [hooks.state."/abs/repo/.codex/hooks.json:pre_tool_use:0:0"]
    trusted_hash = "sha256:..."  # "Trust all and continue" when Codex asks to review
                                 # hooks at startup, or /hooks later

A hook's key is its file's absolute path, the event's snake_case name, and the indexes of
its matcher group and of the handler in it. Its hash (``command_hook_hash`` in
codex-rs/hooks/src/engine/discovery.rs, ``version_for_toml`` in
codex-rs/config/src/fingerprint.rs) is the SHA-256, as ``sha256:<hex>``, of compact JSON
with sorted keys of ``{"event_name", "matcher", "hooks": [handler]}``: the handler
normalised to ``type``, ``command``, ``timeout`` (600 when unset, at least 1), ``async``
and ``statusMessage``, with absent values left out, the matcher left out for the events
that ignore it. ``hooks_list`` asks the real client (its app server's ``hooks/list``, the
call behind the review screen) for the same keys and hashes, so a test can show the two
agree.
"""

from __future__ import annotations

import hashlib
import json
import subprocess
import threading
from pathlib import Path
from typing import Any

EVENT_LABELS = {
    "PreToolUse": "pre_tool_use",
    "PermissionRequest": "permission_request",
    "PostToolUse": "post_tool_use",
    "PreCompact": "pre_compact",
    "PostCompact": "post_compact",
    "SessionStart": "session_start",
    "UserPromptSubmit": "user_prompt_submit",
    "Stop": "stop",
}
_NO_MATCHER = frozenset({"UserPromptSubmit", "Stop"})


def hook_hashes(hooks_file: Path) -> dict[str, str]:
    """Codex's key and current hash of every command hook in ``hooks_file``."""
    hooks: dict[str, list[dict[str, Any]]] = json.loads(hooks_file.read_text())["hooks"]
    found = {}
    for event, groups in hooks.items():
        for group_index, group in enumerate(groups):
            for handler_index, handler in enumerate(group["hooks"]):
                normalised = {
                    "type": "command",
                    "command": handler["command"],
                    "timeout": max(1, handler.get("timeout", 600)),
                    "async": handler.get("async", False),
                    "statusMessage": handler.get("statusMessage"),
                }
                identity = {
                    "event_name": EVENT_LABELS[event],
                    "matcher": None if event in _NO_MATCHER else group.get("matcher"),
                    "hooks": [{k: v for k, v in normalised.items() if v is not None}],
                }
                text = json.dumps(
                    {k: v for k, v in identity.items() if v is not None},
                    sort_keys=True,
                    separators=(",", ":"),
                    ensure_ascii=False,
                )
                key = f"{hooks_file}:{EVENT_LABELS[event]}:{group_index}:{handler_index}"
                found[key] = "sha256:" + hashlib.sha256(text.encode()).hexdigest()
    return found


def toml_string(text: str) -> str:
    """``text`` as a TOML basic string (JSON's escapes are TOML's)."""
    return json.dumps(text)


def project_trust(root: Path) -> str:
    """What trusting the folder ``root`` adds to config.toml."""
    return f'[projects.{toml_string(str(root))}]\ntrust_level = "trusted"\n'


def hook_trust(hooks_file: Path) -> str:
    """What trusting every hook of ``hooks_file`` as it stands adds to config.toml."""
    return "".join(
        f'\n[hooks.state.{toml_string(key)}]\ntrusted_hash = "{value}"\n'
        for key, value in hook_hashes(hooks_file).items()
    )


def hooks_list(codex: Path, cwd: Path, env: dict[str, str]) -> list[dict[str, Any]]:
    """The hooks Codex finds for ``cwd``: key, currentHash, trustStatus, source, ..."""
    requests = (
        {"id": 1, "method": "initialize", "params": {"clientInfo": {"name": "t", "version": "1"}}},
        {"method": "initialized"},
        {"id": 2, "method": "hooks/list", "params": {"cwds": [str(cwd)]}},
    )
    with subprocess.Popen(
        [str(codex), "app-server"],
        cwd=cwd,
        env=env,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    ) as server:
        assert server.stdin is not None
        assert server.stdout is not None
        # The server answers only while its stdin is open, so no communicate(): read
        # lines until the answer, and kill it if none comes.
        watchdog = threading.Timer(60, server.kill)
        watchdog.start()
        try:
            server.stdin.write("".join(json.dumps(r) + "\n" for r in requests))
            server.stdin.flush()
            for line in server.stdout:
                answer = json.loads(line)
                if answer.get("id") == 2:
                    (listing,) = answer["result"]["data"]
                    hooks: list[dict[str, Any]] = listing["hooks"]
                    return hooks
        finally:
            watchdog.cancel()
            server.kill()
    raise AssertionError("codex app-server ended without answering hooks/list")
