"""Building Claude Code transcript files record by record, in the client's own shapes."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

SESSION = "7d3c0a52-0000-4000-8000-000000000001"


def record(kind: str, content: Any = None, cwd: str = "/repo", **extra: Any) -> dict[str, Any]:
    data: dict[str, Any] = {"type": kind, "sessionId": SESSION, "cwd": cwd, **extra}
    if content is not None:
        data["message"] = {"role": kind, "content": content}
    return data


def tool_use(call_id: str, name: str, **tool_input: Any) -> dict[str, Any]:
    return {"type": "tool_use", "id": call_id, "name": name, "input": tool_input}


def tool_result(call_id: str, text: str, error: bool = False) -> dict[str, Any]:
    return {"type": "tool_result", "tool_use_id": call_id, "content": text, "is_error": error}


def write(folder: Path, records: list[Any]) -> Path:
    """The records as ``SESSION.jsonl`` in ``folder``; strings are written as they are."""
    path = folder / f"{SESSION}.jsonl"
    path.write_text("\n".join(r if isinstance(r, str) else json.dumps(r) for r in records) + "\n")
    return path
