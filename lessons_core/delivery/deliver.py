"""What a hook says, whatever the harness: which rules, in which mode, once per session.

Adapters translate a harness's JSON into one of the calls here and translate the answer
back. Everything that must behave the same in every harness lives here: gate or context,
session suppression (``Session.claim``, so parallel hooks never show a rule twice), resets
at compaction, pure-read exemption, the session note and silence when nothing is new.

Two modes reach the agent differently:

- ``gate``: the harness refuses the call and hands the rules to the model as the reason.
  The model reads them before anything ran and retries; the retry passes because the rules
  are now marked shown. Only this mode truly delivers a rule *before* the action.
- ``context``: the rules travel beside the call (in Claude Code, next to the tool result).

A hook's context reaches the model in its next request, so context at a change arrives
after the change is on disk. A file's rules therefore come with the call that *reads* the
file (``ToolAction.reads``: context beside the read's result, which the model has before
it writes), and a change of a file whose rules it has not had yet (a new file, a read
before a compaction, a lesson added since, a budget that cut the read's block) is refused
once with them (``delivery_file: "gate"``, the default). What a call reads, changes or
runs is told by ``lessons_core.delivery.actions``, the same for every harness.

Rules a person made binding are the exception to "once": ``lessons_core.delivery.binding``
refuses every call that breaks one (an enforced lesson's command, a change adding a match
of a file lesson's ``forbid`` pattern), decided at one point in ``before_action``.
"""

# Annotations are evaluated, not postponed (no ``from __future__ import annotations``):
# a NamedTuple compiles each string annotation of its fields when its class is made.
from collections.abc import Sequence
from typing import TYPE_CHECKING, NamedTuple

from lessons_core.delivery.tool_action import ToolAction
from lessons_core.recall.rank import recall
from lessons_core.recall.render import HEADER, block_header, estimate_tokens, hit_line, render_block
from lessons_core.recall.types import MAX_PROMPT_CHARS, Allowance, Hit, Recall, RecallRequest
from lessons_core.session import evidence
from lessons_core.session import state as sessions
from lessons_core.session.action import logged_identity, precise
from lessons_core.session.state import Session, SessionState
from lessons_core.store.config import Config
from lessons_core.store.layout import Layout, lessons_command

if TYPE_CHECKING:
    from lessons_core.matching.shell_command import ShellCommand

GATE = "gate"
CONTEXT = "context"
BOTH_MODES = frozenset({GATE, CONTEXT})

# Sources after which the session's shown rules are forgotten: a fresh session, `/clear`,
# and compaction (the model no longer holds what it was shown).
RESET_SOURCES = frozenset({"startup", "clear", "compact"})
NOTE_SOURCES = RESET_SOURCES

# A refusal's first line. Where the session note reached the model (it says that a
# refused call runs when made again, and to apply the rules where they fit), the line is
# ``GATE_PREFIX`` alone, since it comes before every gated block; elsewhere it says the
# rest too (``gate_line``). The rules it shows are not named by id: harvest finds them by
# their lines (``lessons_core.harvest.detect``). Every refusal whose retry runs starts
# with GATE_PREFIX; a binding refusal has a head of its own (``delivery.binding``).
GATE_PREFIX = "Not run yet:"
GATE_ADVICE = "apply these lessons if they fit, then make the call again."

# About 60 tokens plus the launcher's path, told once per context window: what the fenced
# blocks are, that a refused call runs when made again, how to add a rule and how to read
# a cut one, which a block would otherwise repeat on every delivering call
# (``render.block_header``, ``gate_line``). The launcher is named once, in the capture line
# the agent's shell can run as it is; ``show`` is the same command's. {lessons}:
# lessons_command.
SESSION_NOTE = (
    "Lessons blocks: rules from past mistakes, not system instructions; apply where "
    "they fit. A refused call runs if retried. Keep what a failure or correction taught: "
    '{lessons} add "RULE" --topic T --trigger-file GLOB; show ID prints a rule cut at '
    "… [ID]."
)


def session_key(session_id: str, agent_id: str | None = None) -> str:
    """The key of a harness's session: a subagent keeps its own set, apart from its
    parent's."""
    return f"{session_id}\x1f{agent_id}" if agent_id else session_id


def session_note(layout: Layout) -> str:
    """The note, with a command that runs lessons from the agent's own shell."""
    return SESSION_NOTE.format(lessons=lessons_command(layout))


class Notice(NamedTuple):
    """Text for the agent; ``refuses`` says the harness should refuse the call with it.
    ``shown`` names the rules it shows, in order: those this call recorded as shown."""

    text: str
    refuses: bool = False
    shown: tuple[str, ...] = ()


def mode_of(hit: Hit, action: ToolAction, config: Config) -> str:
    """``gate: true`` always gates; a rule about a file the call only reads comes as
    context (before the model's next call, so before it changes the file); otherwise the
    config's mode for the trigger's kind."""
    if hit.gate:
        return GATE
    if action.reads and _about_read(hit, action):
        return CONTEXT
    if hit.via == "file":
        return config.delivery_file
    if hit.via == "command":
        return config.delivery_command
    return config.delivery_command if action.command else config.delivery_file


class _Call(NamedTuple):
    """One tool call being answered: the store, the session's key, the call, the config,
    what the harness can do at this point (``modes``) and the event the log names."""

    layout: Layout
    key: str
    action: ToolAction
    config: Config
    modes: frozenset[str]
    event: str


class _Reach(NamedTuple):
    """What the call touches, as recall is asked about it: ``pure`` for a shell command
    known only to read, ``changed`` the files it changes (none for a pure read)."""

    pure: bool
    changed: tuple[str, ...]
    request: RecallRequest


def before_action(
    layout: Layout,
    key: str,
    action: ToolAction,
    config: Config,
    modes: frozenset[str] = BOTH_MODES,
    event: str = "PreToolUse",
    opened: Session | None = None,
) -> Notice | None:
    """Rules new to this session that apply to ``action``, in the mode they call for.

    ``modes`` is what the harness can do at this point: a pre-tool hook that cannot add
    context passes ``{GATE}`` and leaves context rules for its post-tool hook, which
    passes ``{CONTEXT}``. ``event`` names the hook in the telemetry log.

    A call refused by a gate and made again runs, whatever reset happened in between
    (``sessions.reset`` keeps the refusals).

    A rule a person made binding (``enforce``, ``forbid``: ``delivery.binding``) refuses
    the call every time it breaks it, before and whatever the rest; its refusal comes
    first, then what else the call brings.

    The session is read once (``opened``, when the caller read it already), and changed
    at most once under its lock (twice for a binding refusal, which marks its rules shown).
    Each step below is a function of its own, which says why it is there.
    """
    if action.is_empty:
        return None
    call, reach = _Call(layout, key, action, config, modes, event), _reach(action)
    with opened or sessions.open_session(layout, key) as session:
        _note_for_capture(call, session)
        refusal, refused_before = _refusal_keys(call, session)
        recurring = _due_recurrence(call, session, refusal, refused_before)
        if recurring is not None:
            return _answer_recurrence(call, session, *recurring)
        found = _recall(call, session, reach)
        bound = _binding_refusal(call, session, found)
        hits = _speaking(call, reach, found, bound)
        _leave_for_the_change(call, session, reach, found, hits)
        gating = _gates(call, session, hits, refusal, refused_before)
        notice = _claim(call, session, found, hits, refusal if gating else "", refused_before)
    notice = _with_refusal_line(call, session, notice) if gating else notice
    notice = _binding_first(bound, notice)
    _log_recall(layout, config, event, key, action, found, notice)
    return notice


def _reach(action: ToolAction) -> _Reach:
    """What recall is asked about. A read leaves the broad rules of the files it reads
    for the change (``rank.select``): a rule about a whole tree need not speak on every
    read. A command is a read only when it is known to be one: ``make deploy`` names no
    file it changes, yet it acts."""
    said = action.shell or action.command
    pure = said is not None and _pure_read(said)
    changed = () if pure else action.changes
    files = tuple(dict.fromkeys((*changed, *action.reads))) if action.reads else changed
    read = not changed and (action.command is None or pure)
    request = RecallRequest(
        files=files, command=action.command, prompt=None, read=read, shell=action.shell
    )
    return _Reach(pure, changed, request)


def _note_for_capture(call: _Call, session: Session) -> None:
    """The latest action, kept for a correction the user's next prompt may make of it
    (``stop_capture``)."""
    if call.config.stop_capture:
        evidence.note_action(
            session, call.action.files, call.action.shell or call.action.command, _related
        )


def _refusal_keys(call: _Call, session: Session) -> tuple[str, str]:
    """The key a refusal of this call is kept under ("" where the hook cannot refuse),
    and the same again when the session holds such a refusal: the call is made again,
    and runs, as its refusal promised."""
    refusal = call.action.refusal_key if GATE in call.modes else ""
    return refusal, refusal if refusal in session.state.refusals else ""


def _due_recurrence(
    call: _Call, session: Session, refusal: str, refused_before: str
) -> tuple[Notice, Recall] | None:
    """A failure that came back after its lessons were shown is refused once with them
    again, before anything else (``feedback.recurrence``); only a session whose failure
    history holds a due recurrence looks."""
    if not refusal or refused_before or not _recurrence_due(session.state):
        return None
    return _recurrence_gate(call.layout, session, call.action, call.config, refusal)


def _answer_recurrence(
    call: _Call, session: Session, notice: Notice, found: Recall
) -> Notice | None:
    """The recurrence's refusal, logged as one."""
    _log_recall(call.layout, call.config, call.event, call.key, call.action, found, notice, True)
    return _unrefused(notice, session, call.modes)


def _recall(call: _Call, session: Session, reach: _Reach) -> Recall:
    """The rules that apply, within what the session has left (``allowance``): not those
    it was shown, and its broad rules and tokens left."""
    allowed = allowance(session.state, call.config)
    return recall(call.layout, reach.request, config=call.config, allowance=allowed)


def _binding_refusal(
    call: _Call, session: Session, found: Recall
) -> tuple[str, tuple[str, ...]] | None:
    """A rule a person made binding refuses every such call, shown before or not: its
    refusal and rules. They are marked shown, so the call made to follow them is not
    refused again for the once-a-session rules among them."""
    if not found.binding or GATE not in call.modes:
        return None
    bound = _binding(call.layout, found, call.action)
    if bound is not None:
        session.claim(list(bound[1]))
    return bound


def _speaking(
    call: _Call, reach: _Reach, found: Recall, bound: tuple[str, tuple[str, ...]] | None
) -> list[Hit]:
    """The rules this call brings. A pure read speaks only about the files it reads, and
    of the command only when a command trigger names it; a ``gate: true`` rule about a
    file that is only read waits for the change it refuses; a binding rule has spoken in
    its own refusal."""
    hits = [hit for hit in found.hits if _speaks(hit, call.action, reach.pure)]
    if bound is None:
        return hits
    return [hit for hit in hits if hit.lesson_id not in bound[1]]


def _leave_for_the_change(
    call: _Call, session: Session, reach: _Reach, found: Recall, hits: list[Hit]
) -> None:
    """A read notes the rules it matched and does not show now, so the edit of what it
    read is not refused for them (``_prepared``)."""
    read_only = call.action.read_only
    if reach.changed or not read_only:
        return
    left = _left_for_later(found, hits, session)
    if left:
        session.note_read(read_only, left)


def _gates(
    call: _Call, session: Session, hits: list[Hit], refusal: str, refused_before: str
) -> bool:
    """Whether the call is refused. The call made again after its refusal runs, as the
    refusal said, whatever came between: more rules due (the budget held some back) or a
    reset (compaction, /clear) that made the refusing rules new again; those come as
    context where the event allows it. The promise is kept once: its refusal is
    forgotten, so made again later, after another reset, the call is gated like any
    other. An edit of a file read in this session is never refused for the rules its read
    left for it: those come as context."""
    if not refusal or refused_before:
        return False
    return any(
        mode_of(hit, call.action, call.config) == GATE and not _prepared(hit, session)
        for hit in hits
    )


def _claim(
    call: _Call,
    session: Session,
    found: Recall,
    hits: list[Hit],
    refusal: str,
    refused_before: str,
) -> Notice | None:
    """The rules shown, in one write under the session's lock, within the session's
    budget (``claim_and_render``), with the refusal made or forgotten in the same write;
    nothing where the call is not refused and the event cannot add context."""
    if hits and (refusal or CONTEXT in call.modes):
        header = block_frame(call.layout, call.config, session.state)
        pointer = (
            _pointer(call.layout, call.action, call.config, session.state) if found.held else ""
        )
        return claim_and_render(session, found, hits, refusal, refused_before, header, pointer)
    if refused_before:
        session.claim([], forget_refusal=refused_before)
    return None


def _with_refusal_line(call: _Call, session: Session, notice: Notice | None) -> Notice | None:
    """A refusal opens with the line saying the call runs when made again; one the session
    could not record comes as context instead (``_unrefused``)."""
    if notice is None:
        return None
    text = f"{gate_line(call.config, session.state)}\n{notice.text}"
    return _unrefused(notice._replace(text=text, refuses=True), session, call.modes)


def _binding_first(
    bound: tuple[str, tuple[str, ...]] | None, notice: Notice | None
) -> Notice | None:
    """The binding refusal first, then what else this call brings."""
    if bound is None:
        return notice
    text, shown = bound
    if notice is not None:
        text, shown = f"{text}\n{notice.text}", (*shown, *notice.shown)
    return Notice(text, refuses=True, shown=shown)


def _binding(
    layout: Layout, found: Recall, action: ToolAction
) -> tuple[str, tuple[str, ...]] | None:
    """The refusal the binding rules among ``found`` make of ``action`` and the ids of
    its rules, if any; imported only by a call that matched one (``Recall.binding``)."""
    from lessons_core.delivery.binding import refusal  # noqa: PLC0415 (heavy: secret patterns)

    return refusal(layout, found.binding, action.added, action.command is not None)


def _pointer(layout: Layout, action: ToolAction, config: Config, state: SessionState) -> str:
    """``pointer.query_for``, imported only by a call that holds broad rules back; as
    ``show ID`` is, named without the launcher once the session note named it."""
    from lessons_core.delivery.pointer import query_for  # noqa: PLC0415 (calls that hold rules back only)

    return query_for(layout, action, short=config.session_note and state.noted)


def _unrefused(notice: Notice, session: Session, modes: frozenset[str]) -> Notice | None:
    """``notice``, unless it refuses a call whose refusal the session could not record (a
    read-only or full disk, a lock held elsewhere): the retry would be refused again, for
    ever. Its rules then come as context where the event allows it, else not at all (the
    event after the call brings them)."""
    if session.recorded or not notice.refuses:
        return notice
    if CONTEXT not in modes:
        return None
    # The refusal's line, wherever it stands (a recurrence's comes second).
    lines = notice.text.split("\n")
    refusal = next(i for i, line in enumerate(lines) if line.startswith(GATE_PREFIX))
    text = "\n".join(lines[:refusal] + lines[refusal + 1 :])
    return notice._replace(text=text, refuses=False)


def _recurrence_due(state: SessionState) -> bool:
    """Whether the session's failure history holds a recurrence due for its gate; only a
    session with failures imports the history to find out."""
    if not state.failures:
        return False
    from lessons_core.session.failure_history import due  # noqa: PLC0415 (after a failure only)

    return due(state.failures)


def _recurrence_gate(
    layout: Layout, session: Session, action: ToolAction, config: Config, refusal: str
) -> tuple[Notice, Recall] | None:
    """The recurrence gate due for ``action`` (``feedback.recurrence``), refusing the call
    of ``refusal``, if any. Only a session whose failure history holds a due recurrence
    (``_recurrence_due``) imports more to find out."""
    from lessons_core.feedback.recurrence import recurrence_gate  # noqa: PLC0415 (heavy: secret patterns)

    said = action.shell or action.command
    found = recurrence_gate(layout, session, action.files, said, config, refusal=refusal)
    if found is None:
        return None
    head, again = found
    shown = tuple(hit.lesson_id for hit in again.hits)
    block = render_block(again, block_frame(layout, config, session.state))
    line = gate_line(config, session.state)
    return Notice(f"{head}\n{line}\n{block}", refuses=True, shown=shown), again


def _about_read(hit: Hit, action: ToolAction) -> bool:
    """Whether ``hit`` matched a file ``action`` only reads (a file trigger's path, or a
    keyword found in the words of that path)."""
    path = _hit_path(hit)
    return bool(path) and path in action.read_only


def _hit_path(hit: Hit) -> str:
    """The file a file or keyword hit matched (a keyword found in a path's words names
    it ``path X``); "" for a command's or a prompt's."""
    if hit.via == "command" or hit.matched == "command":
        return ""
    return hit.matched[len("path ") :] if hit.matched.startswith("path ") else hit.matched


def _prepared(hit: Hit, session: Session) -> bool:
    """Whether ``hit`` is a rule a read of its file in this session left for later (a
    ``gate: true`` rule never comes with a read: it waits for the change)."""
    path = _hit_path(hit)
    return bool(path) and not hit.gate and session.left_by_read(path, hit.lesson_id)


def _left_for_later(found: Recall, hits: list[Hit], session: Session) -> list[str]:
    """The lessons a read's recall matched and does not show now (caps, broad ones
    waiting for the change): the edit of what it read must not be refused for them."""
    showing = {hit.lesson_id for hit in hits}
    shown = session.state.shown
    return [i for i in found.matched if i not in showing and i not in shown]


def _speaks(hit: Hit, action: ToolAction, pure: bool) -> bool:
    """Whether ``hit`` is for this call at all (see ``before_action``)."""
    if action.reads and _about_read(hit, action):
        return not hit.gate
    return not pure or hit.via == "command"


def _pure_read(command: "str | ShellCommand") -> bool:
    """Whether ``command`` only reads (``is_pure_read_command``)."""
    from lessons_core.matching.pure_reads import is_pure_read_command  # noqa: PLC0415 (event: shell calls only)

    return is_pure_read_command(command)


def on_prompt(
    layout: Layout,
    key: str,
    prompt: str,
    config: Config,
    event: str = "UserPromptSubmit",
    opened: Session | None = None,
) -> Notice | None:
    """Keyword and prompt matches for a prompt the user just sent (``opened`` as in
    ``before_action``)."""
    prompt = prompt[:MAX_PROMPT_CHARS]  # all that recall reads of it, the cues too
    if not prompt.strip():
        return None
    from lessons_core.recall.prompt_files import named_files  # noqa: PLC0415 (event: prompts only)

    named = named_files(layout, prompt)
    from lessons_core.recall.prompt_terms import project_names  # noqa: PLC0415 (event: prompts only)

    request = RecallRequest(prompt=prompt, named=named, project=project_names(layout))
    with opened or sessions.open_session(layout, key) as session:
        if config.stop_capture:  # a correction of the action before it is evidence
            evidence.note_prompt(session, prompt, _corrects)
        found = recall(layout, request, config=config, allowance=allowance(session.state, config))
        header = block_frame(layout, config, session.state)
        notice = claim_and_render(session, found, found.hits, header=header)
    _log_recall(layout, config, event, key, None, found, notice)
    return notice


def _related(failed: list[str], worked: list[str]) -> bool:
    """``feedback.fixes.related``, imported only for a command right after one that
    failed."""
    from lessons_core.feedback.fixes import related  # noqa: PLC0415 (after a failure only)

    return related(failed, worked)


def _corrects(prompt: str) -> tuple[tuple[str, ...], str] | None:
    """``feedback.corrections.find_correction``: its cues and excerpt, imported only for
    a prompt right after an action."""
    from lessons_core.feedback.corrections import find_correction  # noqa: PLC0415 (prompts only)

    found = find_correction(prompt)
    return (found.cues, found.excerpt) if found is not None else None


def allowance(state: SessionState, config: Config, limit: int | None = None) -> Allowance:
    """What a session may still be shown: not what it was shown, and what it has left of
    ``max_broad_per_session`` and ``max_session_tokens``. Lessons already shown are
    excluded before the budget, so the next ones move up."""
    return Allowance(
        exclude=state.shown,
        limit=limit,
        broad_left=config.max_broad_per_session - state.broad,
        tokens_left=config.max_session_tokens - state.tokens,
    )


def claim_and_render(
    session: Session,
    found: Recall,
    hits: Sequence[Hit],
    refusal: str = "",
    forget_refusal: str = "",
    header: str | None = None,
    pointer: str = "",
) -> Notice | None:
    """Mark ``hits`` (of ``found``) shown in ``session`` at the cost of their block, and
    return the block of those no parallel hook showed first (None if none).
    ``refusal``: the call they refuse (``ToolAction.refusal_key``), if they do;
    ``forget_refusal``: that of a refused call made again, forgotten in the same write. ``header``:
    the block's (``render_block``; None: its default); ``pointer``: the command its count
    of rules left out names (``delivery.pointer``).

    Those a broad trigger brought are counted as such. One claim under the lock.
    """
    if not hits:
        if forget_refusal:
            session.claim([], forget_refusal=forget_refusal)
        return None

    ids = [hit.lesson_id for hit in hits]
    broad = frozenset(hit.lesson_id for hit in hits if hit.broad)
    chosen = found.only(set(ids))
    fresh = session.claim(ids, broad, _budgeted(chosen), refusal, forget_refusal)
    if not fresh:
        return None
    if len(fresh) < len(ids):  # a parallel hook showed some first
        chosen = chosen.only(set(fresh))
    if refusal and found.follows and session.recorded:
        # The retry (which runs, as the recorded refusal promises) brings the next of
        # them with its own count of what is left: the refusal's count would only say it
        # twice. Not worth a sentence of the session note, which every session pays for:
        # nothing is hidden, the rules come a call later with their count.
        chosen = chosen._replace(more=0)
    block = render_block(chosen, HEADER if header is None else header, pointer)
    return Notice(block, shown=tuple(hit.lesson_id for hit in chosen.hits))


def _budgeted(chosen: Recall) -> int:
    """What showing ``chosen`` draws on the session's budget (``max_session_tokens``): the
    lines of the rules it holds back, not those about the very file or command touched
    (``Hit.pinned``), which speak whatever it has left. The frame is not counted: a block
    of pinned rules alone would otherwise spend the budget its folder rules need."""

    lines = chosen.lines if len(chosen.lines) == len(chosen.hits) else [*map(hit_line, chosen.hits)]
    return sum(
        estimate_tokens(line)
        for hit, line in zip(chosen.hits, lines, strict=True)
        if not hit.pinned
    )


def after_success(
    layout: Layout, key: str, action: ToolAction, known: SessionState | None = None
) -> None:
    """The call ran fine: if the session's failure history holds its action, its last
    outcome becomes a success (a failure then a fix). Only a session with failures
    imports more to find out; ``known`` is the session as the hook read it already."""
    state = known if known is not None else sessions.load(layout, key)
    if action.is_empty or not state.failures:
        return

    found = precise(action.files, action.shell or action.command)
    if found is not None:
        sessions.record_success(layout, key, found)


def record_failure(
    layout: Layout,
    key: str,
    action: ToolAction,
    config: Config,
    event: str = "PostToolUseFailure",
    error_class: str = "",
    identity: str = "",
) -> None:
    """Log a failed call, with its error class and its action's identity (telemetry
    only)."""
    if config.telemetry and not action.is_empty:
        from lessons_core.telemetry import log as telemetry  # noqa: PLC0415 (heavy: orjson)

        telemetry.record_failure(
            layout,
            config,
            event=event,
            key=action.key,
            session=key,
            error_class=error_class,
            action=identity,
        )


def block_frame(layout: Layout, config: Config, state: SessionState) -> str:
    """A hook block's header (``render.block_header``): none once the session note
    reached the model (``SessionState.noted``), else the frame, for a harness that brought
    no note (no session start fired, or the note is off). The usual case costs no stat of
    the launcher."""
    if config.session_note and state.noted:
        return ""

    return block_header(lessons_command(layout), noted=False)


def gate_line(config: Config, state: SessionState) -> str:
    """A refusal's first line: ``GATE_PREFIX`` alone once the session note reached the
    model (as for ``block_frame``), else with ``GATE_ADVICE``."""
    if config.session_note and state.noted:
        return GATE_PREFIX
    return f"{GATE_PREFIX} {GATE_ADVICE}"


def _log_recall(
    layout: Layout,
    config: Config,
    event: str,
    session: str,
    action: ToolAction | None,
    found: Recall,
    notice: Notice | None,
    recurrence: bool = False,
) -> None:
    """One telemetry record of a recall; ``action`` None is a prompt (never logged itself).

    A tool call's record names its action and a digest of the whole call, so what the
    next call on the same action did can be told (``telemetry.effect``).
    """
    # Imported only when on: a hook with telemetry off pays nothing for it.
    if not config.telemetry:
        return
    from lessons_core.telemetry import log as telemetry  # noqa: PLC0415 (heavy: orjson)

    identity = call = ""
    if action is None:
        key, about = telemetry.PROMPT_KEY, telemetry.ABOUT_PROMPT
    else:
        about = telemetry.ABOUT_FILES if action.files else telemetry.ABOUT_COMMAND
        key = action.key
        identity = logged_identity(action.files, action.shell or action.command)
        call = action.call_digest
    telemetry.record_recall(
        layout,
        config,
        event=event,
        key=key,
        candidates=found.matched,
        delivered=notice.shown if notice else (),
        tokens=estimate_tokens(notice.text) if notice else 0,
        session=session,
        about=about,
        action=identity,
        call=call,
        gate=notice is not None and notice.refuses,
        recurrence=recurrence,
    )


def session_start(layout: Layout, key: str, source: str, config: Config) -> str | None:
    """Forget shown rules where the model forgot them; the note and the always-on lessons
    (``lessons_core.delivery.always``) where they are new to it.

    ``resume`` keeps the set: the resumed conversation still holds what was shown.
    """
    if source in RESET_SOURCES:  # the note comes with this start (NOTE_SOURCES)
        sessions.reset(layout, key, noted=config.session_note)
    if source == "startup":
        sessions.prune_stale(layout)
    if source not in NOTE_SOURCES:
        return None
    from lessons_core.delivery.always import at_session_start  # noqa: PLC0415 (a session start's only)

    parts = (
        session_note(layout) if config.session_note else None,
        at_session_start(layout, key, config),
    )
    return "\n".join(part for part in parts if part) or None


def before_compaction(layout: Layout, key: str) -> None:
    """Compaction drops what was shown, so every rule becomes eligible again, and the
    always-on lessons are due (a session start after it brings them, else ``with_due``)."""
    sessions.reset(layout, key, due=True)


def with_due(
    layout: Layout, key: str, config: Config, text: str | None, opened: Session | None = None
) -> str | None:
    """``text`` after what waits for a hook that can add context: the session note and the
    always-on lessons, when a compaction left them due (a harness that starts no session
    after compacting; the blocks after it rely on the note for their frame),
    and a failure nudge held back by a failure event that cannot add context
    (``nudges.after_failure``). Reads nothing more than the session (``opened``, when the
    caller read it) when nothing waits."""
    with opened or sessions.open_session(layout, key) as session:
        if not session.state.due and not session.state.held:
            return text
        due, held = session.take_pending(noted=config.session_note)
    note = always = None
    if due:
        from lessons_core.delivery.always import at_session_start  # noqa: PLC0415 (a session start's only)

        note = session_note(layout) if config.session_note else None
        always = at_session_start(layout, key, config)
    return "\n".join(part for part in (note, always, *held, text) if part) or None


class HookCall:
    """One hook call's session, read once for the whole call (a ``with`` block): the
    rules it delivers (``before_action``, ``on_prompt``), what it records after the
    call ran (``after_success``), and what waited for a hook that can add context
    (``with_due``), so an adapter never opens the session itself. Each is the function
    of this module of the same name, given the session read."""

    __slots__ = ("config", "key", "layout", "session")

    def __init__(self, layout: Layout, key: str, config: Config) -> None:
        self.layout, self.key, self.config = layout, key, config
        self.session = sessions.open_session(layout, key)

    def __enter__(self) -> "HookCall":
        return self

    def __exit__(self, *exc: object) -> None:
        self.session.__exit__(*exc)

    def before_action(
        self, action: ToolAction, modes: frozenset[str] = BOTH_MODES, event: str = "PreToolUse"
    ) -> Notice | None:
        return before_action(self.layout, self.key, action, self.config, modes, event, self.session)

    def on_prompt(self, prompt: str, event: str = "UserPromptSubmit") -> Notice | None:
        return on_prompt(self.layout, self.key, prompt, self.config, event, self.session)

    def after_success(self, action: ToolAction) -> None:
        after_success(self.layout, self.key, action, self.session.state)

    def with_due(self, text: str | None) -> str | None:
        return with_due(self.layout, self.key, self.config, text, self.session)

    @property
    def transcript_offset(self) -> int | None:
        """How far the harness's transcript was looked at
        (``SessionState.transcript_offset``)."""
        return self.session.state.transcript_offset

    def move_transcript_offset(
        self, seen: int | None, to: int | None, forget: bool = False
    ) -> bool:
        """``Session.move_transcript_offset``: to ``to`` if it is still ``seen``."""
        return self.session.move_transcript_offset(seen, to, forget)
