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
with sorted keys of ``{"event_name", "matcher", "hooks": [handler]}``
(``lessons_cli.harnesses.codex_trust``, which ``lessons doctor`` uses). ``hooks_list`` asks the
real client (its app server's ``hooks/list``, the call behind the review screen) for the
same keys and hashes, so a test can show the two agree.
"""

from __future__ import annotations

import json
import subprocess
import threading
from pathlib import Path
from typing import Any

from lessons_cli.harnesses.codex_trust import hook_hashes


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
