"""Per-session memory of which lessons were shown, so each is shown once per session, with
how many of them came through a broad trigger and how many tokens the shown blocks took
(recall allows a session only so much of either; both start again at compaction).

The same file keeps digests of the calls a gate refused, which no reset forgets (a refusal
promises the call runs when made again), and, for harnesses that announce compaction only
through their transcript, a mark: how far that transcript was already looked at.

One small file per session (and per subagent) under ``.lessons/local/sessions/``. Reads
need no lock because writes are atomic renames; ``claim`` takes the session's lock so that
hooks fired in parallel for one session never both show, or both lose, the same lesson.

The hook reads these files on every call, so this module keeps its imports light: JSON
through ``hookjson``, paths as strings (no pathlib, no contextlib).
"""

from __future__ import annotations

import os
import time

from lessons_core import hookjson
from lessons_core.feedback import history
from lessons_core.fsutil import atomic_write, locked, unlink_if_there
from lessons_core.records import NamedTuple
from lessons_core.store.layout import SESSIONS

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable

    from lessons_core.store.layout import Layout

# hashlib's own C SHA-256, without loading OpenSSL's bindings (~5 ms on every hook call).
try:
    from _sha2 import sha256  # type: ignore[import-not-found, unused-ignore]  # 3.12+
except ImportError:
    try:
        from _sha256 import sha256  # type: ignore[import-not-found, no-redef, unused-ignore]
    except ImportError:
        from hashlib import sha256  # type: ignore[assignment, unused-ignore]

STALE_AFTER_SECONDS = 14 * 24 * 3600


def session_key(session_id: str, agent_id: str | None = None) -> str:
    """A subagent keeps its own set, apart from its parent's."""
    return f"{session_id}\x1f{agent_id}" if agent_id else session_id


def _folder(layout: Layout) -> str:
    return layout.local(SESSIONS)


def _path(layout: Layout, key: str) -> str:
    digest = sha256(key.encode("utf-8", "surrogatepass")).hexdigest()[:24]
    return os.path.join(_folder(layout), f"{digest}.json")


def _lock(path: str) -> str:
    return path[: -len(".json")] + ".lock"


def _read(path: str) -> object:
    """The parsed session file (``ValueError`` or ``OSError`` when there is none)."""
    with open(path, "rb") as handle:
        return hookjson.loads(handle.read())


def shown(layout: Layout, key: str) -> frozenset[str]:
    """Ids already shown in this session (empty for a new or unreadable session file)."""
    return state(layout, key)[0]


def state(layout: Layout, key: str) -> tuple[frozenset[str], int, int]:
    """Ids already shown in this session, how many of them a broad trigger brought, and
    the tokens of what was shown."""
    return _state(_load(_path(layout, key)))


# Refused calls remembered per session: parallel tool calls can be refused in turn before
# either is made again.
GATES_KEPT = 16


def was_refused(layout: Layout, key: str, mark: str) -> bool:
    """Whether the call ``mark`` names (``gate_mark``) was refused in this session."""
    return mark in _gates(_load(_path(layout, key)))


def _gates(data: dict[str, object]) -> list[str]:
    gates = data.get("gates")
    return [g for g in gates if isinstance(g, str)] if isinstance(gates, list) else []


def forget_refusal(layout: Layout, key: str, mark: str) -> None:
    """Drop the refused call ``mark`` names: it was made again and let through."""
    path = _path(layout, key)
    with locked(_lock(path)):
        data = _load(path)
        gates = _gates(data)
        if mark in gates:
            ids, broad, tokens = _state(data)
            kept = [g for g in gates if g != mark]
            _write(path, sorted(ids), broad, tokens, kept, _mark(data), keep=data)


def gate_mark(action: str) -> str:
    """A short digest naming a refused call: the file keeps no command text (it could
    hold a secret), only enough to know the same call when it is made again."""
    digest: str = sha256(action.encode("utf-8", "surrogatepass")).hexdigest()
    return digest[:16]


def _load(path: str) -> dict[str, object]:
    try:
        data = _read(path)
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def _state(data: dict[str, object]) -> tuple[frozenset[str], int, int]:
    ids = data.get("shown")
    seen = frozenset(i for i in ids if isinstance(i, str)) if isinstance(ids, list) else frozenset()
    return seen, _count(data.get("broad")), _count(data.get("tokens"))


def claim(
    layout: Layout,
    key: str,
    ids: list[str],
    broad: frozenset[str] = frozenset(),
    tokens: int = 0,
    gate: str = "",
) -> list[str]:
    """Record ``ids`` as shown; return those not shown before, in the given order.

    Those of them in ``broad`` (brought by a broad trigger) are counted, and ``tokens``
    (what showing them costs) is added, when any of ``ids`` is new; so is ``gate``, the
    ``gate_mark`` of the call they refuse, if they do.
    """
    path = _path(layout, key)
    with locked(_lock(path)):
        data = _load(path)
        before, count, spent = _state(data)
        fresh = [i for i in dict.fromkeys(ids) if i not in before]
        if fresh:
            count += sum(1 for i in fresh if i in broad)
            gates = _gates(data)
            if gate and gate not in gates:
                gates = [*gates, gate][-GATES_KEPT:]
            shown = sorted(before.union(fresh))
            _write(path, shown, count, spent + max(tokens, 0), gates, _mark(data), keep=data)
    return fresh


FAILURES = "failures"


class Tally(NamedTuple):
    """A failure as the session's failure history counted it."""

    error_class: str
    times: int
    # It just reached the count of a recurrence, which was not answered before.
    new_recurrence: bool


def failures(layout: Layout, key: str) -> history.History:
    """The session's failure history (``feedback.history``)."""
    return history.parse(_load(_path(layout, key)).get(FAILURES))


def _change_failures(
    layout: Layout, key: str, change: Callable[[history.History], object]
) -> object:
    """Apply ``change`` to the session's failure history under its lock, and write it."""
    path = _path(layout, key)
    with locked(_lock(path)):
        data = _load(path)
        found = history.parse(data.get(FAILURES))
        result = change(found)
        data[FAILURES] = found
        ids, broad, tokens = _state(data)
        _write(path, sorted(ids), broad, tokens, _gates(data), _mark(data), keep=data)
    return result


def count_failure(layout: Layout, key: str, mark: str, error_class: str) -> Tally:
    """Count a failure of the action ``mark`` names with ``error_class``."""

    def change(found: history.History) -> Tally:
        was = found.get(mark, {}).get("recurrence")
        cls, count = history.record_failure(found, mark, error_class)
        new = was is None and history.recurring(found[mark]) is not None
        return Tally(cls, count, new)

    counted: Tally = _change_failures(layout, key, change)  # type: ignore[assignment]
    return counted


def record_success(layout: Layout, key: str, mark: str) -> None:
    """The action ``mark`` names ran fine (``history.record_success``)."""
    if mark in failures(layout, key):
        _change_failures(layout, key, lambda found: history.record_success(found, mark))


def set_recurrence(layout: Layout, key: str, mark: str, state: str) -> None:
    """Record what became of the recurrence of ``mark`` (``history.DUE``, ...)."""
    _change_failures(layout, key, lambda found: history.set_recurrence(found, mark, state))


def answer_recurrence(layout: Layout, key: str, mark: str, ids: list[str], gate: str) -> bool:
    """Show ``ids`` again for the due recurrence of ``mark``, refusing the call ``gate``
    names; False when a parallel hook answered it first."""
    path = _path(layout, key)
    with locked(_lock(path)):
        data = _load(path)
        found = history.parse(data.get(FAILURES))
        if history.due_entry(found, mark) is None:
            return False
        history.set_recurrence(found, mark, history.GATED)
        data[FAILURES] = found
        shown, broad, tokens = _state(data)
        gates = _gates(data)
        if gate and gate not in gates:
            gates = [*gates, gate][-GATES_KEPT:]
        _write(path, sorted(shown.union(ids)), broad, tokens, gates, _mark(data), keep=data)
    return True


def reset(layout: Layout, key: str) -> None:
    """Forget what was shown (compaction, ``/clear``, a new session).

    The refused calls are kept: a call refused just before a reset and made again right
    after it must run, as its refusal said (``delivery.before_action``).
    """
    path = _path(layout, key)
    with locked(_lock(path)):
        data = _load(path)
        _write(path, [], gates=_gates(data), mark=_mark(data), keep=data)


def mark(layout: Layout, key: str) -> int | None:
    """How far the harness's transcript was looked at for a rewrite (None: not yet)."""
    return _mark(_load(_path(layout, key)))


def move_mark(
    layout: Layout, key: str, seen: int | None, to: int | None, forget: bool = False
) -> bool:
    """Set the mark to ``to`` if it is still ``seen``, also forgetting what was shown
    (``reset``) when ``forget``; False when a parallel hook moved it first."""
    path = _path(layout, key)
    with locked(_lock(path)):
        data = _load(path)
        if _mark(data) != seen:
            return False
        if forget:
            _write(path, [], gates=_gates(data), mark=to, keep=data)
        else:
            ids, broad, tokens = _state(data)
            _write(path, sorted(ids), broad, tokens, _gates(data), to, keep=data)
    return True


def _mark(data: dict[str, object]) -> int | None:
    value = data.get("mark")
    return value if type(value) is int and value >= 0 else None


def forget_lesson(layout: Layout, lesson_id: str) -> None:
    """Remove a deleted lesson's id from every session file."""
    for entry in _session_files(layout):
        with locked(_lock(entry)):
            try:
                data = _read(entry)
            except (OSError, ValueError):
                continue
            if not isinstance(data, dict):
                continue
            ids = data.get("shown", [])
            if isinstance(ids, list) and lesson_id in ids:
                broad, tokens = _count(data.get("broad")), _count(data.get("tokens"))
                kept = [i for i in ids if i != lesson_id]
                _write(entry, kept, broad, tokens, _gates(data), _mark(data), keep=data)


def prune_stale(layout: Layout, now: float | None = None) -> int:
    """Delete session files untouched for two weeks; returns how many went."""
    cutoff = (now or time.time()) - STALE_AFTER_SECONDS
    removed = 0
    for entry in _session_files(layout):
        try:
            if os.stat(entry).st_mtime < cutoff:
                _remove(entry)
                removed += 1
        except OSError:
            continue
    return removed


def discard(layout: Layout, key: str) -> None:
    """Delete a session's file and lock: for a session that only existed to be measured."""
    try:
        _remove(_path(layout, key))
    except FileNotFoundError:
        return


def _session_files(layout: Layout) -> list[str]:
    folder = _folder(layout)
    try:
        names = os.listdir(folder)
    except (FileNotFoundError, NotADirectoryError):
        return []
    return [os.path.join(folder, name) for name in sorted(names) if name.endswith(".json")]


def _remove(entry: str) -> None:
    os.unlink(entry)
    unlink_if_there(_lock(entry))


def _count(value: object) -> int:
    """A count read from a session file: anything but a positive int is 0."""
    return value if type(value) is int and value > 0 else 0


def _write(
    path: str,
    ids: list[str],
    broad: int = 0,
    tokens: int = 0,
    gates: list[str] | None = None,
    mark: int | None = None,
    keep: dict[str, object] | None = None,
) -> None:
    """Write a session file; ``keep`` is the data read before, whose failure history
    (``FAILURES``) no write forgets, a reset included."""
    data: dict[str, object] = {"shown": ids, "broad": broad, "tokens": tokens}
    if gates:
        data["gates"] = gates
    if mark is not None:
        data["mark"] = mark
    if keep and keep.get(FAILURES):
        data[FAILURES] = keep[FAILURES]
    data["updated"] = int(time.time())
    # Not durable: a session file lost to a power cut reads as empty (every rule may be
    # shown once more), and the fsync would cost every delivering hook ~5 ms.
    atomic_write(path, hookjson.dumps(data, ascii_only=True).encode(), durable=False)
