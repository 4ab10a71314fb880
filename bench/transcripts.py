"""A large Claude Code transcript, generated: how harvest's time grows with a file's size.

Each block of five records is one prompt, a command (one in three fails with an
environment error, over 500 different commands, so failures recur and get fixed) and an
edit of a new file, with a 1.5 kB tool output, about 2.7 kB a block: the file's size is
chosen by the block count. Every action is new or repeated, so the detector's state grows
with the file, the way a long session's does.
"""

from __future__ import annotations

from pathlib import Path

import orjson

BLOCK_BYTES = 2_700  # about, as written below
OUTPUT = "make: mytool: No such file or directory\n" + "x" * 1_500
SESSION = "0b5e7c1a-0000-4000-8000-00000000bench"


def write_transcript(path: Path, megabytes: float, root: str = "/repo") -> int:
    """Write about ``megabytes`` MB of transcript to ``path``; its size in bytes."""
    blocks = max(1, int(megabytes * 1_000_000 / BLOCK_BYTES))
    with path.open("wb") as out:
        for number in range(blocks):
            out.write(b"".join(orjson.dumps(r) + b"\n" for r in _block(number, root)))
    return path.stat().st_size


def _block(n: int, root: str) -> list[dict[str, object]]:
    base = {"sessionId": SESSION, "cwd": root, "timestamp": "2026-11-30T10:00:00.000Z"}
    command = f"make target{n % 500}"
    failed = n % 3 == 0
    return [
        {**base, "type": "user", "message": {"role": "user", "content": f"step {n}, go on"}},
        _call(base, f"a{n}", "Bash", {"command": command}),
        _result(base, f"a{n}", ("Exit code 2\n" if failed else "") + OUTPUT, failed),
        _call(base, f"b{n}", "Edit", {"file_path": f"{root}/src/m{n}.py", "old_string": "a",
                                       "new_string": "b"}),
        _result(base, f"b{n}", "ok", False),
    ]  # fmt: skip


def _call(
    base: dict[str, str], call_id: str, name: str, tool_input: dict[str, str]
) -> dict[str, object]:
    block = {"type": "tool_use", "id": call_id, "name": name, "input": tool_input}
    return {**base, "type": "assistant", "message": {"role": "assistant", "content": [block]}}


def _result(base: dict[str, str], call_id: str, text: str, failed: bool) -> dict[str, object]:
    block = {"type": "tool_result", "tool_use_id": call_id, "content": text, "is_error": failed}
    return {**base, "type": "user", "message": {"role": "user", "content": [block]}}
