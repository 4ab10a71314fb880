"""What a session showed that a lesson could keep, recorded by the hooks as it happens.

The stop-time capture request (``lessons_core.feedback.stop_capture``) reads it: the
corrections a person typed right after an action of the agent, each with the trigger of
that action; the actions made again after a failure, and those that failed again with
no lesson about them, by the identity the failure history counts them under
(``feedback.history`` keeps only its digest); when the session began; whether the
request was already made. An action that failed and is made again is told to the failure
history here, where the pre-tool hook of the retry sees it.

Kept in the session's state (``SessionState.evidence``), read with the rest of it once
per hook call; a change is staged on the call's ``Session`` and written with its one
write. Actions are kept as text only as the words that name them: the latest action (a
file's repo-relative path, or the words ``matching.command_words`` says name a command:
``pnpm test:e2e``, an interpreter's script ``bash scripts/release.sh``, never an option or
a value with ``=``, nor a word that looks like a token), and the triggers
of the fixed and recurred ones, already checked for secrets by the failure hook. A
correction's sentence is kept with secrets masked.

Runs in the hook on every tool call, so it imports only what those already loaded.
"""

from __future__ import annotations

import time

from lessons_core.feedback import history

TYPE_CHECKING = False
if TYPE_CHECKING:
    from lessons_core.delivery.sessions import Session, SessionState

# A session keeps this many corrections (the request quotes the newest), and this many
# actions of each kind: fixed after a failure, recurred with no lesson about them.
MAX_CORRECTIONS = 3
MAX_FAILED = 16
FIXED = "fixed"
RECURRED = "recurred"
# An action as kept here: ``[FILE, path]`` or ``[COMMAND, words]``.
FILE = "file"
COMMAND = "command"
# A command word that looks like a token (long, with digits) is not kept: it may be one.
MAX_PLAIN_WORD = 40

Record = dict[str, object]


def note_action(session: Session, files: tuple[str, ...], command: str | None) -> None:
    """Remember the action on ``files`` or running ``command`` as the session's latest (a
    prompt after it may correct it). One whose last attempt failed is being made again:
    the failure history counts it as not failed (a failure hook counts this attempt over
    it if it fails too), and its trigger is kept as a fix's."""
    named = _named(files, command)
    if named is None:
        return
    fixed = _retried(session.state.failures, named)
    if session.state.evidence.get("action") == named and fixed is None:
        return  # the same file or command again: nothing to record

    def change(state: SessionState) -> bool:
        if fixed is not None:
            history.record_success(state.failures, fixed[0])
            _keep(state.evidence, FIXED, *fixed)
        _since(state.evidence)["action"] = named
        return True

    session.stage(change)


def _retried(failures: history.History, named: list[str]) -> tuple[str, str] | None:
    """The digest and identity of the action ``named`` if its last attempt failed."""
    if not failures:
        return None
    from lessons_core.delivery.sessions import gate_mark
    from lessons_core.matching.command_words import anchored

    kind, value = named
    identity = f"file {value}" if kind == FILE else f"cmd {anchored(value.split(' '))}"
    mark = gate_mark(identity)
    entry = failures.get(mark)
    return (mark, identity) if entry and entry.get("last") == history.FAILED else None


def note_prompt(session: Session, prompt: str) -> None:
    """A prompt ends the window of the action before it; one that corrects the agent is
    kept, with that action's trigger."""
    action = session.state.evidence.get("action")
    if not isinstance(action, list):
        return  # no action since the last prompt: a correction of nothing, or a new task
    from lessons_core.feedback.corrections import find_correction

    found = find_correction(prompt)
    entry: Record | None = None
    if found is not None:
        from lessons_core.authoring.secrets import mask_secrets

        entry = {"action": action, "quote": mask_secrets(found.excerpt), "cues": list(found.cues)}

    def change(state: SessionState) -> bool:
        record = state.evidence
        record.pop("action", None)
        if entry is not None:
            kept = record.get("corrections")
            corrections = kept if isinstance(kept, list) else []
            record["corrections"] = [*corrections, entry][-MAX_CORRECTIONS:]
        return True

    session.stage(change)


def keep_recurrence(record: Record, mark: str, identity: str) -> None:
    """Keep in the session's evidence ``record`` the trigger of an action that failed
    again with one kind of error and that no lesson covers (``feedback.recurrence``:
    ``UNCOVERED``), counted under ``mark``; called within the failure hook's one write."""
    _keep(_since(record), RECURRED, mark, identity)


def kept(record: Record, kind: str) -> dict[str, str]:
    """The actions of ``kind`` (``FIXED`` or ``RECURRED``): digest -> identity."""
    found = record.get(kind)
    if not isinstance(found, dict):
        return {}
    return {m: i for m, i in found.items() if isinstance(m, str) and isinstance(i, str)}


def _keep(record: Record, kind: str, mark: str, identity: str) -> None:
    actions = {m: i for m, i in kept(record, kind).items() if m != mark}
    actions[mark] = identity
    record[kind] = dict(list(actions.items())[-MAX_FAILED:])


def claim_request(session: Session) -> bool:
    """Mark the stop-time request made; False when it was made before (never twice, also
    when two stops race)."""
    made: list[bool] = []

    def change(state: SessionState) -> bool:
        if state.evidence.get("asked"):
            return False
        state.evidence["asked"] = True
        made.append(True)
        return True

    session.update(change)
    return bool(made)


def _since(record: Record) -> Record:
    """``record``, with the time its first evidence was kept (a lesson saved after it is
    a capture in this session; a float, so one saved within the second counts)."""
    record.setdefault("since", time.time())
    return record


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
