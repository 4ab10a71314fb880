"""What a session showed that a lesson could keep, recorded by the hooks as it happens.

The stop-time capture request (``lessons_core.feedback.stop_capture``) reads it: the
corrections a person typed right after an action of the agent, each with the trigger of
that action; the actions that failed, with the identity the failure history counts them
under (``feedback.history`` keeps only its digest), so a fail-then-fix or a recurrence
there can be named; when the session began; whether the request was already made. An
action that failed and is made again is told to the failure history here, where the
pre-tool hook of the retry sees it.

Kept in its own small file per session beside the session's own (``sessions.file_of``),
written only when something changes: a new action, a prompt after one, a failure, the
request. It holds no command text beyond the words that name what ran (``pnpm
test:e2e``: a program and its sub-commands, never arguments, paths or values), and a
correction's sentence with secrets masked.

Runs in the hook on every tool call, so it imports only what those already loaded.
"""

from __future__ import annotations

import time

from lessons_core import hookjson
from lessons_core.delivery import sessions
from lessons_core.fsutil import atomic_write, locked
from lessons_core.records import NamedTuple

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable

    from lessons_core.store.layout import Layout

# A session keeps this many corrections (the request quotes the newest) and failed actions.
MAX_CORRECTIONS = 3
MAX_FAILED = 16
# An action as kept here: ``[FILE, path]`` or ``[COMMAND, words]``.
FILE = "file"
COMMAND = "command"
# A command word that looks like a token (long, with digits) is not kept: it may be one.
MAX_PLAIN_WORD = 40

Record = dict[str, object]


def evidence_key(key: str) -> str:
    """The evidence keeps its own file, so resets of the shown set leave it alone."""
    return f"{key}\x1fevidence"


def read(layout: Layout, key: str) -> Record:
    """The session's evidence record (empty when there is none or it cannot be read)."""
    try:
        with open(sessions.file_of(layout, evidence_key(key)), "rb") as handle:
            data = hookjson.loads(handle.read())
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def note_action(layout: Layout, key: str, files: tuple[str, ...], command: str | None) -> None:
    """Remember the action on ``files`` or running ``command`` as the session's latest (a
    prompt after it may correct it); one that failed before is being made again."""
    named = _named(files, command)
    if named is None:
        return
    data = read(layout, key)
    failed = _failed(data).get(" ".join(named))
    if failed is not None:
        sessions.record_retry(layout, key, failed["mark"])
    if data.get("action") == named:
        return  # the same file or command again: nothing to write
    _update(layout, key, lambda record: record.__setitem__("action", named))


def note_prompt(layout: Layout, key: str, prompt: str) -> None:
    """A prompt ends the window of the action before it; one that corrects the agent is
    kept, with that action's trigger."""
    action = read(layout, key).get("action")
    if not isinstance(action, list):
        return  # no action since the last prompt: a correction of nothing, or a new task
    from lessons_core.feedback.corrections import find_correction

    found = find_correction(prompt)

    def change(record: Record) -> None:
        record.pop("action", None)
        if found is None:
            return
        from lessons_core.authoring.secrets import mask_secrets

        kept = record.get("corrections")
        corrections = kept if isinstance(kept, list) else []
        entry = {"action": action, "quote": mask_secrets(found.excerpt), "cues": list(found.cues)}
        record["corrections"] = [*corrections, entry][-MAX_CORRECTIONS:]

    _update(layout, key, change)


def note_failure(
    layout: Layout, key: str, files: tuple[str, ...], command: str | None, identity: str
) -> None:
    """Remember that the action on ``files`` or running ``command`` failed, counted under
    ``identity`` (``feedback.failures.action_identity``)."""
    named = _named(files, command)
    if named is None:
        return
    name = " ".join(named)
    entry = {"mark": sessions.gate_mark(identity), "identity": identity}
    if _failed(read(layout, key)).get(name) == entry:
        return

    def change(record: Record) -> None:
        failed: dict[str, object] = {n: e for n, e in _failed(record).items() if n != name}
        failed[name] = entry
        record["failed"] = dict(list(failed.items())[-MAX_FAILED:])

    _update(layout, key, change)


class Failed(NamedTuple):
    """An action that failed in the session: its files or command words, and the digest
    and identity the failure history counts it under."""

    files: tuple[str, ...]
    command: str | None
    mark: str
    identity: str


def failed_actions(record: Record) -> list[Failed]:
    """Each action that failed in the session, oldest first."""
    found = []
    for name, entry in _failed(record).items():
        kind, _, value = name.partition(" ")
        files, command = ((value,), None) if kind == FILE else ((), value)
        found.append(Failed(files, command, entry["mark"], entry["identity"]))
    return found


def claim_request(layout: Layout, key: str) -> bool:
    """Mark the stop-time request made; False when it was made before (never twice)."""
    made: list[bool] = []

    def change(record: Record) -> None:
        if not record.get("asked"):
            record["asked"] = True
            made.append(True)

    _update(layout, key, change)
    return bool(made)


def _failed(record: Record) -> dict[str, dict[str, str]]:
    found = record.get("failed")
    if not isinstance(found, dict):
        return {}
    kept: dict[str, dict[str, str]] = {}
    for name, entry in found.items():
        if isinstance(entry, dict):
            mark, identity = entry.get("mark"), entry.get("identity")
            if isinstance(mark, str) and isinstance(identity, str):
                kept[name] = {"mark": mark, "identity": identity}
    return kept


def _update(layout: Layout, key: str, change: Callable[[Record], None]) -> None:
    """Apply ``change`` to the record under the session's lock and write it back."""
    path = sessions.file_of(layout, evidence_key(key))
    with locked(path[: -len(".json")] + ".lock"):
        data = read(layout, key)
        data.setdefault("since", time.time())  # a float: a lesson saved within the second counts
        change(data)
        data["updated"] = int(time.time())
        # Not durable, like the shown set: a lost file only forgets evidence.
        atomic_write(path, hookjson.dumps(data, ascii_only=True).encode(), durable=False)


def _named(files: tuple[str, ...], command: str | None) -> list[str] | None:
    """``[FILE, path]`` or ``[COMMAND, words]`` for an action, or None."""
    if files:
        return [FILE, files[0]]
    if command:
        from lessons_core.matching.command_words import command_words

        words = command_words(command)
        if words and all(_plain(word) for word in words):
            return [COMMAND, " ".join(words)]
    return None


def _plain(word: str) -> bool:
    """Not a token: short, or without digits."""
    return len(word) <= MAX_PLAIN_WORD and not (len(word) >= 16 and any(c.isdigit() for c in word))
