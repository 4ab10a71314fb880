"""Per-session memory of which lessons were shown, so each is shown once per session, with
how many of them came through a broad trigger and how many tokens the shown blocks took
(recall allows a session only so much of either; both start again at compaction).

The same file keeps digests of the calls a gate refused, which no reset forgets (a refusal
promises the call runs when made again), and, for harnesses that announce compaction only
through their transcript, a transcript offset: how far that transcript was already looked at. It
also keeps the session's failure history (``session.failure_history``: per action, by a
digest of its identity, the error classes seen and how often, the last outcome, what
became of a recurrence), which no reset forgets either.

One small file per session (and per subagent) under ``.lessons/local/sessions/``, held in
a ``SessionState``. A hook call reads it once (``open_session``) and changes it at most
once, under the session's lock (``Session.claim``), so that hooks fired in parallel for
one session never both show, or both lose, the same lesson. Reads need no lock because
writes are atomic renames; the change under the lock reads the file again only when a
parallel hook wrote it since (``Session.unchanged``).
"""

from __future__ import annotations

import json
import os
import time
from typing import TYPE_CHECKING, BinaryIO

from lessons_core.errors import LessonsError
from lessons_core.fsutil import atomic_write, locked, note, open_regular, unlink_if_there
from lessons_core.session import failure_history as history
from lessons_core.session.action import digest
from lessons_core.session.failure_history import parse
from lessons_core.session.failure_history import record_success as recorded
from lessons_core.store.layout import SESSIONS

if TYPE_CHECKING:
    from collections.abc import Callable, Sequence

    from lessons_core.session.action import ActionId
    from lessons_core.session.failure_history import History
    from lessons_core.store.layout import Layout

STALE_AFTER_SECONDS = 14 * 24 * 3600


def _folder(layout: Layout) -> str:
    return layout.local(SESSIONS)


def _path(layout: Layout, key: str) -> str:
    return os.path.join(_folder(layout), f"{digest(key, 24)}.json")


def _lock(path: str) -> str:
    return path[: -len(".json")] + ".lock"


def _read(path: str) -> object:
    """The parsed session file (``ValueError`` or ``OSError`` when there is none, or it
    is a link or a special file: never followed, never waited on)."""
    with open_regular(path) as handle:
        return json.loads(handle.read())


# Refused calls remembered per session: parallel tool calls can be refused in turn before
# either is made again.
REFUSALS_KEPT = 16
# Failure nudges held for a later hook (``SessionState.held``), and ids of failed calls
# remembered (``SessionState.failed_calls``): a few recent ones are what matter.
HELD_KEPT = 3
FAILED_CALLS_KEPT = 8
# Rules reads left for the edit of their file (``SessionState.read``).
READ_KEPT = 256


class SessionState:
    """What one session file holds, each field read leniently (a bad value reads as its
    default, as a missing one does).

    To add a field: a slot named as its key in the file, its reading in ``__init__``, its
    writing in ``to_dict``, and its clearing in ``forget_shown`` if a reset forgets it.
    Keys this version does not know are kept as read (``rest``) and written back, so a file
    written by a newer version loses nothing when an older one claims a rule in it.
    """

    __slots__ = (
        "broad",
        "due",
        "evidence",
        "failed_calls",
        "failures",
        "held",
        "noted",
        "read",
        "refusals",
        "rest",
        "shown",
        "tokens",
        "transcript_offset",
    )

    def __init__(self, data: dict[str, object] | None = None) -> None:
        data = data or {}
        ids = data.get("shown")
        # Ids shown in this session, how many of them a broad trigger brought, and the
        # tokens of what was shown (what recall allows a session until compaction).
        self.shown: frozenset[str] = (
            frozenset(i for i in ids if isinstance(i, str))
            if isinstance(ids, list)
            else frozenset()
        )
        self.broad: int = _count(data.get("broad"))
        self.tokens: int = _count(data.get("tokens"))
        # Digests of the calls a gate refused (``ToolAction.refusal_key``), oldest first;
        # no reset forgets them. Kept under "gates" in the file.
        gates = data.get("gates")
        self.refusals: list[str] = (
            [g for g in gates if isinstance(g, str)] if isinstance(gates, list) else []
        )
        # How far the harness's transcript was looked at for a rewrite (None: not yet),
        # in bytes; kept under "mark" in the file.
        value = data.get("mark")
        self.transcript_offset: int | None = value if type(value) is int and value >= 0 else None
        # What failed in this session, per action (``session.failure_history``); no
        # reset forgets it: the failures happened whatever the model still holds.
        self.failures: History = _failures(data.get("failures"))
        # What the session showed a lesson could keep, for the stop-time request
        # (``session.evidence`` reads each of its keys leniently); no reset
        # forgets it either.
        evidence = data.get("evidence")
        self.evidence: dict[str, object] = evidence if isinstance(evidence, dict) else {}
        # The always-on lessons are due: the history was compacted and no session start
        # followed to bring them back (``deliver.with_due``).
        self.due: bool = data.get("due") is True
        # The session note reached the model since the last reset, so the blocks after it
        # leave out the header it says (``deliver.block_frame``); a harness that brought no
        # note (no session start fired, or it carried no context) gets the header in each.
        self.noted: bool = data.get("noted") is True
        # Failure nudges waiting for a hook that can add context, for a harness whose
        # failure event cannot (Cursor's ``postToolUseFailure``): the latest per action,
        # at most ``HELD_KEPT``, oldest first.
        held = data.get("held")
        self.held: list[str] = (
            [h for h in held if isinstance(h, str)] if isinstance(held, list) else []
        )
        # The harness's ids of the failed calls counted last, so a call it reports twice
        # (as a failure and as a result with an exit code) is counted once.
        calls = data.get("failed_calls")
        self.failed_calls: list[str] = (
            [c for c in calls if isinstance(c, str)] if isinstance(calls, list) else []
        )
        # What reads since the last reset left for later (caps, broad ones), as "digest
        # of the file read:lesson id": an edit of that file brings those rules as
        # context, never a refusal (``deliver.before_action``); at most ``READ_KEPT``.
        read = data.get("read")
        self.read: list[str] = (
            [r for r in read if isinstance(r, str)] if isinstance(read, list) else []
        )
        self.rest: dict[str, object] = {k: v for k, v in data.items() if k not in _KNOWN}

    def forget_shown(self) -> None:
        """What a reset forgets: the rules shown and what they cost, and the note."""
        self.shown, self.broad, self.tokens = frozenset(), 0, 0
        self.noted = False
        self.read = []  # what those reads brought is forgotten with them

    def to_dict(self) -> dict[str, object]:
        data: dict[str, object] = {
            "shown": sorted(self.shown),
            "broad": self.broad,
            "tokens": self.tokens,
        }
        if self.refusals:
            data["gates"] = self.refusals
        if self.transcript_offset is not None:
            data["mark"] = self.transcript_offset
        if self.failures:
            data["failures"] = self.failures
        if self.evidence:
            data["evidence"] = self.evidence
        if self.due:
            data["due"] = True
        if self.noted:
            data["noted"] = True
        if self.held:
            data["held"] = self.held
        if self.failed_calls:
            data["failed_calls"] = self.failed_calls
        if self.read:
            data["read"] = self.read
        data.update(self.rest)
        data["updated"] = int(time.time())
        return data


# The file's keys: the slots, but for two kept under older names.
_KNOWN = frozenset({*SessionState.__slots__, "updated", "gates", "mark"}) - {
    "rest",
    "refusals",
    "transcript_offset",
}


def _failures(value: object) -> History:
    """The failure history as read."""
    if not value:
        return {}

    return parse(value)


class Session:
    """A session's state as one hook call read it: read once, then changed under the lock
    (``claim``) without reading it again unless a parallel hook wrote it in between.

    The file stays open until ``close`` (a ``with`` block): while it is open its inode
    cannot be reused, and every write replaces the file (an atomic rename), so the path
    still naming that inode proves nothing was written since it was read.
    """

    __slots__ = ("_file", "_staged", "path", "recorded", "state")

    def __init__(self, path: str) -> None:
        self.path = path
        self._staged: list[Callable[[SessionState], bool]] = []
        self._file: BinaryIO | None
        # False once a change could not be written (``_update``): the state holds it for
        # this call only, so nothing may depend on a later call seeing it (a gate's
        # refusal, above all: its retry would be refused again).
        self.recorded = True
        try:
            self._file = open_regular(path)  # kept open until close
        except OSError:
            self._file, self.state = None, SessionState()
            return
        try:
            data = json.loads(self._file.read())
        except (OSError, ValueError):
            data = {}
        self.state = SessionState(data if isinstance(data, dict) else {})

    def __enter__(self) -> Session:
        return self

    def __exit__(self, *exc: object) -> None:
        if self._staged:  # staged changes no claim took along: written now, once
            self.update(lambda state: False)
        self.close()

    def close(self) -> None:
        if self._file is not None:
            self._file.close()
            self._file = None

    def unchanged(self) -> bool:
        """Whether the file is still the one read (or still absent); call under the lock."""
        try:
            now = os.stat(self.path)
        except FileNotFoundError:
            return self._file is None
        if self._file is None:
            return False
        then = os.fstat(self._file.fileno())
        return (now.st_ino, now.st_dev) == (then.st_ino, then.st_dev)

    def claim(
        self,
        ids: list[str],
        broad: frozenset[str] = frozenset(),
        tokens: int = 0,
        refusal: str = "",
        forget_refusal: str = "",
    ) -> list[str]:
        """``claim`` in this session, also forgetting the refusal ``forget_refusal`` (of
        a call made again and let through), all in one write under the lock."""
        fresh: list[str] = []

        def change(state: SessionState) -> bool:
            forgot = forget_refusal in state.refusals
            if forgot:
                state.refusals = [g for g in state.refusals if g != forget_refusal]
            fresh.extend(i for i in dict.fromkeys(ids) if i not in state.shown)
            if fresh:
                state.broad += sum(1 for i in fresh if i in broad)
                state.tokens += max(tokens, 0)
                if refusal and refusal not in state.refusals:
                    state.refusals = [*state.refusals, refusal][-REFUSALS_KEPT:]
                state.shown = state.shown.union(fresh)
            return forgot or bool(fresh)

        self.update(change)
        return fresh

    def move_transcript_offset(
        self, seen: int | None, to: int | None, forget: bool = False
    ) -> bool:
        """Set the transcript offset to ``to`` if it is still ``seen``, also forgetting
        what was shown (``reset``) when ``forget``; False when a parallel hook moved it
        first."""
        moved = False

        def change(state: SessionState) -> bool:
            nonlocal moved
            if state.transcript_offset != seen:
                return False
            if forget:  # the history was rewritten: a compaction no event announced
                state.forget_shown()
                state.due = True
            state.transcript_offset, moved = to, True
            return True

        self.update(change)
        return moved

    def answer_recurrence(self, failure_key: str, ids: list[str], refusal: str) -> bool:
        """Show ``ids`` again for the due recurrence of the action ``failure_key``
        names, refusing the call of ``refusal``, in one write; False when a parallel hook
        answered it first."""
        answered = False

        def change(state: SessionState) -> bool:
            nonlocal answered
            if history.due_entry(state.failures, failure_key) is None:
                return False
            history.set_recurrence(state.failures, failure_key, history.GATED)
            state.shown = state.shown.union(ids)
            if refusal and refusal not in state.refusals:
                state.refusals = [*state.refusals, refusal][-REFUSALS_KEPT:]
            answered = True
            return True

        self.update(change)
        return answered

    def take_pending(self, noted: bool = False) -> tuple[bool, list[str]]:
        """Clear ``due`` and ``held``; what each was, for the one hook that cleared them
        (parallel hooks race). ``noted``: that hook brings the session note with what was
        due."""
        taken: tuple[bool, list[str]] = (False, [])

        def change(state: SessionState) -> bool:
            nonlocal taken
            taken = (state.due, state.held)
            if state.due and noted:
                state.noted = True
            state.due, state.held = False, []
            return taken[0] or bool(taken[1])

        self.update(change)
        return taken

    def note_read(self, files: Sequence[str], left: Sequence[str]) -> None:
        """Remember that the read of ``files`` left the lessons ``left`` for later, with
        this call's write."""
        known = self.state.read
        keys = [k for k in (_read_key(f, i) for f in files for i in left) if k not in known]
        if not keys:  # a read made again: nothing to write, no lock to take
            return

        def change(state: SessionState) -> bool:
            new = [k for k in keys if k not in state.read]
            state.read = [*state.read, *new][-READ_KEPT:]
            return bool(new)

        self.stage(change)

    def left_by_read(self, path: str, lesson_id: str) -> bool:
        """Whether a read of ``path`` in this session left ``lesson_id`` for later
        (``note_read``)."""
        return _read_key(path, lesson_id) in self.state.read

    def stage(self, change: Callable[[SessionState], bool]) -> None:
        """Apply ``change`` with the next write of this call (a claim's, or the one at the
        end of the ``with`` block), so a call still writes the session at most once."""
        self._staged.append(change)

    def update(self, change: Callable[[SessionState], bool]) -> None:
        """Apply ``change`` (after what was staged) to the session's current state under
        its lock, and write the file if any of them says it changed something."""
        staged, self._staged = self._staged, []

        def changes(state: SessionState) -> bool:
            changed = False
            for each in staged:
                changed = each(state) or changed
            return change(state) or changed

        self.state, recorded = _update(self.path, changes, self)
        self.recorded = self.recorded and recorded
        self.close()  # what was read is no longer the file: a next update reads it again


def _read_key(path: str, lesson_id: str) -> str:
    return f"{digest(path)}:{lesson_id}"


def open_session(layout: Layout, key: str) -> Session:
    """The session's state, read once; use in a ``with`` block."""
    return Session(_path(layout, key))


def load(layout: Layout, key: str) -> SessionState:
    """The session's state (empty for a new or unreadable session file)."""
    return _load(_path(layout, key))


def _load(path: str) -> SessionState:
    try:
        data = _read(path)
    except (OSError, ValueError):
        return SessionState()
    return SessionState(data if isinstance(data, dict) else {})


def _update(
    path: str, change: Callable[[SessionState], bool], known: Session | None = None
) -> tuple[SessionState, bool]:
    """The one way a session file is changed: under its lock, from its current state
    (``known``'s, when the file is still the one it read), written only if ``change``
    says it changed something. Returns the state as it is now, and whether the change
    was written.

    A session that cannot be written (a read-only or full disk, a lock held too long by
    another process, a link or a plain file where ``local/sessions`` or a lock belongs)
    never stops a hook: the change is made in memory only, for this call, and noted for
    the hook's log (``fsutil.note``).
    """
    state: SessionState | None = None
    try:
        with locked(_lock(path)):
            state = known.state if known is not None and known.unchanged() else _load(path)
            if change(state):
                _write(path, state)
        return state, True
    except (OSError, LessonsError) as err:
        note(err)
        if state is None:  # the lock failed: change what was read (a write failing, too)
            state = known.state if known is not None else _load(path)
            change(state)
        return state, False


def claim(
    layout: Layout,
    key: str,
    ids: list[str],
    broad: frozenset[str] = frozenset(),
    tokens: int = 0,
    refusal: str = "",
) -> list[str]:
    """Record ``ids`` as shown; return those not shown before, in the given order.

    Those of them in ``broad`` (brought by a broad trigger) are counted, and ``tokens``
    (what showing them costs) is added, when any of ``ids`` is new; so is ``refusal``, the
    digest of the call they refuse, if they do.
    """
    with open_session(layout, key) as session:
        return session.claim(ids, broad, tokens, refusal)


def record_success(layout: Layout, key: str, action: ActionId) -> None:
    """``action`` ran fine: its last outcome in the failure history, if it failed before
    (``failure_history.record_success``)."""

    _update(_path(layout, key), lambda state: recorded(state.failures, action.failure_key))


def reset(layout: Layout, key: str, due: bool = False, noted: bool = False) -> None:
    """Forget what was shown (compaction, ``/clear``, a new session); ``due``: the
    always-on lessons are due at the next hook that can bring them (a compaction), else
    they were just brought (a session start); ``noted``: the session note comes with
    them.

    The refused calls are kept: a call refused just before a reset and made again right
    after it must run, as its refusal said (``delivery.before_action``).
    """

    def change(state: SessionState) -> bool:
        state.forget_shown()
        state.due, state.noted = due, noted
        return True

    _update(_path(layout, key), change)


def move_transcript_offset(
    layout: Layout, key: str, seen: int | None, to: int | None, forget: bool = False
) -> bool:
    """``Session.move_transcript_offset`` for a session not read yet."""
    with open_session(layout, key) as session:
        return session.move_transcript_offset(seen, to, forget)


def forget_lesson(layout: Layout, lesson_id: str) -> None:
    """Remove a deleted lesson's id from every session file."""

    def change(state: SessionState) -> bool:
        if lesson_id not in state.shown:
            return False
        state.shown = state.shown - {lesson_id}
        return True

    for entry in _session_files(layout):
        if os.path.exists(entry):  # one pruned meanwhile stays gone
            _update(entry, change)


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


def _write(path: str, state: SessionState) -> None:
    # Not durable: a session file lost to a power cut reads as empty (every rule may be
    # shown once more), and an fsync would slow every delivering hook.
    atomic_write(
        path,
        json.dumps(state.to_dict(), separators=(",", ":"), allow_nan=False).encode(),
        durable=False,
    )
