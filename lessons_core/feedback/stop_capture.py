"""At the end of a session: ask the agent, once, to capture what the session taught.

A stop hook (Claude Code and Codex ``Stop``, Gemini CLI ``AfterAgent``, Copilot CLI
``agentStop``) calls ``stop_request``. It answers with text only when all of these hold:

- ``stop_capture`` is on in the project's config (the default);
- the harness is not already continuing because of a stop hook (``stop_hook_active``);
- the session shows evidence of a lesson to keep: a person's correction typed right after
  an action of the agent (``session_evidence``);
- no lesson was captured in it: no lesson file was written or changed since the session
  began (``lessons add`` from the shell, the MCP tool or a hand-written file alike);
- the request was not made in this session before (marked under the session's lock, so
  two stops racing still ask once).

The text lists the evidence and carries a prefilled ``lessons add`` line (trigger and
evidence from the session, the rule and topic left to the agent), secrets masked.
"""

from __future__ import annotations

import os

from lessons_core.delivery.nudges import add_line, command_pattern
from lessons_core.feedback import session_evidence
from lessons_core.feedback.session_evidence import COMMAND, FILE
from lessons_core.records import NamedTuple

TYPE_CHECKING = False
if TYPE_CHECKING:
    from lessons_core.store.config import Config
    from lessons_core.store.layout import Layout

# The request opens with this, so a reader (or a test's fake model) knows it.
REQUEST_MARK = "Before you finish"
MAX_LISTED = 3


class Evidence(NamedTuple):
    """One thing the session showed: the trigger a lesson would have, what happened."""

    trigger: tuple[str, str]
    told: str  # for the agent: "after src/app.py the user said: ..."
    ref: str  # for the lesson's --evidence


def stop_request(layout: Layout, key: str, config: Config, *, active: bool) -> str | None:
    """The capture request for this stop, or None (see the module's conditions; the
    ``stop_capture`` setting turns it off)."""
    if active or not config.stop_capture:
        return None
    record = session_evidence.read(layout, key)
    found = corrections(record)
    if not found:
        return None
    since = record.get("since")
    if isinstance(since, (int, float)) and captured_since(layout, since):
        return None
    if not session_evidence.claim_request(layout, key):
        return None
    return _request(layout, found)


def corrections(record: dict[str, object]) -> list[Evidence]:
    """The corrections typed right after an action, newest first, as evidence."""
    kept = record.get("corrections")
    found = []
    for entry in reversed(kept if isinstance(kept, list) else []):
        if not isinstance(entry, dict):
            continue
        trigger = _trigger(entry.get("action"))
        quote = entry.get("quote")
        if trigger is None or not isinstance(quote, str):
            continue
        told = f'after {_label(trigger)} the user said: "{quote}"'
        found.append(Evidence(trigger, told, f"correction: {quote}"))
    return found


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
    """The ``lessons add`` trigger for an action recorded by ``session_evidence``."""
    if not isinstance(action, list) or len(action) != 2:
        return None
    kind, value = action
    if not isinstance(value, str) or not value:
        return None
    if kind == FILE:
        return "--trigger-file", value
    if kind == COMMAND:
        pattern = command_pattern(value)
        return ("--trigger-cmd", pattern) if pattern else None
    return None


def _label(trigger: tuple[str, str]) -> str:
    flag, value = trigger
    return value if flag == "--trigger-file" else f"the command {value.lstrip('^')!r}"


def _request(layout: Layout, found: list[Evidence]) -> str:
    from lessons_core.authoring.secrets import mask_secrets

    first = found[0]
    listed = "\n".join(f"- {item.told}" for item in found[:MAX_LISTED])
    return mask_secrets(
        f"{REQUEST_MARK}: this session holds something a project lesson could keep, and "
        f"no lesson was captured in it:\n{listed}\n"
        "If it is specific to this project (not a one-off), write the rule as one "
        "imperative sentence and the topic into this line, run it, then finish:\n  "
        + add_line(layout, first.trigger, (first.ref,))
        + "\nIf it taught nothing worth keeping, just finish."
    )
