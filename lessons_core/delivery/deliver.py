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

from __future__ import annotations

from lessons_core.recall.rank import recall
from lessons_core.recall.types import MAX_PROMPT_CHARS, Allowance, RecallRequest
from lessons_core.records import NamedTuple
from lessons_core.session import evidence
from lessons_core.session import state as sessions
from lessons_core.session.action import call_digest, digest
from lessons_core.store.layout import lessons_command

TYPE_CHECKING = False  # typing costs a hook ~8 ms: lessons_core.records
if TYPE_CHECKING:
    from collections.abc import Sequence

    from lessons_core.recall.types import Hit, Recall
    from lessons_core.session.state import Session, SessionState
    from lessons_core.store.config import Config
    from lessons_core.store.layout import Layout

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


class ToolAction(NamedTuple):
    """What a tool call is about to touch: repo-relative files it changes (an edit tool's),
    or a shell command; and the repo-relative files it only reads (a read tool's, or those
    a shell command reads) and those a shell command writes."""

    files: tuple[str, ...] = ()
    command: str | None = None
    # The tool's input, read only to tell a changed retry from a repeated one.
    content: object = None
    reads: tuple[str, ...] = ()
    writes: tuple[str, ...] = ()
    # (repo-relative file, text the call adds to it): an edit's new text, a write's whole
    # content, a patch's added lines, a here-document a command writes into the file;
    # what a ``forbid`` pattern is searched in (``lessons_core.delivery.binding``).
    added: tuple[tuple[str, str], ...] = ()

    @property
    def is_empty(self) -> bool:
        return not self.files and not self.command and not self.reads

    @property
    def changes(self) -> tuple[str, ...]:
        """Every file the call changes: an edit tool's, and those a command writes."""
        return (*self.files, *self.writes) if self.writes else self.files

    @property
    def read_only(self) -> tuple[str, ...]:
        """The files the call reads and does not change."""
        changed = self.changes
        return tuple(f for f in self.reads if f not in changed)

    @property
    def key(self) -> str:
        """What telemetry calls the call: its files, else its command. A failure hook
        builds the same ``ToolAction`` from its payload, so a failure and the recall
        before it share this key; a gate's refusal is kept as its digest."""
        return " ".join(self.files) if self.files else self.command or ""

    @property
    def digest(self) -> str:
        """A digest of the whole call: its command, or its files and the tool's input (an
        edit retried with other text is another call)."""
        return call_digest(self.key, None if self.command else self.content)


class Notice(NamedTuple):
    """Text for the agent; ``gate`` says the harness should refuse the call with it.
    ``shown`` names the rules it shows, in order: those this call recorded as shown."""

    text: str
    gate: bool = False
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
    """
    if action.is_empty:
        return None
    pure = action.command is not None and _pure_read(action.command)
    changed = () if pure else action.changes
    files = tuple(dict.fromkeys((*changed, *action.reads))) if action.reads else changed
    # A read leaves the broad rules of the files it reads for the change (``rank.select``):
    # a rule about a whole tree need not speak on every read. A command is a read only
    # when it is known to be one: ``make deploy`` names no file it changes, yet it acts.
    read = not changed and (action.command is None or pure)
    request = RecallRequest(files=files, command=action.command, prompt=None, read=read)
    with opened or sessions.open_session(layout, key) as session:
        if config.stop_capture:  # the latest action, for a correction after it
            evidence.note_action(session, action.files, action.command, _related)
        mark = digest(action.key) if GATE in modes else ""
        refused = mark if mark in session.state.gates else ""
        if mark and not refused and _recurrence_due(session.state):
            recurring = _recurrence_gate(layout, session, action, config, mark)
            if recurring is not None:
                _log_recall(layout, config, event, key, action, recurring[1], recurring[0], True)
                return _unrefused(recurring[0], session, modes)
        found = recall(layout, request, config=config, allowance=allowance(session.state, config))
        # A rule a person made binding refuses every such call, shown before or not; its
        # rules are marked shown, so the call made to follow them is not refused again.
        bound = _binding(layout, found, action) if found.binding and GATE in modes else None
        # A pure read speaks only about the files it reads, and of the command only when
        # a command trigger names it; a ``gate: true`` rule about a file that is only
        # read waits for the change it refuses.
        hits = [hit for hit in found.hits if _speaks(hit, action, pure)]
        if bound is not None:
            hits = [hit for hit in hits if hit.lesson_id not in bound[1]]
            session.claim(list(bound[1]))
        if not changed and action.read_only:
            left = _left_for_later(found, hits, session)
            if left:
                session.note_read(action.read_only, left)
        # The call made again after its refusal runs, as the refusal said, whatever came
        # between: more rules due (the budget held some back) or a reset (compaction,
        # /clear) that made the refusing rules new again; those come as context where the
        # event allows it. The promise is kept once: its refusal is forgotten, so made
        # again later, after another reset, the call is gated like any other.
        gating = bool(mark) and not refused
        # An edit of a file read in this session is never refused for the rules its read
        # left for it: those come as context.
        gating = gating and any(
            mode_of(hit, action, config) == GATE and not _prepared(hit, session) for hit in hits
        )
        notice: Notice | None = None
        if hits and (gating or CONTEXT in modes):
            notice = claim_and_render(
                session,
                found,
                hits,
                gate=mark if gating else "",
                forget=refused,
                header=block_frame(layout, config, session.state),
                pointer=_pointer(layout, action, config, session.state) if found.held else "",
            )
        elif refused:
            session.claim([], forget=refused)
    if notice is not None and gating:
        notice = _unrefused(
            notice._replace(text=f"{gate_line(config, session.state)}\n{notice.text}", gate=True),
            session,
            modes,
        )
    if bound is not None:  # the binding refusal first, then what else this call brings
        text, shown = bound
        if notice is not None:
            text, shown = f"{text}\n{notice.text}", (*shown, *notice.shown)
        notice = Notice(text, gate=True, shown=shown)
    _log_recall(layout, config, event, key, action, found, notice)
    return notice


def _binding(
    layout: Layout, found: Recall, action: ToolAction
) -> tuple[str, tuple[str, ...]] | None:
    """The refusal the binding rules among ``found`` make of ``action`` and the ids of
    its rules, if any; imported only by a call that matched one (``Recall.binding``)."""
    from lessons_core.delivery.binding import refusal

    return refusal(layout, found.binding, action.added, action.command is not None)


def _pointer(layout: Layout, action: ToolAction, config: Config, state: SessionState) -> str:
    """``pointer.query_for``, imported only by a call that holds broad rules back; as
    ``show ID`` is, named without the launcher once the session note named it."""
    from lessons_core.delivery.pointer import query_for

    return query_for(layout, action, short=config.session_note and state.noted)


def _unrefused(notice: Notice, session: Session, modes: frozenset[str]) -> Notice | None:
    """``notice``, unless it refuses a call whose refusal the session could not record (a
    read-only or full disk, a lock held elsewhere): the retry would be refused again, for
    ever. Its rules then come as context where the event allows it, else not at all (the
    event after the call brings them)."""
    if session.recorded or not notice.gate:
        return notice
    if CONTEXT not in modes:
        return None
    # The refusal's line, wherever it stands (a recurrence's comes second).
    lines = notice.text.split("\n")
    refusal = next(i for i, line in enumerate(lines) if line.startswith(GATE_PREFIX))
    text = "\n".join(lines[:refusal] + lines[refusal + 1 :])
    return notice._replace(text=text, gate=False)


def _recurrence_due(state: SessionState) -> bool:
    """Whether the session's failure history holds a recurrence due for its gate; only a
    session with failures imports the history to find out."""
    if not state.failures:
        return False
    from lessons_core.session.failure_history import due

    return due(state.failures)


def _recurrence_gate(
    layout: Layout, session: Session, action: ToolAction, config: Config, mark: str
) -> tuple[Notice, Recall] | None:
    """The recurrence gate due for ``action`` (``feedback.recurrence``), refusing the call
    ``mark`` names, if any. Only a session whose failure history holds a due recurrence
    (``_recurrence_due``) imports more to find out."""
    from lessons_core.feedback.recurrence import recurrence_gate
    from lessons_core.recall.render import render_block

    found = recurrence_gate(layout, session, action.files, action.command, config, gate=mark)
    if found is None:
        return None
    head, again = found
    shown = tuple(hit.lesson_id for hit in again.hits)
    block = render_block(again, block_frame(layout, config, session.state))
    refusal = gate_line(config, session.state)
    return Notice(f"{head}\n{refusal}\n{block}", gate=True, shown=shown), again


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


def _pure_read(command: str) -> bool:
    """``is_pure_read_command``, imported by shell calls only: each module costs a hook
    about a millisecond, and most calls are edits (rendering is imported late too)."""
    from lessons_core.matching.pure_reads import is_pure_read_command

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
    from lessons_core.recall.prompt_files import named_files
    from lessons_core.recall.prompt_terms import project_names

    named = named_files(layout, prompt)
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
    from lessons_core.feedback.fixes import related

    return related(failed, worked)


def _corrects(prompt: str) -> tuple[tuple[str, ...], str] | None:
    """``feedback.corrections.find_correction``: its cues and excerpt, imported only for
    a prompt right after an action."""
    from lessons_core.feedback.corrections import find_correction

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
    gate: str = "",
    forget: str = "",
    header: str | None = None,
    pointer: str = "",
) -> Notice | None:
    """Mark ``hits`` (of ``found``) shown in ``session`` at the cost of their block, and
    return the block of those no parallel hook showed first (None if none). ``gate``
    marks the call they refuse (the digest of its key), if they do; ``forget`` the
    refused call made again, whose refusal is forgotten in the same write. ``header``:
    the block's (``render_block``; None: its default); ``pointer``: the command its count
    of rules left out names (``delivery.pointer``).

    Those a broad trigger brought are counted as such. One claim under the lock.
    """
    if not hits:
        if forget:
            session.claim([], forget=forget)
        return None
    from lessons_core.recall.render import HEADER, render_block

    ids = [hit.lesson_id for hit in hits]
    broad = frozenset(hit.lesson_id for hit in hits if hit.broad)
    chosen = found.only(set(ids))
    fresh = session.claim(ids, broad, _budgeted(chosen), gate, forget)
    if not fresh:
        return None
    if len(fresh) < len(ids):  # a parallel hook showed some first
        chosen = chosen.only(set(fresh))
    if gate and found.follows and session.recorded:
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
    from lessons_core.recall.render import estimate_tokens, hit_line

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
    from lessons_core.session.action import precise

    found = precise(action.files, action.command)
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
        from lessons_core.telemetry import log as telemetry

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
    from lessons_core.recall.render import block_header

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
    from lessons_core.recall.render import estimate_tokens
    from lessons_core.telemetry import log as telemetry

    identity = call = ""
    if action is None:
        key, about = telemetry.PROMPT_KEY, telemetry.ABOUT_PROMPT
    else:
        from lessons_core.session.action import logged_identity

        about = telemetry.ABOUT_FILES if action.files else telemetry.ABOUT_COMMAND
        key = action.key
        identity = logged_identity(action.files, action.command)
        call = action.digest
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
        gate=notice is not None and notice.gate,
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
    from lessons_core.delivery.always import at_session_start

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
        from lessons_core.delivery.always import at_session_start

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

    def __enter__(self) -> HookCall:
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
    def mark(self) -> int | None:
        """How far the harness's transcript was looked at (``SessionState.mark``)."""
        return self.session.state.mark

    def move_mark(self, seen: int | None, to: int | None, forget: bool = False) -> bool:
        """``Session.move_mark``: the mark to ``to`` if it is still ``seen``."""
        return self.session.move_mark(seen, to, forget)
