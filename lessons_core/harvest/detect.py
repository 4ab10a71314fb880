"""Capture candidates in one pass over a session's steps and tool results.

Four kinds of evidence that a session taught something worth a lesson:

- ``correction``: the first prompt after the agent acted reads as a correction
  ("no, use ...", "don't ...", "never ...": ``feedback.corrections``); the candidate names
  the last action before it and quotes the prompt;
- ``fail-fix``: a command failed and the next command, a changed form of it (the same
  program or target family, under a wrapper or not: ``feedback.fixes.related``),
  succeeded; or the same action succeeded later after failing with an environment error
  (``feedback.fixes.environmental``: command not found, a missing module, permission, a
  wrong directory). The same test failing, code edited, the test passing is the ordinary
  loop, no candidate;
- ``recurring``: the same action failed twice or more with the same error class
  (``feedback.failures``, which also says when two calls are the same action);

An edit tool's own failure (its old text not found, the file not read) is the agent's
slip: it is neither a fail-fix nor a recurring failure.
- ``gate-ignored``: a lessons gate refused a call and the agent sent the very same call
  again, so the lesson shown did not change the action.

Every item is looked at once, in order, and what is kept per session is bounded by the
calls still waiting for their result and one entry per distinct action: the time is
linear in the transcript's length. A result text is classified and dropped, never kept.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field, replace

import orjson

from lessons_core.authoring.secrets import mask_secrets
from lessons_core.delivery.tool_action import ToolAction
from lessons_core.eval.replay_report import is_refusal
from lessons_core.eval.transcripts import Result, Step, ToolCall
from lessons_core.feedback.corrections import find_correction
from lessons_core.feedback.failures import error_class
from lessons_core.feedback.fixes import environmental, related
from lessons_core.recall.render import first_sentence, whole
from lessons_core.session.action import ActionId, precise

CORRECTION, FAIL_FIX, RECURRING = "correction", "fail-fix", "recurring"
GATE_IGNORED = "gate-ignored"
KINDS = (CORRECTION, FAIL_FIX, RECURRING, GATE_IGNORED)
RECURS_AT = 2
QUOTE_CHARS = 240
# The lessons a refusal showed: by each rule's line, "- RULE (why)", the rule as recall
# shows it (``shown_rules``, from the store), or "- RULE … (why) [ID]" for a rule cut
# short; in sessions recorded before, by the refusal's first line, "Not run yet: ...
# [ID, ID]", or each rule's line led by its id, "- ID: rule (why)".
_ID = r"[a-z0-9][a-z0-9._-]*"
# The harness may put words of its own before it ("... hook blocking error from command: ").
_GATE_IDS = re.compile(rf"Not run yet: [^\n]* \[({_ID}(?:, {_ID})*)\]$", re.M)
_SHOWN_ID = re.compile(rf"^- ({_ID}): |^- .* \[({_ID})\]$", re.M)


# What a tool call is about, from its name, input and the folder the session ran in: each
# harness names its tools differently, so the caller says.
ActionOf = Callable[[ToolCall, str | None], ToolAction]


@dataclass(frozen=True)
class Found:
    """One candidate as the transcript showed it, before triggers and coverage."""

    kind: str
    session: str
    time: str
    line: int
    action: ToolAction
    evidence: str  # the quoted correction, or the error class; masked
    count: int = 1
    fix: str = ""  # for a fail-fix by a changed command: that command, masked


@dataclass(frozen=True)
class _Failed:
    key: ActionId
    words: list[str]
    error: str
    step: Step
    action: ToolAction


@dataclass
class _Session:
    pending: dict[str, tuple[Step, ToolAction]] = field(default_factory=dict)
    last_action: tuple[Step, ToolAction] | None = None
    # action -> the first environment error class it failed with ("" for none yet)
    failing: dict[ActionId, str] = field(default_factory=dict)
    # the last command that failed, while no other command ran after it
    last_failed: _Failed | None = None
    fixed: set[ActionId] = field(default_factory=set)
    failures: dict[tuple[ActionId, str], int] = field(default_factory=dict)
    recurring: dict[tuple[ActionId, str], int] = field(default_factory=dict)  # -> index in found
    # tool name -> the input a gate refused, and the lessons it showed
    refused: dict[str, tuple[bytes, tuple[str, ...]]] = field(default_factory=dict)
    ignored: set[bytes] = field(default_factory=set)


class Detector:
    """Feed it steps and results in file order; read ``found`` at the end."""

    def __init__(self, action_of: ActionOf, shown_rules: Mapping[str, str] | None = None) -> None:
        self.action_of = action_of
        # each active lesson's rule as a block shows it -> its id (``shown_rules``)
        self.shown_rules = shown_rules or {}
        self.found: list[Found] = []
        self._sessions: dict[str, _Session] = {}
        self._owner: dict[str, str] = {}  # call id -> session, for results

    def feed_all(self, items: Iterable[Step | Result]) -> list[Found]:
        for item in items:
            self.feed(item)
        return self.found

    def feed(self, item: Step | Result) -> None:
        if isinstance(item, Result):
            self._result(item)
        elif item.kind == "tool" and item.call is not None:
            self._call(item, item.call)
        elif item.kind == "prompt" and item.prompt:
            self._prompt(item, item.prompt)

    def _session(self, step: Step) -> _Session:
        # A subagent's calls are its own thread of actions within the session.
        key = f"{step.session_id}\x1f{step.agent_id or ''}"
        return self._sessions.setdefault(key, _Session())

    def _call(self, step: Step, call: ToolCall) -> None:
        state = self._session(step)
        action = self.action_of(call, step.cwd)
        signature = _signature(call)
        refused, shown = state.refused.pop(call.name, (None, ()))
        if refused == signature and signature not in state.ignored:
            state.ignored.add(signature)
            about = f" showed {', '.join(shown)}" if shown else ""
            self._add(
                GATE_IGNORED, step, action, f"sent again unchanged after a lessons gate{about}"
            )
        state.pending[call.id] = (step, action)
        self._owner[call.id] = f"{step.session_id}\x1f{step.agent_id or ''}"

    def _result(self, result: Result) -> None:
        owner = self._owner.pop(result.call_id, None)
        state = self._sessions.get(owner) if owner is not None else None
        if state is None or result.call_id not in state.pending:
            return
        step, action = state.pending.pop(result.call_id)
        if result.failed and is_refusal(result.text):
            if step.call is not None:
                shown = _shown_ids(result.text, self.shown_rules)
                state.refused[step.call.name] = (_signature(step.call), shown)
            return
        if action.is_empty:
            return
        state.last_action = (step, action)
        # Most calls succeed with nothing failing before them: their identity is not needed.
        if not result.failed and not state.failing and state.last_failed is None:
            return
        key = precise(action.files, action.command)
        if key is None:
            return
        error = error_class(result.text, edit=bool(action.files)) if result.failed else ""
        if action.files and result.failed and not environmental(error):
            return  # the edit tool's own error: the agent's slip, not the project's
        if action.command is not None:
            self._after_command(state, step, action, key, error)
        if result.failed:
            self._failed(state, step, action, key, error)
        elif key in state.failing and key not in state.fixed:
            first = state.failing.pop(key)
            if first:  # the same action passing is evidence after an environment error only
                state.fixed.add(key)
                self._add(FAIL_FIX, step, action, first)

    def _failed(
        self, state: _Session, step: Step, action: ToolAction, key: ActionId, error: str
    ) -> None:
        known = state.failing.get(key, "")
        state.failing[key] = known or (error if environmental(error) else "")
        count = state.failures.get((key, error), 0) + 1
        state.failures[(key, error)] = count
        if count == RECURS_AT:
            state.recurring[(key, error)] = len(self.found)
            self._add(RECURRING, step, action, error, count)
        elif count > RECURS_AT:
            at = state.recurring[(key, error)]
            self.found[at] = replace(self.found[at], count=count)

    def _after_command(
        self, state: _Session, step: Step, action: ToolAction, key: ActionId, error: str
    ) -> None:
        """A command's result: a changed form of the command that failed just before it
        fixed that one when it succeeded; a failure becomes the one the next may fix."""
        # The action is the anchored words: read them back rather than parse the command again.
        words = key.words.split(" ")
        before, state.last_failed = state.last_failed, None
        if error:
            # A further failing attempt at the same intent keeps the first one it fixes.
            keep = before is not None and (before.key == key or related(before.words, words))
            state.last_failed = before if keep else _Failed(key, words, error, step, action)
            return
        if before is None or before.key == key or not related(before.words, words):
            return
        if before.key in state.fixed:
            return
        state.fixed.add(before.key)
        state.failing.pop(before.key, None)
        fix = " ".join(mask_secrets(action.command or "").split())
        self._add(FAIL_FIX, before.step, before.action, before.error, fix=fix)

    def _prompt(self, step: Step, prompt: str) -> None:
        state = self._session(step)
        acted, state.last_action = state.last_action, None
        if acted is not None and find_correction(prompt) is not None:
            self._add(CORRECTION, step, acted[1], _quote(prompt))

    def _add(
        self,
        kind: str,
        step: Step,
        action: ToolAction,
        evidence: str,
        count: int = 1,
        fix: str = "",
    ) -> None:
        masked = mask_secrets(evidence)
        found = Found(kind, step.session_id, step.time, step.line, action, masked, count, fix)
        self.found.append(found)


def _signature(call: ToolCall) -> bytes:
    """The call's input, canonical: two calls with equal signatures are the same call."""
    return orjson.dumps(call.input, option=orjson.OPT_SORT_KEYS)


def _quote(prompt: str) -> str:
    """The prompt on one line, cut to ``QUOTE_CHARS``: the whole of a usual correction."""
    line = " ".join(prompt.split())
    return line if len(line) <= QUOTE_CHARS else line[: QUOTE_CHARS - 1] + "…"


def _shown_ids(refusal: str, rules: Mapping[str, str]) -> tuple[str, ...]:
    """The ids of the lessons a refusal's text showed (``_GATE_IDS``, ``_SHOWN_ID``, and
    ``rules``: each rule as a block shows it, to its lesson's id), in order."""
    named = _GATE_IDS.search(refusal)
    if named:
        return tuple(dict.fromkeys(named.group(1).split(", ")))
    ids: list[str] = []
    for line in refusal.splitlines():
        found = _rule_id(line, rules)
        if found is None:  # a cut rule, or a line recorded before
            match = _SHOWN_ID.match(line)
            found = _whole_id(match.group(1) or match.group(2), rules) if match else None
        if found:
            ids.append(found)
    return tuple(dict.fromkeys(ids))


def _whole_id(shown: str, rules: Mapping[str, str]) -> str:
    """The id a cut rule's line names by its start (``render.short_id``): the one id of
    ``rules`` that starts so, else ``shown`` as it is (a whole id, or one since gone)."""
    ids = set(rules.values())
    if shown in ids:
        return shown
    starting = [lesson for lesson in ids if lesson.startswith(shown)]
    return starting[0] if len(starting) == 1 else shown


def _rule_id(line: str, rules: Mapping[str, str]) -> str | None:
    """The id of the lesson whose rule ``line`` ("- RULE (why)", or "- RULE" for a rule
    about the very file or command) shows: the rule ends at one of the line's " (", tried
    from the left, since a label may hold brackets too, or at the line's end."""
    if not line.startswith("- ") or not rules:
        return None
    whole = rules.get(line[2:])
    if whole is not None:
        return whole
    cut = line.find(" (", 2)
    while cut != -1:
        found = rules.get(line[2:cut])
        if found is not None:
            return found
        cut = line.find(" (", cut + 1)
    return None


def shown_rules(ids: Iterable[str], rules: Iterable[str]) -> dict[str, str]:
    """Each rule as a block shows it (``render.hit_line``'s rule part) -> its lesson's id."""
    return {first_sentence(whole(rule)): lesson for lesson, rule in zip(ids, rules, strict=True)}
