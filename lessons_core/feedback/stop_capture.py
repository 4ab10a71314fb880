"""At the end of a session: ask the agent, once, to capture what the session taught.

A stop hook (Claude Code, Codex and Qwen Code ``Stop``, Gemini CLI ``AfterAgent``, Copilot CLI
``agentStop``) calls ``stop_request``. It answers with text only when all of these hold:

- ``stop_capture`` is on in the project's config (the default);
- the harness is not already continuing because of a stop hook (``stop_hook_active``);
- the session shows evidence of a lesson to keep (``session.evidence`` and the failure
  history, ``session.failure_history``):
  - a person's correction typed right after an action of the agent;
  - a command that failed, and right after it a changed form of it that did not fail
    (``feedback.fixes.related``: ``make deploy-prod``, then ``make deploy ENV=prod``),
    which no lesson covers yet;
  - an action that failed with an environment error (``feedback.fixes.environmental``:
    command not found, a missing module, permission, a wrong directory) and was then
    made again without failing, which no lesson covers yet: the same test passing once
    the code is edited is the ordinary loop, not evidence;
  - an action that failed again and again with one kind of error, nothing changed
    between (a recurrence: ``session.failure_history``), that no lesson covers;
  an edit tool's own error (its old text not found, the file not read) is the agent's
  slip and never evidence;
- its trigger passes the breadth judgement ``lessons add`` makes (``feedback.proposals``):
  evidence whose trigger would fire on every test run (``^uv run pytest``) or on a large
  share of the project's everyday commands is left out;
- no lesson was captured in it: no lesson file was written or changed since the session
  began (``lessons add`` from the shell, the MCP tool or a hand-written file alike);
- the request was not made in this session before (marked under the session's lock, so
  two stops racing still ask once).

The text lists the evidence and carries a prefilled ``lessons add`` line for the first
item (trigger and evidence from the session, the rule and topic left to the agent; for
a changed form that worked, the trigger is the failed command and the rule is drafted
with the form that worked: ``Run 'make deploy ENV=prod', not 'make deploy-prod'.``),
secrets masked. A fail-then-fix needs a failure hook: Codex reports a shell command's
(its ``PostToolUse``, the exit code read from its session file), not an ``apply_patch``'s.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, NamedTuple

from lessons_core.feedback.failures import RULE_PLACEHOLDER, capture_line
from lessons_core.feedback.fixes import environmental
from lessons_core.feedback.recurrence import covering
from lessons_core.session import action as action_id
from lessons_core.session import evidence
from lessons_core.session import failure_history as history
from lessons_core.session import state as sessions
from lessons_core.session.action import ActionId

if TYPE_CHECKING:
    from lessons_core.session.state import SessionState
    from lessons_core.store.config import Config
    from lessons_core.store.layout import Layout

# The request opens with this, so a reader (or a test's fake model) knows it.
REQUEST_MARK = "Before you finish"
MAX_LISTED = 3

# A drafted rule goes between double quotes on a shell line: no character the shell reads
# there, and no quote that would end the ones around a command.
_UNSAFE_IN_RULE = frozenset("\"$`\\!'\n\r")
MAX_DRAFTED_COMMAND = 120


def fix_rule(failed: str, worked: str) -> str | None:
    """The rule a changed command that worked suggests: ``Run 'make deploy ENV=prod', not
    'make deploy-prod'.``; None when a command holds what the line cannot quote."""
    for command in (failed, worked):
        if not command or len(command) > MAX_DRAFTED_COMMAND or _UNSAFE_IN_RULE & set(command):
            return None
    return f"Run '{worked}', not '{failed}'."


def with_rule(line: str, rule: str | None) -> str:
    """A ``lessons add`` line (``feedback.failures.capture_line``) with ``rule`` drafted
    in place of the placeholder."""
    if rule is None:
        return line
    return line.replace(f'"{RULE_PLACEHOLDER}"', f'"{rule}"', 1)


class Evidence(NamedTuple):
    """One thing the session showed: the action a lesson would be about, what happened."""

    action: ActionId
    told: str  # for the agent: 'after src/app.py the user said: "..."'
    ref: str  # for the lesson's --evidence
    rule: str | None = None  # a drafted rule, for a changed form that worked


def stop_request(layout: Layout, key: str, config: Config, *, active: bool) -> str | None:
    """The capture request for this stop, or None (see the module's conditions)."""
    if active or not config.stop_capture:
        return None
    with sessions.open_session(layout, key) as session:
        record = session.state.evidence
        found = corrections(record) + failures(layout, session.state, config)
        if found:  # only what lessons add would accept (``feedback.proposals``)
            from lessons_core.feedback.proposals import breadth_judge  # noqa: PLC0415 (heavy: pathspec, RE2)

            proposable = breadth_judge(layout)
            found = [item for item in found if proposable(item.action)]
        if not found:
            return None
        since = record.get("since")
        if isinstance(since, (int, float)) and captured_since(layout, since):
            return None
        # A request whose mark cannot be written (a read-only or full disk) would block
        # every stop of the session: like a gate that cannot record its refusal, none.
        if not evidence.claim_request(session) or not session.recorded:
            return None
    return _request(layout, found)


def corrections(record: dict[str, object]) -> list[Evidence]:
    """The corrections typed right after an action, newest first."""
    kept = record.get("corrections")
    found = []
    for entry in reversed(kept if isinstance(kept, list) else []):
        if not isinstance(entry, dict):
            continue
        action = _corrected(entry.get("action"))
        quote = entry.get("quote")
        if action is None or not isinstance(quote, str):
            continue
        told = f'after {action.label} the user said: "{quote}"'
        found.append(Evidence(action, told, f"correction: {quote}"))
    return found


def failures(layout: Layout, state: SessionState, config: Config) -> list[Evidence]:
    """Failed commands a changed form fixed, recurrences, then actions made again
    without failing after an environment error, none of them covered by a lesson, each
    kind newest first."""
    changed = _changed_forms(layout, state, config)
    found = [item for _mark, item in changed]
    fixed_by = {mark for mark, _item in changed}
    recurred = evidence.kept(state.evidence, evidence.RECURRED)
    for mark, identity in reversed(recurred.items()):
        entry = state.failures.get(mark)
        action = action_id.from_identity(identity)
        times = history.recurring(entry) if entry else None
        if mark in fixed_by or action is None or times is None:
            continue
        error_class, count = times
        if action.kind == action_id.FILE and not environmental(error_class):
            continue  # the edit tool's own error, again
        told = f"{action.label} failed {count} times ({error_class}); no lesson covers it"
        found.append(Evidence(action, told, f"recurrence: {error_class}, {count} times"))
    fixed = evidence.kept(state.evidence, evidence.FIXED)
    for mark, identity in reversed(fixed.items()):
        entry = state.failures.get(mark)
        action = action_id.from_identity(identity)
        if mark in recurred or mark in fixed_by or action is None or not entry:
            continue
        if entry.get("last") != history.SUCCEEDED:
            continue
        env = next((c for c in history.classes(entry) if environmental(c)), None)
        if env is None or _covered(layout, action, config):
            continue  # the ordinary loop, or a lesson has it already
        told = f"{action.label} failed ({env}), then was made again without failing"
        found.append(Evidence(action, told, f"failed, then fixed: {env}"))
    return found


def _changed_forms(
    layout: Layout, state: SessionState, config: Config
) -> list[tuple[str, Evidence]]:
    """Failed commands followed right away by a changed form that did not fail, no
    lesson covering them, newest first, each with the failed command's digest."""
    found = []
    for mark, (identity, form, form_mark) in reversed(evidence.fixes(state.evidence).items()):
        entry = state.failures.get(mark)
        action = action_id.from_identity(identity)
        form_entry = state.failures.get(form_mark)
        if (
            action is None
            or not entry
            or (form_entry and form_entry.get("last") != history.SUCCEEDED)
        ):
            continue  # the changed form failed as well
        if _covered(layout, action, config):
            continue
        error_class = max(history.classes(entry).items(), key=lambda item: item[1])[0]
        told = f"{action.label} failed ({error_class}); right after it, '{form}' worked"
        rule = fix_rule(action.words, form)
        ref = f"failed ({error_class}), then worked as: {form}"
        found.append((mark, Evidence(action, told, ref, rule)))
    return found


def _covered(layout: Layout, action: ActionId, config: Config) -> bool:
    """Whether a lesson's file or command trigger already matches the action."""
    if action.kind == action_id.FILE:
        return covering(layout, (action.value,), None, config) is not None
    return covering(layout, (), action.words, config) is not None


def captured_since(layout: Layout, since: float) -> bool:
    """Whether a lesson file was written at or after ``since`` (seconds since the epoch)."""
    try:
        with os.scandir(layout.under("lessons")) as entries:
            return any(
                entry.name.endswith(".json") and entry.stat().st_mtime >= since for entry in entries
            )
    except OSError:
        return False


def _corrected(saved: object) -> ActionId | None:
    """The action a correction followed (``ActionId.saved``); a command's words are read
    again as a failure's would be (``action.precise``), so none that holds a secret is
    offered as a trigger."""
    action = action_id.from_saved(saved)
    if action is None or action.kind == action_id.FILE:
        return action
    return action_id.precise((), action.words)


def _request(layout: Layout, found: list[Evidence]) -> str:
    from lessons_core.authoring.secrets import mask_secrets  # noqa: PLC0415 (heavy: secret patterns)

    first = found[0]
    listed = "\n".join(f"- {item.told}" for item in found[:MAX_LISTED])
    return mask_secrets(
        f"{REQUEST_MARK}: this session holds something a project lesson could keep, and "
        f"no lesson was captured in it:\n{listed}\n"
        "If it is specific to this project (not a one-off), write the rule as one "
        "imperative sentence and the topic into this line, run it, then finish:\n  "
        + with_rule(capture_line(layout, *first.action.trigger, evidence=(first.ref,)), first.rule)
        + "\nIf it taught nothing worth keeping, just finish."
    )
