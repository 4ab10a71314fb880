"""What a session showed that a lesson could keep, recorded by the hooks as it happens.

The stop-time capture request (``lessons_core.feedback.stop_capture``) reads it: the
corrections a person typed right after an action of the agent, each with the trigger of
that action, when the session began, and whether the request was already made.

Kept in its own small file per session beside the session's shown set
(``sessions.file_of``), written only when something changes: a new action, a prompt after
one, the request. The file holds no command text beyond the words that name what ran
(``pnpm test:e2e``: the program and sub-commands a failure nudge's pattern is built from,
never arguments, paths or values) and a correction's sentence with secrets masked.

Runs in the hook on every tool call, so it imports only what those already loaded.
"""

from __future__ import annotations

import time

from lessons_core import hookjson
from lessons_core.delivery import sessions
from lessons_core.fsutil import atomic_write, locked

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable

    from lessons_core.store.layout import Layout

# A session keeps this many corrections; the request quotes the newest.
MAX_CORRECTIONS = 3
# What the request needs of an action: the trigger flag and value (``--trigger-file``,
# ``src/app.py``); a command is kept as the words a pattern is built from.
FILE = "file"
COMMAND = "command"
# A command word that looks like a token (long, with digits) is not kept: it may be one.
MAX_PLAIN_WORD = 40


def evidence_key(key: str) -> str:
    """The evidence keeps its own file, so resets of the shown set leave it alone."""
    return f"{key}\x1fevidence"


def read(layout: Layout, key: str) -> dict[str, object]:
    """The session's evidence record (empty when there is none or it cannot be read)."""
    try:
        with open(sessions.file_of(layout, evidence_key(key)), "rb") as handle:
            data = hookjson.loads(handle.read())
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def note_action(layout: Layout, key: str, files: tuple[str, ...], command: str | None) -> None:
    """Remember the action on ``files`` or running ``command`` as the session's latest (a
    prompt after it may correct it)."""
    named = _named(files, command)
    if named is None:
        return
    data = read(layout, key)
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

    def change(record: dict[str, object]) -> None:
        record.pop("action", None)
        if found is None:
            return
        from lessons_core.authoring.secrets import mask_secrets

        kept = record.get("corrections")
        corrections = kept if isinstance(kept, list) else []
        entry = {"action": action, "quote": mask_secrets(found.excerpt), "cues": list(found.cues)}
        record["corrections"] = [*corrections, entry][-MAX_CORRECTIONS:]

    _update(layout, key, change)


def claim_request(layout: Layout, key: str) -> bool:
    """Mark the stop-time request made; False when it was made before (never twice)."""
    made: list[bool] = []

    def change(record: dict[str, object]) -> None:
        if not record.get("asked"):
            record["asked"] = True
            made.append(True)

    _update(layout, key, change)
    return bool(made)


def _update(layout: Layout, key: str, change: Callable[[dict[str, object]], None]) -> None:
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
