"""What a session showed that a lesson could keep, recorded by the hooks as it happens.

The stop-time capture request (``lessons_core.feedback.stop_capture``) reads it: the
corrections a person typed right after an action of the agent, each with the trigger of
that action; the commands that failed and were followed right away by a changed form of
them (``feedback.fixes.related``: ``make deploy-prod``, then ``make deploy ENV=prod``),
with that form; the actions made again after a failure, and those that failed again with
no lesson about them, by the identity the failure history counts them under
(``session.action``; ``session.failure_history`` keeps only its digest); when the
session began; whether the request was already made. An action that failed and is made
again is told to the failure history here, where the pre-tool hook of the retry sees
it. Whether the changed form worked, and which failures are worth a lesson at all, the
stop decides
(``feedback.fixes``): the failure hook of a changed form that failed too marks it
failed in the history.

Kept in the session's state (``SessionState.evidence``), read with the rest of it once
per hook call; a change is staged on the call's ``Session`` and written with its one
write. Actions are kept as text only as the words that name them: the latest action (a
file's repo-relative path, or the words ``matching.command_words`` says name a command:
``pnpm test:e2e``, an interpreter's script ``bash scripts/release.sh``, never an option or
a value with ``=``, nor a word that looks like a token), and the triggers
of the fixed and recurred ones, already checked for secrets by the failure hook. A
changed form that followed a failure is kept as its words up to the first that is not a
plain word, a value with ``=`` included (``make deploy ENV=prod``: it is what the lesson
would say to run); one that holds a secret is kept as its words alone. A correction's
sentence is kept with secrets masked.

Runs in the hook on every tool call, so it imports only what those already loaded.
What it keeps, feedback judges: the caller hands in whether a prompt corrects the agent
(``feedback.corrections``) and whether a command is a changed form of another
(``feedback.fixes.related``), each asked only when it matters.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING

from lessons_core.session import action as action_id
from lessons_core.session.failure_history import FAILED, record_success

if TYPE_CHECKING:
    from collections.abc import Callable

    from lessons_core.matching.shell_command import ShellCommand
    from lessons_core.session.action import ActionId
    from lessons_core.session.failure_history import History
    from lessons_core.session.state import Session, SessionState

    # Whether the command named by the second words is a changed form of the one named
    # by the first (``feedback.fixes.related``).
    Related = Callable[[list[str], list[str]], bool]
    # The cues a prompt corrects the agent with and the clause holding the first, or
    # None (``feedback.corrections.find_correction``).
    Corrects = Callable[[str], tuple[tuple[str, ...], str] | None]

# A session keeps this many corrections (the request quotes the newest), and this many
# actions of each kind: fixed after a failure, recurred with no lesson about them.
MAX_CORRECTIONS = 3
MAX_FAILED = 16
FIXED = "fixed"
RECURRED = "recurred"
# Failed commands followed right away by a changed form: digest -> [identity, the form as
# run (masked), the form's digest].
FIXED_BY = "fixed_by"
# The latest command: [digest, words], so the next can tell whether it changes it.
LAST_COMMAND = "last_command"
# At most this many words of a changed form are kept.
MAX_FIX_WORDS = 8

Record = dict[str, object]


def note_action(
    session: Session, files: tuple[str, ...], command: str | ShellCommand | None, related: Related
) -> None:
    """Remember the action on ``files`` or running ``command`` as the session's latest (a
    prompt after it may correct it). One whose last attempt failed is being made again:
    the failure history counts it as not failed (a failure hook counts this attempt over
    it if it fails too), and its trigger is kept as a fix's; a command right after one
    that failed is kept as its fix when ``related`` says it changes it."""
    named = action_id.named(files, command)
    if named is None:
        return
    saved = named.saved
    fixed = named if _last_failed(session.state.failures, named.failure_key) else None
    # Another action (an edit, another command) between the failure and this attempt.
    changed_between = session.state.evidence.get("action") != saved
    last = session.state.evidence.get(LAST_COMMAND)
    current = [named.failure_key, saved[1]] if named.kind == action_id.COMMAND else None
    changed = _changed_form(session.state, last, current, command, related)
    same_command = current is None or last == current
    if session.state.evidence.get("action") == saved and fixed is None and same_command:
        return  # the same file or command again: nothing to record

    def change(state: SessionState) -> bool:
        if fixed is not None:
            record_success(state.failures, fixed.failure_key, changed_between)
            _keep(state.evidence, FIXED, fixed.failure_key, fixed.identity)
        if changed is not None:
            mark, entry = changed
            _keep_fix(_since(state.evidence), mark, entry)
        if current is not None:
            state.evidence[LAST_COMMAND] = current
        _since(state.evidence)["action"] = saved
        return True

    session.stage(change)


def _last_failed(failures: History, mark: str) -> bool:
    """Whether the action ``mark`` names failed at its last attempt."""
    entry = failures.get(mark) if failures else None
    if not entry:
        return False

    return entry.get("last") == FAILED


def _changed_form(
    state: SessionState,
    last: object,
    current: list[str] | None,
    command: str | ShellCommand | None,
    related: Related,
) -> tuple[str, list[str]] | None:
    """When the command before this one failed and this is a changed form of it: the
    failed one's digest, and ``[its identity, this form as run, this form's digest]``."""
    if current is None or command is None or not isinstance(last, list) or len(last) != 2:
        return None
    mark, words = last
    if not isinstance(mark, str) or not isinstance(words, str) or mark == current[0]:
        return None
    if not _last_failed(state.failures, mark):
        return None
    if not related(words.split(" "), current[1].split(" ")):
        return None
    failed = action_id.of_words(words).identity
    return mark, [failed, _as_run(command, current[1]), current[0]]


def _as_run(command: str | ShellCommand, words: str) -> str:
    """The simple command ``words`` names, as run: its words from the program up to the
    first that is not a plain word (an option's or assignment's value may be one).
    ``words`` when the command cannot be read so, or what was kept holds a secret."""
    from lessons_core.authoring.secrets import mask_secrets  # noqa: PLC0415 (heavy: secret patterns)
    from lessons_core.matching.shell_command import parsed  # noqa: PLC0415 (event: shell calls only)

    program = words.split(" ", 1)[0]
    for segment in reversed(parsed(command).segments):
        found = segment.words
        if found[:1] == (program,):
            kept: list[str] = []
            for word in found[:MAX_FIX_WORDS]:
                printable = action_id.plain(word) and word.isprintable()
                if not printable or mask_secrets(word) != word:
                    break
                kept.append(word)
            text = " ".join(kept)
            # A secret may span words (``--password hunter2``): then the words alone.
            plain = len(kept) >= len(words.split(" ")) and mask_secrets(text) == text
            return text if plain else words
    return words


def fixes(record: Record) -> dict[str, tuple[str, str, str]]:
    """The failed commands a changed form followed: digest -> (identity, the form as
    run, the form's digest)."""
    found = record.get(FIXED_BY)
    if not isinstance(found, dict):
        return {}
    return {
        mark: (entry[0], entry[1], entry[2])
        for mark, entry in found.items()
        if isinstance(mark, str)
        and isinstance(entry, list)
        and len(entry) == 3
        and all(isinstance(item, str) for item in entry)
    }


def _keep_fix(record: Record, mark: str, entry: list[str]) -> None:
    """Keep the newest changed form that followed the failed command ``mark`` (an earlier
    one may have failed too)."""
    found = record.get(FIXED_BY)
    kept = {m: e for m, e in found.items() if m != mark} if isinstance(found, dict) else {}
    kept[mark] = entry
    record[FIXED_BY] = dict(list(kept.items())[-MAX_FAILED:])


def note_prompt(session: Session, prompt: str, corrects: Corrects) -> None:
    """A prompt ends the window of the action before it; one that corrects the agent (as
    ``corrects`` finds it) is kept, with that action's trigger."""
    action = session.state.evidence.get("action")  # ``ActionId.saved``
    if not isinstance(action, list):
        return  # no action since the last prompt: a correction of nothing, or a new task
    found = corrects(prompt)
    entry: Record | None = None
    if found is not None:
        from lessons_core.authoring.secrets import mask_secrets  # noqa: PLC0415 (heavy: secret patterns)

        cues, excerpt = found
        entry = {"action": action, "quote": mask_secrets(excerpt), "cues": list(cues)}

    def change(state: SessionState) -> bool:
        record = state.evidence
        record.pop("action", None)
        if entry is not None:
            kept = record.get("corrections")
            corrections = kept if isinstance(kept, list) else []
            record["corrections"] = [*corrections, entry][-MAX_CORRECTIONS:]
        return True

    session.stage(change)


def keep_recurrence(record: Record, action: ActionId) -> None:
    """Keep in the session's evidence ``record`` the trigger of an ``action`` that failed
    again with one kind of error and that no lesson covers (``feedback.recurrence``:
    ``UNCOVERED``); called within the failure hook's one write."""
    _keep(_since(record), RECURRED, action.failure_key, action.identity)


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
