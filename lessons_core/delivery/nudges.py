"""After a failed tool call: a short nudge to capture what it taught, once per session and
key, and a stronger one when the same failure recurs and no lesson covers it.

The nudge carries a ready ``lessons add`` line (``feedback.failures.capture_line``) whose
trigger is as precise as the failure allows (``session.action.precise``): the
repo-relative path of the file, or a pattern anchored to the start of the command that
failed (``^pnpm test:e2e``). Anything that looks like a secret is masked before it
reaches the agent.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from lessons_core.authoring.secrets import mask_secrets
from lessons_core.delivery.deliver import GATE_PREFIX, record_failure
from lessons_core.delivery.tool_action import ToolAction
from lessons_core.feedback import recurrence
from lessons_core.feedback.failures import capture_line
from lessons_core.session import state as sessions

if TYPE_CHECKING:
    from lessons_core.session.action import ActionId
    from lessons_core.session.state import SessionState
    from lessons_core.store.config import Config
    from lessons_core.store.layout import Layout

RECURRENCE_NUDGE = (
    "This call failed {times} times in this session with the same error "
    "({error_class}), and no project lesson covers it. Find the cause before trying "
    "again; once you know it, capture it so the rule is shown before the next attempt:"
    "\n  {line}"
)


def after_failure(
    layout: Layout,
    key: str,
    action: ToolAction,
    error: str,
    config: Config,
    event: str = "PostToolUseFailure",
    *,
    hold: bool = False,
    call: str = "",
) -> str | None:
    """What a failure hook does in every harness: count the failure in the session's
    history (``feedback.recurrence``, one read and one write of the session), log it when
    telemetry is on, and return the text for the agent: the capture nudge (once per
    session and action), the stronger one for an uncovered recurrence, or nothing (a
    covered recurrence waits for the recurrence gate). A call lessons itself refused (its
    gate, or a rule a person made binding) is no failure: some clients report the refusal
    as one.

    ``hold``: the failure event cannot add context, so the text is kept in the session,
    in the same write, for the next hook that can (``deliver.with_due``), and None is
    returned. ``call``: the harness's id of the call, counted once however often it is
    reported."""
    if _refused_by_lessons(error):
        return None
    said: list[str | None] = [None]

    def keep(state: SessionState, counted: recurrence.Counted) -> None:
        said[0] = nudge_for(layout, counted)
        if hold and said[0]:
            state.held = hold_nudge(state.held, said[0], counted.action)

    with sessions.open_session(layout, key) as session:
        counted = recurrence.count_failure(
            layout, session, action.files, action.shell or action.command, error, config, keep, call
        )
    if counted is not None and counted.verdict == recurrence.AGAIN:
        return None  # logged and answered when it was first reported
    found_class, identity = (counted.error_class, counted.action.identity) if counted else ("", "")
    record_failure(layout, key, action, config, event, found_class, identity)
    return None if hold else said[0]


def nudge_for(layout: Layout, counted: recurrence.Counted) -> str | None:
    """The text a counted failure brings: the stronger nudge for a recurrence no lesson
    covers, the capture nudge when it is due (a failure a lesson could prevent:
    ``feedback.fixes.preventable``), else None (a covered recurrence waits for the
    recurrence gate). Neither is given when its line would propose a trigger ``lessons
    add`` refuses (``feedback.proposals``): ``^uv run pytest`` fires on every test run."""
    uncovered = counted.verdict == recurrence.UNCOVERED
    if not uncovered and (counted.verdict == recurrence.COVERED or not counted.nudge):
        return None
    from lessons_core.feedback.proposals import breadth_judge  # noqa: PLC0415 (heavy: pathspec, RE2)

    if not breadth_judge(layout)(counted.action):
        return None
    if uncovered:
        return recurrence_nudge(layout, counted.action, counted.error_class, counted.times)
    return failure_nudge(layout, counted.action)


def hold_nudge(held: list[str], text: str, action: ActionId) -> list[str]:
    """``held`` with ``text`` added, to be delivered after later calls: it names the call
    it is about and replaces a nudge held for the same call; the latest few are kept."""
    head = mask_secrets(f"About an earlier call in this session ({action.label}):")
    kept = [h for h in held if not h.startswith(head)][-(sessions.HELD_KEPT - 1) :]
    return [*kept, f"{head} {text}"]


def failure_nudge(layout: Layout, action: ActionId) -> str:
    """The capture nudge for a failed ``action``."""
    return mask_secrets(
        "That call failed. If the cause is specific to this project (not a typo or a "
        "one-off), capture it so the rule is shown before the next attempt:\n  "
        + capture_line(layout, *action.trigger)
    )


def recurrence_nudge(layout: Layout, action: ActionId, error_class: str, times: int) -> str:
    """The stronger nudge for a recurrence no lesson covers, with the same ready line."""
    line = capture_line(layout, *action.trigger)
    return mask_secrets(RECURRENCE_NUDGE.format(times=times, error_class=error_class, line=line))


def _refused_by_lessons(error: str) -> bool:
    """Whether ``error`` is lessons' own refusal, as a client reports it back: the gate's
    line, or a binding refusal's head (``delivery.binding``, which the failure path may
    import: it loads the feedback package anyway)."""
    if GATE_PREFIX in error:
        return True
    from lessons_core.delivery.binding import ENFORCE_HEAD, FORBID_HEAD  # noqa: PLC0415 (heavy: secret patterns)

    return ENFORCE_HEAD in error or FORBID_HEAD in error
