"""Opt-in local telemetry: an append-only JSONL log of recalls and of failures after them.

Off unless ``.lessons/config.json`` says ``"telemetry": true`` (never an environment
variable: a hook started by an editor does not see the user's shell). Nothing leaves the
machine. The log lives in ``.lessons/local/`` and is bounded: when the current file passes
half of ``telemetry_max_bytes`` it becomes ``telemetry.1.jsonl`` (replacing the previous
one), so both together stay within the limit. Keys pass through ``mask_thoroughly`` first.

The hook calls ``record_recall`` and ``record_failure`` on its hot path, so this module
imports only orjson and the standard library, and never raises on a write it cannot do:
telemetry must not cost the agent a recall. The record schema is in docs/telemetry.md.
"""

from __future__ import annotations

import hashlib
import os
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import orjson

from lessons_core.authoring.secrets import mask_thoroughly
from lessons_core.errors import LessonsError
from lessons_core.fsutil import NotRegularFile, locked, open_regular, read_regular
from lessons_core.store.config import Config
from lessons_core.store.layout import TELEMETRY_LOCK, TELEMETRY_LOG, TELEMETRY_ROTATED, Layout

SCHEMA_VERSION = 1
MAX_KEY_CHARS = 200
MAX_CANDIDATES = 50
# A failure is tied to deliveries found in this much of the log's end (about 300 records).
LOOKBACK_BYTES = 64 * 1024
PROMPT_KEY = "prompt"
# The event of a query made through ``lessons mcp`` (its ``lessons_query`` tool): a recall
# the agent asked for, not a tool call a hook saw.
MCP_QUERY_EVENT = "mcp lessons_query"
# What a recall's key holds, so a replay can turn it back into the call it came from.
ABOUT_FILES, ABOUT_COMMAND, ABOUT_PROMPT = "files", "command", "prompt"


@dataclass(frozen=True)
class RecallRecord:
    """One recall: what matched, what was shown, and what it cost."""

    ts: float
    session: str
    event: str
    key: str
    candidates: tuple[str, ...]
    candidates_total: int
    delivered: tuple[str, ...]
    tokens: int
    about: str = ""  # ABOUT_FILES, ABOUT_COMMAND, ABOUT_PROMPT; "" when not logged
    action: str = ""  # the call's action identity (``feedback.failures``), if logged
    call: str = ""  # a digest of the whole call: a changed retry has another
    gate: bool = False  # the delivery refused the call
    recurrence: bool = False  # ... as a recurrence gate

    @property
    def silent(self) -> bool:
        return not self.delivered


@dataclass(frozen=True)
class FailureRecord:
    """A failed tool call on ``key`` after ``after`` were delivered for it in the session."""

    ts: float
    session: str
    event: str
    key: str
    after: tuple[str, ...]
    error_class: str = ""  # ``feedback.failures.error_class``, if logged
    action: str = ""


@dataclass
class TelemetryLog:
    """Everything readable in the log, oldest first; ``skipped`` counts unreadable lines."""

    recalls: list[RecallRecord] = field(default_factory=list)
    failures: list[FailureRecord] = field(default_factory=list)
    skipped: int = 0


def log_path(layout: Layout) -> Path:
    return Path(layout.local(TELEMETRY_LOG))


def rotated_path(layout: Layout) -> Path:
    return Path(layout.local(TELEMETRY_ROTATED))


def session_tag(session_id: str) -> str:
    """A short stable tag for a session id: enough to group records, nothing more."""
    if not session_id:
        return ""
    return hashlib.sha256(session_id.encode("utf-8", "surrogatepass")).hexdigest()[:12]


def clean_key(key: str) -> str:
    """What is logged for a context key: secrets masked, one line, bounded length."""
    return mask_thoroughly(" ".join(key.split()))[:MAX_KEY_CHARS]


def record_recall(
    layout: Layout,
    config: Config,
    *,
    event: str,
    key: str,
    candidates: Sequence[str],
    delivered: Sequence[str],
    tokens: int,
    session: str = "",
    about: str = "",
    action: str = "",
    call: str = "",
    gate: bool = False,
    recurrence: bool = False,
) -> bool:
    """Log one recall (silent when ``delivered`` is empty); False when off or not written.

    ``key`` is the repo-relative path for a file tool, the command for a shell tool, and
    ``PROMPT_KEY`` for a prompt (prompt text is never logged); ``about`` says which
    (``ABOUT_FILES``, ``ABOUT_COMMAND``, ``ABOUT_PROMPT``). ``candidates`` are the ids
    that matched before session suppression and the budget; ``delivered`` those shown.
    ``action`` is the call's identity, ``call`` a digest of the whole call, ``gate``
    whether the delivery refused it (``recurrence``: as a recurrence gate); these tell
    what came of the delivery (``telemetry.effect``).
    """
    if not config.telemetry:
        return False
    record = _header("recall", event, session_tag(session), clean_key(key))
    record.update(
        candidates=list(candidates[:MAX_CANDIDATES]),
        candidates_total=len(candidates),
        delivered=list(delivered),
        tokens=max(0, int(tokens)),
        silent=not delivered,
    )
    if about:
        record["about"] = about
    if action:
        record.update(action=clean_key(action), call=call)
    if gate:
        record["gate"] = True
    if recurrence:
        record["recurrence"] = True
    return _append(layout, config, record)


def record_failure(
    layout: Layout,
    config: Config,
    *,
    event: str,
    key: str,
    session: str = "",
    after: Sequence[str] | None = None,
    error_class: str = "",
    action: str = "",
) -> bool:
    """Log a failed tool call on ``key``, with the lessons delivered for it in this
    session (``after``; by default read from the recalls at the end of the log with the
    same session and key), its error class and its action's identity.

    A failure without an ``action`` is logged only when it follows a delivery. Returns
    True when a record was written.
    """
    if not config.telemetry:
        return False
    tag, cleaned = session_tag(session), clean_key(key)
    if after is None:
        try:
            after = delivered_before(layout, tag, cleaned)
        except OSError:
            return False
    if not after and not action:
        return False
    record = _header("failure", event, tag, cleaned)
    record["after"] = list(dict.fromkeys(after))
    if action:
        record.update(action=clean_key(action), error_class=clean_key(error_class))
    return _append(layout, config, record)


def delivered_before(layout: Layout, session: str, key: str) -> list[str]:
    """Ids delivered for ``key`` in ``session`` (a tag) by the recalls at the log's end."""
    found: dict[str, None] = {}
    for record in _records(_tail(layout, LOOKBACK_BYTES)):
        if (
            record.get("kind") == "recall"
            and record.get("session") == session
            and record.get("key") == key
        ):
            found.update(
                dict.fromkeys(i for i in record.get("delivered", ()) if isinstance(i, str))
            )
    return list(found)


def read_log(layout: Layout) -> TelemetryLog:
    """Parse the rotated log, then the current one; unreadable lines are counted, not fatal."""
    log = TelemetryLog()
    for path in (rotated_path(layout), log_path(layout)):
        try:
            data = read_regular(path)
        except (FileNotFoundError, NotRegularFile):  # a link or a FIFO is not the log
            continue
        for line in data.splitlines():
            if not line.strip():
                continue
            record = _parse(line)
            if isinstance(record, RecallRecord):
                log.recalls.append(record)
            elif isinstance(record, FailureRecord):
                log.failures.append(record)
            else:
                log.skipped += 1
    log.recalls.sort(key=lambda r: r.ts)
    log.failures.sort(key=lambda r: r.ts)
    return log


def _header(kind: str, event: str, session: str, key: str) -> dict[str, Any]:
    return {
        "v": SCHEMA_VERSION,
        "kind": kind,
        "ts": round(time.time(), 3),
        "session": session,
        "event": event,
        "key": key,
    }


def _append(layout: Layout, config: Config, record: dict[str, Any]) -> bool:
    line = orjson.dumps(record) + b"\n"
    path = log_path(layout)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        # One write on an O_APPEND descriptor: concurrent hooks never interleave lines.
        # O_NOFOLLOW: a log that is a symbolic link (a repo can commit one) is not written
        # through to whatever it points at.
        fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_NOFOLLOW, 0o644)
        try:
            os.write(fd, line)
            size = os.fstat(fd).st_size
        finally:
            os.close(fd)
        if size > config.telemetry_max_bytes // 2:
            _rotate(layout, config.telemetry_max_bytes // 2)
    except (OSError, LessonsError):  # a full disk, a lock held too long: skip the record
        return False
    return True


def _rotate(layout: Layout, limit: int) -> None:
    """Move the full log aside; the lock makes sure only one hook does it."""
    path = log_path(layout)
    with locked(layout.local(TELEMETRY_LOCK)):
        try:
            if path.stat().st_size <= limit:
                return  # another process rotated it first
        except FileNotFoundError:
            return
        os.replace(path, rotated_path(layout))


def _tail(layout: Layout, size: int) -> Iterator[bytes]:
    """Complete lines from the last ``size`` bytes of the log (reaching into the rotated one)."""
    chunks: list[bytes] = []
    wanted = size
    for path in (log_path(layout), rotated_path(layout)):
        if wanted <= 0:
            break
        try:
            with open_regular(path) as handle:  # never a link or a FIFO
                end = handle.seek(0, os.SEEK_END)
                start = max(0, end - wanted)
                handle.seek(start)
                data = handle.read()
        except FileNotFoundError:
            continue
        if start > 0:
            data = data.split(b"\n", 1)[1] if b"\n" in data else b""
        chunks.insert(0, data)
        wanted -= len(data)
    for chunk in chunks:
        yield from chunk.splitlines()


def _records(lines: Iterator[bytes]) -> Iterator[dict[str, Any]]:
    for line in lines:
        try:
            record = orjson.loads(line)
        except orjson.JSONDecodeError:
            continue
        if isinstance(record, dict):
            yield record


def _parse(line: bytes) -> RecallRecord | FailureRecord | None:
    try:
        data = orjson.loads(line)
        if not isinstance(data, dict):
            return None
        common: dict[str, Any] = {
            "ts": float(data["ts"]),
            "session": str(data.get("session", "")),
            "event": str(data["event"]),
            "key": str(data["key"]),
        }
        if data.get("kind") == "recall":
            return RecallRecord(
                **common,
                candidates=_ids(data.get("candidates")),
                candidates_total=int(data.get("candidates_total", 0)),
                delivered=_ids(data.get("delivered")),
                tokens=int(data.get("tokens", 0)),
                about=str(data.get("about", "")),
                action=str(data.get("action", "")),
                call=str(data.get("call", "")),
                gate=data.get("gate") is True,
                recurrence=data.get("recurrence") is True,
            )
        if data.get("kind") == "failure":
            return FailureRecord(
                **common,
                after=_ids(data.get("after")),
                error_class=str(data.get("error_class", "")),
                action=str(data.get("action", "")),
            )
    except (orjson.JSONDecodeError, KeyError, TypeError, ValueError):
        return None
    return None


def _ids(value: Any) -> tuple[str, ...]:
    if not isinstance(value, list):
        raise TypeError("not a list of ids")
    return tuple(item for item in value if isinstance(item, str))
