"""After a failed tool call: a short nudge to capture what it taught, once per session and key.

The nudge carries a ready ``lessons add`` line whose trigger is as precise as the failure
allows: the repo-relative path of the file, or a pattern anchored to the start of the
command that failed (``^pnpm test:e2e``), never a glob or pattern that would fire
everywhere. Anything that looks like a secret is masked before it reaches the agent.
"""

from __future__ import annotations

import shlex

from lessons_core.authoring.secrets import mask_secrets
from lessons_core.delivery import sessions
from lessons_core.delivery.deliver import ToolAction
from lessons_core.matching.commands import command_parts, shell_words
from lessons_core.matching.pure_reads import is_pure_read_command
from lessons_core.store.layout import Layout, lessons_command

MAX_PATTERN_WORDS = 3
# A longer word is data (a heredoc, an inline script), not a program or sub-command name.
MAX_WORD_CHARS = 64
_REGEX_SPECIALS = frozenset("\\.^$*+?()[]{}|")
# Interpreters whose module flag names what ran: `python -m pytest` is about pytest.
_MODULE_FLAGS = {"python": "-m", "python3": "-m"}


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
    return mask_secrets(
        "That call failed. If the cause is specific to this project (not a typo or a "
        "one-off), capture it so the rule is shown before the next attempt:\n  "
        + add_line(lessons_command(layout), trigger)
    )


def add_line(program: str, trigger: tuple[str, str], *extra: str) -> str:
    """A ``lessons add`` line with the rule and topic left for the agent to write, the
    trigger filled in, and ``extra`` options (already quoted) after it."""
    flag, value = trigger
    return " ".join(
        (
            f'{program} add "<what to do instead, one imperative sentence>" --topic <topic>',
            f"{flag} {shlex.quote(value)}",
            *extra,
        )
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
    parts = command_parts(command)
    candidates = [part for part in (parts[1:] or parts) if not is_pure_read_command(part)]
    if not candidates:
        return None
    words = shell_words(candidates[-1])
    if not words or len(words[0]) > MAX_WORD_CHARS:
        return None
    kept = [words[0]]
    for word in words[1:]:
        if len(kept) >= MAX_PATTERN_WORDS:
            break
        if _MODULE_FLAGS.get(kept[0]) == word and len(kept) == 1:
            kept.append(word)
            continue
        if (
            word.startswith("-")
            or any(c in word for c in "/=.")
            or not word.isprintable()
            or len(word) > MAX_WORD_CHARS
        ):
            break
        kept.append(word)
    if _quotes_a_secret(" ".join(kept)):
        return None
    return "^" + " ".join(_escape(word) for word in kept)


def _quotes_a_secret(text: str) -> bool:
    """Whether ``text`` holds a credential. Checked before escaping: ``\\.`` inside a token
    would hide it from the masks, and a trigger naming a secret could never be captured."""
    return mask_secrets(text) != text


def _escape(word: str) -> str:
    return "".join(f"\\{char}" if char in _REGEX_SPECIALS else char for char in word)
