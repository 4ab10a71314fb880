"""Codex CLI's hook trust: the key and hash Codex keeps for each command hook.

Codex runs a repo's hook only while its current hash equals the one trusted for it in
``$CODEX_HOME/config.toml`` (``[hooks.state."<key>"] trusted_hash``). A hook's key is its
file's absolute path, the event's snake_case name, and the indexes of its matcher group
and of the handler in it. Its hash (``command_hook_hash`` in
codex-rs/hooks/src/engine/discovery.rs, ``version_for_toml`` in
codex-rs/config/src/fingerprint.rs) is the SHA-256, as ``sha256:<hex>``, of compact JSON
with sorted keys of ``{"event_name", "matcher", "hooks": [handler]}``: the handler
normalised to ``type``, ``command``, ``timeout`` (600 when unset, at least 1), ``async``
and ``statusMessage``, with absent values left out, the matcher left out for the events
that ignore it. tests/e2e/test_codex.py checks these against the real client's own list.
"""

from __future__ import annotations

import hashlib
import json
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


def hook_hashes(hooks_file: Path, settings: dict[str, Any] | None = None) -> dict[str, str]:
    """Codex's key and current hash of every command hook in ``hooks_file`` (its parsed
    ``settings`` when given)."""
    data = settings if settings is not None else json.loads(hooks_file.read_text())
    hooks = data.get("hooks") if isinstance(data, dict) else None
    found = {}
    for event, groups in (hooks or {}).items():
        if event not in EVENT_LABELS or not isinstance(groups, list):
            continue
        for group_index, group in enumerate(groups):
            handlers = group.get("hooks") if isinstance(group, dict) else None
            for handler_index, handler in enumerate(handlers or []):
                if not isinstance(handler, dict) or "command" not in handler:
                    continue
                key = f"{hooks_file}:{EVENT_LABELS[event]}:{group_index}:{handler_index}"
                found[key] = _hash(event, group.get("matcher"), handler)
    return found


def _hash(event: str, matcher: Any, handler: dict[str, Any]) -> str:
    normalised = {
        "type": "command",
        "command": handler["command"],
        "timeout": max(1, handler.get("timeout", 600)),
        "async": handler.get("async", False),
        "statusMessage": handler.get("statusMessage"),
    }
    identity = {
        "event_name": EVENT_LABELS[event],
        "matcher": None if event in _NO_MATCHER else matcher,
        "hooks": [{k: v for k, v in normalised.items() if v is not None}],
    }
    text = json.dumps(
        {k: v for k, v in identity.items() if v is not None},
        sort_keys=True,
        separators=(",", ":"),
        ensure_ascii=False,
    )
    return "sha256:" + hashlib.sha256(text.encode()).hexdigest()
