"""At the end of a session: ask the agent, once, to capture what the session taught.

A stop hook (Claude Code, Codex and Qwen Code ``Stop``, Gemini CLI ``AfterAgent``, Copilot CLI
``agentStop``) calls ``stop_request``. It answers with text only when all of these hold:

- ``stop_capture`` is on in the project's config (the default);
- the harness is not already continuing because of a stop hook (``stop_hook_active``);
- the session shows evidence of a lesson to keep (``session_evidence`` and the failure
  history, ``feedback.history``):
  - a person's correction typed right after an action of the agent;
  - an action that failed and was then made again without failing (fail, then fix),
    which no lesson covers yet;
  - an action that failed again and again with one kind of error (a recurrence) that no
    lesson covers;
- no lesson was captured in it: no lesson file was written or changed since the session
  began (``lessons add`` from the shell, the MCP tool or a hand-written file alike);
- the request was not made in this session before (marked under the session's lock, so
  two stops racing still ask once).

The text lists the evidence and carries a prefilled ``lessons add`` line for the first
item (trigger and evidence from the session, the rule and topic left to the agent),
secrets masked. A fail-then-fix needs a failure hook: Codex reports a shell command's
(its ``PostToolUse``, the exit code read from its session file), not an ``apply_patch``'s.
"""

from __future__ import annotations

import os

from lessons_core.delivery import sessions
from lessons_core.delivery.nudges import capture_line
from lessons_core.feedback import history, session_evidence
from lessons_core.feedback.failures import command_pattern, trigger_label
from lessons_core.feedback.recurrence import covering
from lessons_core.feedback.session_evidence import COMMAND, FILE
from lessons_core.matching.command_words import unanchored
from lessons_core.records import NamedTuple

TYPE_CHECKING = False
if TYPE_CHECKING:
    from lessons_core.delivery.sessions import SessionState
    from lessons_core.store.config import Config
    from lessons_core.store.layout import Layout

# The request opens with this, so a reader (or a test's fake model) knows it.
REQUEST_MARK = "Before you finish"
MAX_LISTED = 3
FILE_FLAG, COMMAND_FLAG = "--trigger-file", "--trigger-cmd"


class Evidence(NamedTuple):
    """One thing the session showed: the trigger a lesson would have, what happened."""

    trigger: tuple[str, str]
    told: str  # for the agent: 'after src/app.py the user said: "..."'
    ref: str  # for the lesson's --evidence


def stop_request(layout: Layout, key: str, config: Config, *, active: bool) -> str | None:
    """The capture request for this stop, or None (see the module's conditions)."""
    if active or not config.stop_capture:
        return None
    with sessions.open_session(layout, key) as session:
        record = session.state.evidence
        found = corrections(record) + failures(layout, session.state, config)
        if not found:
            return None
        since = record.get("since")
        if isinstance(since, (int, float)) and captured_since(layout, since):
            return None
        # A request whose mark cannot be written (a read-only or full disk) would block
        # every stop of the session: like a gate that cannot record its refusal, none.
        if not session_evidence.claim_request(session) or not session.recorded:
            return None
    return _request(layout, found)


def corrections(record: dict[str, object]) -> list[Evidence]:
    """The corrections typed right after an action, newest first."""
    kept = record.get("corrections")
    found = []
    for entry in reversed(kept if isinstance(kept, list) else []):
        if not isinstance(entry, dict):
            continue
        trigger = _trigger(entry.get("action"))
        quote = entry.get("quote")
        if trigger is None or not isinstance(quote, str):
            continue
        told = f'after {trigger_label(trigger)} the user said: "{quote}"'
        found.append(Evidence(trigger, told, f"correction: {quote}"))
    return found


def failures(layout: Layout, state: SessionState, config: Config) -> list[Evidence]:
    """Recurrences no lesson covers, then actions made again without failing after a
    failure that no lesson covers, each kind newest first."""
    found: list[Evidence] = []
    recurred = session_evidence.kept(state.evidence, session_evidence.RECURRED)
    for mark, identity in reversed(recurred.items()):
        entry = state.failures.get(mark)
        trigger = _identity_trigger(identity)
        times = history.recurring(entry) if entry else None
        if trigger is None or times is None:
            continue
        error_class, count = times
        told = f"{trigger_label(trigger)} failed {count} times ({error_class}); no lesson covers it"
        found.append(Evidence(trigger, told, f"recurrence: {error_class}, {count} times"))
    fixed = session_evidence.kept(state.evidence, session_evidence.FIXED)
    for mark, identity in reversed(fixed.items()):
        entry = state.failures.get(mark)
        trigger = _identity_trigger(identity)
        if mark in recurred or trigger is None or not entry:
            continue
        if entry.get("last") != history.SUCCEEDED or _covered(layout, trigger, config):
            continue
        error_class = max(history.classes(entry).items(), key=lambda item: item[1])[0]
        told = (
            f"{trigger_label(trigger)} failed ({error_class}), then was made again without failing"
        )
        found.append(Evidence(trigger, told, f"failed, then fixed: {error_class}"))
    return found


def _covered(layout: Layout, trigger: tuple[str, str], config: Config) -> bool:
    """Whether a lesson's file or command trigger already matches the action."""
    flag, value = trigger
    if flag == FILE_FLAG:
        return covering(layout, (value,), None, config) is not None
    return covering(layout, (), unanchored(value), config) is not None


def captured_since(layout: Layout, since: float) -> bool:
    """Whether a lesson file was written at or after ``since`` (seconds since the epoch)."""
    try:
        with os.scandir(layout.under("lessons")) as entries:
            return any(
                entry.name.endswith(".json") and entry.stat().st_mtime >= since for entry in entries
            )
    except OSError:
        return False


def _trigger(action: object) -> tuple[str, str] | None:
    """The ``lessons add`` trigger for an action ``session_evidence`` kept."""
    if not isinstance(action, list) or len(action) != 2:
        return None
    kind, value = action
    if not isinstance(value, str) or not value:
        return None
    if kind == FILE:
        return FILE_FLAG, value
    if kind == COMMAND:
        pattern = command_pattern(value)
        return (COMMAND_FLAG, pattern) if pattern else None
    return None


def _identity_trigger(identity: str) -> tuple[str, str] | None:
    """The trigger an action identity names (``file src/a.py``, ``cmd ^make gen``)."""
    kind, _, value = identity.partition(" ")
    if not value:
        return None
    return {"file": (FILE_FLAG, value), "cmd": (COMMAND_FLAG, value)}.get(kind)


def _request(layout: Layout, found: list[Evidence]) -> str:
    from lessons_core.authoring.secrets import mask_secrets

    first = found[0]
    listed = "\n".join(f"- {item.told}" for item in found[:MAX_LISTED])
    return mask_secrets(
        f"{REQUEST_MARK}: this session holds something a project lesson could keep, and "
        f"no lesson was captured in it:\n{listed}\n"
        "If it is specific to this project (not a one-off), write the rule as one "
        "imperative sentence and the topic into this line, run it, then finish:\n  "
        + capture_line(layout, *first.trigger, evidence=(first.ref,))
        + "\nIf it taught nothing worth keeping, just finish."
    )
