"""The exit code of a Codex shell call, read from the end of its session file.

Codex CLI 0.171.0's ``PostToolUse`` hands a shell call's output only (a command printing
``out`` and ``err`` and exiting 3 sends ``"tool_response": "out\\nerr\\n"``). Its session
file (the payload's ``transcript_path``) already holds, when the hook runs, the call's
``event_msg`` record ``item_completed`` whose ``CommandExecution`` item has the call's id
(the payload's ``tool_use_id``) and its ``exit_code``, as recorded from the real client;
the call's ``function_call_output`` is written only after the hook. So only the file's
last ``TAIL_BYTES`` are read, newest line first, and only from a regular file opened
without blocking (``fsutil.open_payload_file``: a FIFO there would hang the hook). Anything
unexpected (no file, no such record, a record cut by the bound) is no exit code, and the
hook says nothing.
"""

from __future__ import annotations

import json

from lessons_core.fsutil import read_payload_tail

TAIL_BYTES = 256 * 1024
_KIND = b'"CommandExecution"'


def exit_code(transcript: object, call_id: object) -> int | None:
    """The exit code Codex recorded for shell call ``call_id`` in ``transcript``, or None."""
    if not isinstance(transcript, str) or not isinstance(call_id, str) or not call_id:
        return None
    wanted = json.dumps(call_id, ensure_ascii=False).encode()
    tail, whole = read_payload_tail(transcript, TAIL_BYTES)
    lines = tail.split(b"\n")
    if not whole:
        del lines[0]  # a line the bound cuts is not read
    try:
        for line in reversed(lines):
            if _KIND in line and wanted in line:
                return _code_of(line, call_id)
    except ValueError:
        return None
    return None


def _code_of(line: bytes, call_id: str) -> int | None:
    record = json.loads(line)
    payload = record.get("payload") if isinstance(record, dict) else None
    if not isinstance(payload, dict) or payload.get("type") != "item_completed":
        return None
    item = payload.get("item")
    if not isinstance(item, dict):
        return None
    if item.get("type") != "CommandExecution" or item.get("id") != call_id:
        return None
    code = item.get("exit_code")
    return code if isinstance(code, int) and not isinstance(code, bool) else None
