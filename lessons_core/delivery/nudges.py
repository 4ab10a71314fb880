"""After a failed tool call: a short nudge to capture what it taught, once per session and key.

The nudge carries a ready ``lessons add`` line whose trigger is as precise as the failure
allows: the repo-relative path of the file, or a pattern anchored to the start of the
command that failed (``^pnpm test:e2e``), never a glob or pattern that would fire
everywhere. Anything that looks like a secret is masked before it reaches the agent.

Secret masks and shlex are imported where a nudge or line is written, not with the module:
``lessons_core.feedback.stop_capture`` imports it on every stop.
"""

from __future__ import annotations

from lessons_core.delivery import sessions
from lessons_core.delivery.deliver import ToolAction
from lessons_core.matching.command_words import command_words
from lessons_core.store.layout import Layout, lessons_command

RULE_PLACEHOLDER = "<what to do instead, one imperative sentence>"
_REGEX_SPECIALS = frozenset("\\.^$*+?()[]{}|")


def nudge_key(key: str) -> str:
    """Nudges keep their own set, so compaction does not repeat them."""
    return f"{key}\x1fnudges"


def failure_nudge(layout: Layout, key: str, action: ToolAction) -> str | None:
    """The nudge for a failed ``action``, or None (nothing precise, or already nudged)."""
    trigger = precise_trigger(action)
    if trigger is None:
        return None
    flag, value = trigger
    if not sessions.claim(layout, nudge_key(key), [f"{flag} {value}"]):
        return None
    from lessons_core.authoring.secrets import mask_secrets

    return mask_secrets(
        "That call failed. If the cause is specific to this project (not a typo or a "
        "one-off), capture it so the rule is shown before the next attempt:\n  "
        + add_line(layout, trigger)
    )


def add_line(layout: Layout, trigger: tuple[str, str], evidence: tuple[str, ...] = ()) -> str:
    """A ready ``lessons add`` line with ``trigger`` and ``evidence`` filled in and the rule
    and topic left for the agent (callers mask secrets in the text they hand over)."""
    import shlex

    flag, value = trigger
    refs = "".join(f" --evidence {shlex.quote(ref)}" for ref in evidence)
    return (
        f'{lessons_command(layout)} add "{RULE_PLACEHOLDER}" --topic <topic> '
        f"{flag} {shlex.quote(value)}{refs}"
    )


def precise_trigger(action: ToolAction) -> tuple[str, str] | None:
    """``--trigger-file PATH`` or ``--trigger-cmd PATTERN`` for the action, or None."""
    if action.files:
        path = action.files[0]
        return None if _quotes_a_secret(path) else ("--trigger-file", path)
    if action.command:
        pattern = command_pattern(action.command)
        if pattern:
            return "--trigger-cmd", pattern
    return None


def command_pattern(command: str) -> str | None:
    """A pattern anchored to the last state-changing simple command of ``command``.

    The program and the sub-commands after it, up to the first option, path or value:
    ``cd web && pnpm test:e2e --filter x`` gives ``^pnpm test:e2e``.
    """
    kept = command_words(command)
    if not kept or _quotes_a_secret(" ".join(kept)):
        return None
    return "^" + " ".join(_escape(word) for word in kept)


def _quotes_a_secret(text: str) -> bool:
    """Whether ``text`` holds a credential. Checked before escaping: ``\\.`` inside a token
    would hide it from the masks, and a trigger naming a secret could never be captured."""
    from lessons_core.authoring.secrets import mask_secrets

    return mask_secrets(text) != text


def _escape(word: str) -> str:
    return "".join(f"\\{char}" if char in _REGEX_SPECIALS else char for char in word)
