"""Recurring failures: the same action failing again with the same kind of error.

A failure hook counts each failure in the session's history (``count_failure``, through
``nudges.after_failure``, in the call's one write to the session) under the action's
identity (``session.action``) and error class (``feedback.failures``). When the action
has failed ``failure_history.RECURS_AT`` times with one class, its recurrence is answered
once per session:

- ``COVERED``: lessons cover the action, so its recurrence is *due*: before the next
  attempt the pre-tool hook (``recurrence_gate``, called by ``deliver.before_action``)
  shows those lessons again, at most ``MAX_RECURRENCE_RULES``, past session suppression,
  refusing the call once with a note saying how often it failed;
- ``UNCOVERED``: none does, so the agent gets a stronger nudge at once
  (``nudges.recurrence_nudge``).

Imported by failure hooks, and by a pre-tool hook only when a recurrence is due
(``failure_history.due``). It imports nothing from ``deliver`` or ``nudges``, which call
it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, NamedTuple

from lessons_core.authoring.secrets import mask_secrets
from lessons_core.feedback.failures import error_class
from lessons_core.feedback.fixes import preventable
from lessons_core.recall.rank import recall
from lessons_core.recall.types import RecallRequest
from lessons_core.session import evidence
from lessons_core.session import failure_history as history
from lessons_core.session.action import ActionId, precise
from lessons_core.session.state import FAILED_CALLS_KEPT

if TYPE_CHECKING:
    from collections.abc import Callable

    from lessons_core.matching.shell_command import ShellCommand
    from lessons_core.recall.types import Recall
    from lessons_core.session.state import Session, SessionState
    from lessons_core.store.config import Config
    from lessons_core.store.layout import Layout

MAX_RECURRENCE_RULES = 2
# Trigger kinds that tie a lesson to the action itself (a prompt match does not).
_COVERING = frozenset({"file", "command"})

# What became of a failure: the first of its class (or one answered already), a
# recurrence lessons cover, a recurrence none covers.
FIRST = "first"
COVERED = "covered"
UNCOVERED = "uncovered"
# The harness reported a call it had reported already: nothing is counted again.
AGAIN = "again"

# Said before the gate's usual words and the lessons it shows again.
RECURRENCE_HEAD = (
    "This call failed {times} times in this session ({error_class}); the project "
    "lessons about it, shown again:"
)


class Counted(NamedTuple):
    """A failure as the session's history counted it."""

    action: ActionId
    error_class: str
    times: int
    verdict: str  # FIRST, COVERED, UNCOVERED, or AGAIN (counted before)
    nudge: bool  # the action's first capture nudge is due now (once per session)


def count_failure(
    layout: Layout,
    session: Session,
    files: tuple[str, ...],
    command: str | ShellCommand | None,
    error: str,
    config: Config,
    keep: Callable[[SessionState, Counted], None] | None = None,
    call: str = "",
) -> Counted | None:
    """Count a failed call about ``files`` or running ``command`` (the client said
    ``error``) in ``session``, with its verdict, the claim of its capture nudge and, for
    a recurrence no lesson covers, the evidence the stop-time request reads, all in the
    call's one write; None when nothing precise names the action; ``AGAIN`` as the
    verdict when ``call`` (the harness's id of the call) was counted already. ``keep``
    changes the state in that same write, knowing the count."""
    action = precise(files, command)
    if action is None:
        return None
    failure_key = action.failure_key
    found_class = error_class(error, edit=bool(files))
    counted: list[Counted] = []
    covered: list[bool] = []  # asked at most once, even when a parallel write re-runs this

    def change(state: SessionState) -> bool:
        if call:
            if call in state.failed_calls:
                counted[:] = [Counted(action, "", 0, AGAIN, False)]
                return False
            state.failed_calls = [*state.failed_calls, call][-FAILED_CALLS_KEPT:]
        failures = state.failures
        was = failures.get(failure_key, {}).get("recurrence")
        cls, times = history.record_failure(failures, failure_key, found_class)
        verdict, nudge = FIRST, False
        if was is None and history.recurring(failures[failure_key]) is not None:
            # Recall runs under the lock, once a session per action: only a new recurrence.
            if not covered:
                covered.append(covering(layout, files, command, config) is not None)
            verdict = COVERED if covered[0] else UNCOVERED
            history.set_recurrence(
                failures, failure_key, history.DUE if covered[0] else history.NUDGED
            )
            if verdict == UNCOVERED and config.stop_capture:  # for the stop-time request
                evidence.keep_recurrence(state.evidence, action)
        elif preventable(cls):  # a lesson could prevent it: the capture nudge, once
            nudge = history.claim_nudge(failures, failure_key)
        counted[:] = [Counted(action, cls, times, verdict, nudge)]
        if keep is not None:
            keep(state, counted[0])
        return True

    session.update(change)
    return counted[0] if counted else None


def covering(
    layout: Layout, files: tuple[str, ...], command: str | ShellCommand | None, config: Config
) -> Recall | None:
    """The lessons whose file or command triggers match the call, best first, at most
    ``MAX_RECURRENCE_RULES``, whatever the session was shown; None when none does."""
    if command is None or isinstance(command, str):
        request = RecallRequest(files=files, command=command, prompt=None)
    else:  # the call's one parse, carried on
        request = RecallRequest(files=files, command=command.text, prompt=None, shell=command)
    found = recall(layout, request, config=config)
    hits = tuple(hit for hit in found.hits if hit.via in _COVERING)[:MAX_RECURRENCE_RULES]
    return found._replace(hits=hits, more=0) if hits else None


def recurrence_gate(
    layout: Layout,
    session: Session,
    files: tuple[str, ...],
    command: str | ShellCommand | None,
    config: Config,
    refusal: str,
) -> tuple[str, Recall] | None:
    """Before the next attempt of an action whose recurrence is due: the line saying so
    and the lessons to show again, refusing the call ``refusal`` names once (one write to
    ``session``); None when nothing is due for this action (or a parallel hook answered
    it first)."""
    action = precise(files, command)
    if action is None:
        return None
    failure_key = action.failure_key
    due = history.due_entry(session.state.failures, failure_key)
    if due is None:
        return None
    found = covering(layout, files, command, config)
    if found is None:
        return None
    if not session.answer_recurrence(failure_key, [hit.lesson_id for hit in found.hits], refusal):
        return None
    found_class, times = due
    return mask_secrets(RECURRENCE_HEAD.format(times=times, error_class=found_class)), found
