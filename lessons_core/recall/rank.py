"""Recall: which lessons apply to the file about to be edited, the command about to run and
the prompt, in rank order, within the budget.

Ranking, best first (``docs/recall.md`` has the why of each step):

1. tier: file trigger, then command trigger, then keyword, then prompt-only (BM25);
2. within a tier, specificity: how much of the path or command the trigger pins down
   (``lessons_core.matching.specificity``), so a more specific trigger wins whatever else is true;
3. relevance of the lesson's wording to the prompt: its BM25 score, then how many distinct
   meaningful prompt terms it contains (0 and none without a prompt);
4. the scope: the project's own lessons, then its packs', then personal ones
   (``lessons_core.recall.scopes``);
5. fewer active lessons sharing the matched trigger;
6. newer ``created``;
7. id.

A lesson that matches several ways is ranked by its best match, a specific trigger's
before a broad one's (``lessons_core.matching.breadth``). A prompt-only match needs at least two
distinct meaningful words shared with the prompt (common English never counts). The
budget takes the top specific trigger matches up to their cap (broad ones only when no
specific one of their tier or a stronger one is left, fewer, and a few per session) and
the prompt matches up to theirs, then the token cap; the top rule the caps allow is always shown.

RE2 is imported only when a pattern needs it, and nothing here touches numpy, click or
pathspec unless the cached index must be rebuilt.
"""

# Annotations are evaluated, not postponed (no ``from __future__ import annotations``):
# a NamedTuple compiles each string annotation of its fields when its class is made.
from collections.abc import Callable, Iterable, Sequence
from typing import TYPE_CHECKING, NamedTuple, TypeAlias

from lessons_core.fsutil import note
from lessons_core.index.cache import cached_index, rebuilt_index
from lessons_core.index.entries import (
    CommandEntry,
    GlobEntry,
    KeywordEntry,
    LessonRow,
    RecallIndex,
    path_buckets,
)
from lessons_core.index.file_format import CorruptIndex
from lessons_core.matching.glob_match import glob_matches, normalise_glob
from lessons_core.matching.words import phrase_at, stems, tokens
from lessons_core.recall.render import fitting, short_id
from lessons_core.recall.scopes import other_sources, source_index
from lessons_core.recall.types import (
    MAX_PROMPT_CHARS,
    NO_LIMITS,
    Allowance,
    Hit,
    Recall,
    RecallRequest,
)
from lessons_core.store.config import Config
from lessons_core.store.layout import Layout
from lessons_core.store.sources import SourceStore

if TYPE_CHECKING:
    from lessons_core.matching.shell_command import ShellCommand

# (tier, negated specificity, negated BM25 score, negated count of shared prompt
#  terms, the scope's order (project first), lessons sharing the trigger, negated
#  created date, id): ascending is rank.
RankKey: TypeAlias = tuple[int, tuple[int, ...], float, int, int, int, int, str]

VIA_FILE, VIA_COMMAND, VIA_KEYWORD, VIA_PROMPT = "file", "command", "keyword", "prompt"
VIA_NAMED = "named"  # a file trigger matching a file the prompt names
TIERS = {VIA_FILE: 0, VIA_NAMED: 0, VIA_COMMAND: 1, VIA_KEYWORD: 2, VIA_PROMPT: 3}
MIN_SHARED_TERMS = 2


class Candidate(NamedTuple):
    """One matching lesson, at its best match, with everything its rank key is made of."""

    hit: Hit
    key: RankKey
    specificity: tuple[int, ...]
    relevance: float  # BM25 score of the lesson's wording against the prompt
    shared: tuple[str, ...]  # distinct meaningful prompt terms in the lesson's wording
    share: int  # active lessons carrying the matched trigger


class Selection(NamedTuple):
    shown: tuple[Candidate, ...]
    cut: tuple[Candidate, ...]  # by the caps or the token cap
    excluded: tuple[Candidate, ...]
    held: tuple[Candidate, ...] = ()  # broad matches held back (see ``select``)
    spent: tuple[Candidate, ...] = ()  # held back because the session's tokens are spent
    lines: tuple[str, ...] = ()  # each shown rule's line, as costed (``render.fitting``)

    @property
    def more(self) -> int:
        """Matches left out, whatever left them out: what the notice counts."""
        return len(self.cut) + len(self.held) + len(self.spent)


def recall(
    layout: Layout,
    request: RecallRequest,
    *,
    config: Config,
    allowance: Allowance = NO_LIMITS,
    index: RecallIndex | None = None,
    sources: bool = True,
) -> Recall:
    """The lessons to show for ``request`` within ``allowance`` (``select``); lesson files
    that fail to parse are skipped.

    ``index`` saves loading it when the caller already has one (to report broken files,
    say); by default it comes from the cache (``lessons_core.index.cache``), which is
    rebuilt first when any lesson file changed. With ``sources``, the project's packs and
    the user's personal lessons are ranked with its own (``lessons_core.recall.scopes``),
    within the same caps.
    """
    if index is None:
        try:
            index = cached_index(layout, sampled_from=config.sampled_check_from)[0]
            ranked = rank(index, request)
            bound = binding(index, request, ranked)
        except CorruptIndex:  # a damaged part surfaced on first use: never trust it
            index = rebuilt_index(layout)[0]
            ranked = rank(index, request)
            bound = binding(index, request, ranked)
    else:
        ranked = rank(index, request)
        bound = binding(index, request, ranked)
    if sources:
        ranked, bound = with_sources(layout, request, config, ranked, bound)
    # A cut rule names the start of its id that tells it apart from the others.
    selection = select(ranked, config, allowance, read=request.read, short=_short(index.ids))
    return Recall(
        hits=tuple(c.hit for c in selection.shown),
        more=selection.more,
        matched=tuple(c.hit.lesson_id for c in ranked),
        lines=selection.lines,
        binding=bound,
        follows=any(c.hit.pinned for c in selection.cut),
        held=len(selection.held),
    )


def _short(ids: Sequence[str]) -> Callable[[str], str]:
    """``render.short_id`` over ``ids``; rendering is imported already when it runs."""

    def short(lesson_id: str) -> str:
        return short_id(ids, lesson_id)

    return short


def binding(index: RecallIndex, request: RecallRequest, ranked: list[Candidate]) -> tuple[Hit, ...]:
    """``Recall.binding``: among the lessons that matched, the enforced ones that matched
    through a command trigger, and those with a ``forbid`` pattern once for each of the
    request's files one of their file triggers matches. Most calls match neither, and pay
    one pass over ``ranked``."""
    enforced = [c.hit for c in ranked if c.hit.enforce and c.hit.via == VIA_COMMAND]
    if request.command and any(c.hit.enforce and c.hit.via != VIA_COMMAND for c in ranked):
        # Ranked by a file or keyword match (a command writing a file the lesson covers
        # too, say): did its command trigger match as well?
        others = {c.hit.lesson_id: c.hit for c in ranked if c.hit.enforce}
        fired = {
            index.ids[e.lesson]: (e, part)
            for e, part in command_matches(index, request.shell or request.command)
        }
        enforced += [
            hit._replace(via=VIA_COMMAND, trigger=fired[i][0].pattern, matched=fired[i][1])
            for i, hit in others.items()
            if hit.via != VIA_COMMAND and i in fired
        ]
    if not any(c.hit.forbid for c in ranked):
        return tuple(enforced)
    forbidding = {c.hit.lesson_id: c.hit for c in ranked if c.hit.forbid}
    covered: dict[tuple[str, str], Hit] = {}  # (lesson, path): its first glob matching
    for path in request_files(request):
        for entry in file_matches(index, path):
            hit = forbidding.get(index.ids[entry.lesson])
            if hit is not None and (hit.lesson_id, path) not in covered:
                found = hit._replace(via=VIA_FILE, trigger=entry.glob, matched=path)
                covered[hit.lesson_id, path] = found
    return (*enforced, *covered.values())


def with_sources(
    layout: Layout,
    request: RecallRequest,
    config: Config,
    ranked: list[Candidate],
    bound: tuple[Hit, ...],
) -> tuple[list[Candidate], tuple[Hit, ...]]:
    """``ranked`` and ``bound`` (the project's) with the matches of its packs and the
    personal store (``lessons_core.recall.scopes``), their ids qualified (``personal:ID``)
    and their hits labelled, in one rank order. A scope that fails is noted and left out:
    it never silences the project's lessons."""

    stores = other_sources(layout, config)
    if not stores:
        return ranked, bound
    merged, binds = list(ranked), list(bound)
    for order, store in enumerate(stores, 1):
        # A personal lesson needs a trigger to match: never the prompt's wording alone.
        try:
            try:
                found, bind = _scope_matches(source_index(store), request, order, store.personal)
            except CorruptIndex:
                index = source_index(store, rebuild=True)
                found, bind = _scope_matches(index, request, order, store.personal)
        except Exception as err:  # one scope never silences another: noted, left out
            note(err)
            continue
        for candidate in found:
            hit = _labelled(candidate.hit, store)
            merged.append(candidate._replace(hit=hit, key=(*candidate.key[:-1], hit.lesson_id)))
        binds.extend(_labelled(hit, store) for hit in bind)
    merged.sort(key=lambda candidate: candidate.key)
    return merged, tuple(binds)


def _scope_matches(
    index: RecallIndex, request: RecallRequest, order: int, triggered_only: bool
) -> tuple[list[Candidate], tuple[Hit, ...]]:
    """One scope's ranked matches (``rank`` at ``order``) and its binding ones; with
    ``triggered_only``, none that only the prompt's wording brought."""
    found = rank(index, request, order)
    if triggered_only:
        found = [candidate for candidate in found if candidate.hit.via != VIA_PROMPT]
    return found, binding(index, request, found)


def _labelled(hit: Hit, store: SourceStore) -> Hit:
    return hit._replace(lesson_id=store.qualified(hit.lesson_id), source=store.label)


def rank(index: RecallIndex, request: RecallRequest, order: int = 0) -> list[Candidate]:
    """Every lesson matching ``request``, once each at its best match, in rank order; a
    prompt is read up to ``MAX_PROMPT_CHARS``. ``order`` is the scope's place in the rank
    key: 0 for the project's own lessons, which come first at equal rank."""
    if request.prompt and len(request.prompt) > MAX_PROMPT_CHARS:
        request = request._replace(prompt=request.prompt[:MAX_PROMPT_CHARS])
    files = request_files(request)
    prompt_terms: list[str] = []
    # Each prompt term with the lessons whose wording holds it, and its part of their
    # BM25 scores (``bm25.term_parts``); none without a prompt.
    parts: dict[str, dict[int, float]] = {}
    if request.prompt:  # an edit or a command never loads the prompt's vocabulary, nor BM25
        from lessons_core.matching.bm25 import term_parts  # noqa: PLC0415 (event: prompts only)
        from lessons_core.recall.prompt_terms import prompt_terms as terms_of  # noqa: PLC0415 (event: prompts only)

        prompt_terms = terms_of(request.prompt, request.project)
        parts = term_parts(index.bm25, prompt_terms)
    # (via, the entry, its trigger, what it matched) for every trigger that matched
    matches: list[tuple[str, GlobEntry | CommandEntry | KeywordEntry, str, str]] = []
    for path in files:
        matches.extend((VIA_FILE, e, e.glob, path) for e in file_matches(index, path))
    for path in request_named(request, files):
        matches.extend((VIA_NAMED, e, e.glob, path) for e in file_matches(index, path))
    if request.command and request.command.strip():
        fired = command_matches(index, request.shell or request.command)
        matches.extend((VIA_COMMAND, e, e.pattern, part) for e, part in fired)
    for source, words in keyword_sources(request, files):
        matches.extend((VIA_KEYWORD, e, e.keyword, source) for e in keyword_matches(index, words))
    # Prompt-only matches: at least two distinct meaningful terms shared with the prompt.
    # The BM25 score orders them but does not gate them: in a store of two or three
    # lessons BM25Okapi's idf is zero or negative for most words (see docs/recall.md).
    triggered = {entry.lesson for _via, entry, _trigger, _matched in matches}
    prompt_only = [lesson for lesson in _sharing(parts) if lesson not in triggered]
    # Each lesson's id, rule, date and gate, fetched once for all (a prompt can match
    # thousands of lessons in a large store).
    lessons = triggered.union(prompt_only)
    rows = index.rows(lessons)
    found = _prompt_scores(parts, prompt_terms, lessons)
    best: dict[int, Candidate] = {}
    for via, entry, trigger, matched in matches:
        lesson = entry.lesson
        candidate = _candidate(
            rows[lesson],
            lesson,
            via,
            trigger,
            entry.specificity,
            entry.share,
            matched,
            found,
            entry.broad,
            order,
        )
        # A lesson is listed at its best specific match, at its best broad one only when
        # no specific trigger matched.
        old = best.get(lesson)
        if old is None or (entry.broad, candidate.key) < (old.hit.broad, old.key):
            best[lesson] = candidate
    for lesson in prompt_only:
        best[lesson] = _candidate(
            rows[lesson], lesson, VIA_PROMPT, "", (), 0, "prompt", found, order=order
        )
    return sorted(best.values(), key=lambda c: c.key)


def _sharing(parts: dict[str, dict[int, float]]) -> list[int]:
    """The lessons whose wording holds ``MIN_SHARED_TERMS`` of the prompt's terms."""
    if not parts:
        return []
    from lessons_core.matching.bm25 import sharing  # noqa: PLC0415 (event: prompts only)

    return sharing(parts, MIN_SHARED_TERMS)


def _prompt_scores(
    parts: dict[str, dict[int, float]], prompt_terms: list[str], lessons: set[int]
) -> tuple[dict[int, float], dict[int, tuple[str, ...]]]:
    """Per lesson of ``lessons``, its BM25 score and the prompt terms it shares
    (``bm25.prompt_scores``); nothing without a prompt."""
    if not parts:
        return {}, {}
    from lessons_core.matching.bm25 import prompt_scores  # noqa: PLC0415 (event: prompts only)

    return prompt_scores(parts, prompt_terms, lessons)


def file_matches(index: RecallIndex, path: str) -> list[GlobEntry]:
    """The file triggers that match ``path``, through the one file matcher
    (``glob_match.glob_matches``). Only globs that could match are tried: the path's exact
    entry, then those under an ancestor prefix whose literal ending the path has (filed
    by the end of that ending: ``entries.glob_bucket``)."""
    found = list(index.exact.get(path, ()))
    parts = path.split("/")
    by_prefix = index.by_prefix
    for depth in range(len(parts)):
        for bucket in path_buckets("/".join(parts[:depth]), path):
            found.extend(
                entry for entry in by_prefix.get(bucket, ()) if path.endswith(entry.suffix)
            )
    return [entry for entry in found if glob_matches(entry.matcher, path)]


def command_matches(
    index: RecallIndex, command: "str | ShellCommand"
) -> Iterable[tuple[CommandEntry, str]]:
    """Each command trigger that matches, with the part of the command it matched, through
    the one command matcher (``commands.fired_part``)."""
    if not index.command_runs:
        return
    from lessons_core.matching.commands import fired_part, request_parts  # noqa: PLC0415 (event: shell calls only)

    parts = request_parts(command)
    text = command if isinstance(command, str) else command.text
    # Entries whose literal run is in the command, in entry order; the others are never
    # read nor compiled.
    numbers = sorted(
        number
        for required, carrying in index.command_runs
        if required in text
        for number in carrying
    )
    for number in numbers:
        entry = index.commands[number]
        part = fired_part(entry.regex, parts, entry.plan, entry.needs)
        if part is not None:
            yield entry, part


def keyword_matches(index: RecallIndex, words: list[str]) -> Iterable[KeywordEntry]:
    """Keywords whose words occur in ``words`` consecutively (whole words, or their
    regular inflections), through the one keyword matcher (``words.phrase_at``) at each
    start the index files them by: their first word, which the word there is or inflects
    (``words.stems``)."""
    for start, word in enumerate(words):
        for first in (word, *stems(word)):
            for entry in index.keywords.get(first, ()):
                if phrase_at(words, start, entry.phrase):
                    yield entry


def select(
    ranked: list[Candidate],
    config: Config,
    allowance: Allowance = NO_LIMITS,
    read: bool = False,
    short: Callable[[str], str] | None = None,
) -> Selection:
    """Apply session exclusion (``allowance.exclude``), then the caps and the token budget,
    keeping rank order.

    On a ``read`` (``RecallRequest.read``), broad matches are left for the change: they
    neither speak nor count in the notice, and stay eligible for the edit that follows.

    When the session has no tokens left (``allowance.tokens_left``, what it has left of
    ``max_session_tokens``; None outside a session), only ``pinned`` matches remain. Then
    per-tier caps: ``max_trigger_matches`` specific trigger matches; broad ones
    (``Hit.broad``) only when no specific one of their tier or a stronger one is left
    (a broad command match is not held back by a keyword), at most ``max_broad_matches`` and
    at most ``allowance.broad_left`` (what the session has left of
    ``max_broad_per_session``); ``max_prompt_matches`` prompt matches. Then
    ``allowance.limit`` on the total, then ``max_tokens``: rules are taken in order while
    their estimated tokens fit, and the first rule that does not fit ends the list. The
    top rule the caps allow is shown whatever the tier caps, the limit and the token cap
    say. ``short`` gives the id a cut rule's line names (``render.hit_line``).
    """
    exclude = allowance.exclude
    excluded = tuple(c for c in ranked if c.hit.lesson_id in exclude)
    eligible = [c for c in ranked if c.hit.lesson_id not in exclude]
    if read:  # broad file matches wait for the change: not shown, not counted
        eligible = [c for c in eligible if not (_demoted(c) and c.hit.via != VIA_COMMAND)]
    if not eligible:  # the silent call: nothing to render, nothing to count
        return Selection(shown=(), cut=(), excluded=excluded)

    if allowance.tokens_left is not None and allowance.tokens_left <= 0:
        # The session's budget is spent: only rules about the very file or command touched
        # (and gated ones) still speak.
        speaking = [c for c in eligible if pinned(c)]
        spent = tuple(c for c in eligible if not pinned(c))
    else:
        speaking, spent = eligible, ()
    specific = [c for c in speaking if c.hit.via != VIA_PROMPT and not _demoted(c)]
    broad = [c for c in speaking if _demoted(c)]
    prompts = [c for c in speaking if c.hit.via == VIA_PROMPT]
    room = config.max_broad_matches
    if allowance.broad_left is not None:
        room = max(min(room, allowance.broad_left), 0)
    # A broad match waits only for a specific one of its own tier or a stronger one: a
    # keyword never silences the rule about the very command being run.
    strongest = min((TIERS[c.hit.via] for c in specific), default=len(TIERS))
    admitted = [c for c in broad if TIERS[c.hit.via] < strongest][:room]
    allowed = sorted([*specific, *admitted], key=lambda c: c.key) if admitted else specific
    let_in = {id(c) for c in admitted}
    held = tuple(c for c in broad if id(c) not in let_in)
    picked = allowed[: config.max_trigger_matches] + prompts[: config.max_prompt_matches]
    if allowance.limit is not None:
        picked = picked[: max(allowance.limit, 0)]
    top = next(iter(allowed or prompts), None)
    if top is not None and (not picked or picked[0] is not top):
        picked = [top, *(c for c in picked if c is not top)]
    lines = fitting([c.hit for c in picked], config.max_tokens, short)
    shown = tuple(picked[: len(lines)])
    kept = {id(c) for c in (*shown, *held, *spent)}
    cut = tuple(c for c in eligible if id(c) not in kept)
    return Selection(shown, cut, excluded, held, spent, lines)


def pinned(candidate: Candidate) -> bool:
    """Whether a match is about the very file or command touched, or gated: no session
    budget holds it back (``Hit.pinned``)."""
    return candidate.hit.pinned


def _pins(via: str, spec: tuple[int, ...], broad: bool, gate: bool) -> bool:
    """``Hit.pinned``: gated, an exact path, or a command pattern that is not broad."""
    if gate:
        return True
    if via in (VIA_FILE, VIA_NAMED):
        return bool(spec) and spec[0] == 1
    return via == VIA_COMMAND and not broad


def _demoted(candidate: Candidate) -> bool:
    """A broad match, unless its lesson gates: a gated rule is never held back."""
    return candidate.hit.broad and not candidate.hit.gate


def _candidate(
    row: LessonRow,
    lesson: int,
    via: str,
    trigger: str,
    spec: tuple[int, ...],
    share: int,
    matched: str,
    prompt: tuple[dict[int, float], dict[int, tuple[str, ...]]],
    broad: bool = False,
    order: int = 0,
) -> Candidate:
    relevance, shared = prompt
    score, terms = relevance.get(lesson, 0.0), shared.get(lesson, ())
    hit = Hit(
        lesson_id=row.id,
        rule=row.rule,
        via=via,
        trigger=trigger,
        terms=terms if via == VIA_PROMPT else (),
        gate=row.gate,
        matched=matched,
        broad=broad,
        enforce=row.enforce,
        forbid=row.forbid,
        pinned=_pins(via, spec, broad, row.gate),
    )
    key = (
        TIERS[via],
        tuple(-value for value in spec),
        -score,
        -len(terms),
        order,
        share,
        -row.created,
        row.id,
    )
    return Candidate(hit, key, spec, relevance=score, shared=terms, share=share)


def request_files(request: RecallRequest) -> tuple[str, ...]:
    """The request's paths, distinct; callers normalise, but ``./x`` and ``a\\b`` still work."""
    return tuple(dict.fromkeys(normalise_glob(path) for path in request.files if path.strip()))


def request_named(request: RecallRequest, files: tuple[str, ...]) -> tuple[str, ...]:
    """The files the prompt names (``RecallRequest.named``), normalised and distinct like
    ``request_files``, less those among the request's own ``files``."""
    named = dict.fromkeys(normalise_glob(path) for path in request.named if path.strip())
    return tuple(path for path in named if path not in files)


def keyword_sources(request: RecallRequest, files: tuple[str, ...]) -> list[tuple[str, list[str]]]:
    """Where keywords are looked for: the prompt, the words of each path and the command."""
    sources: list[tuple[str, list[str]]] = []
    if request.prompt:
        sources.append(("prompt", tokens(request.prompt)))
    sources.extend((f"path {path}", tokens(path)) for path in files)
    if request.command:
        sources.append(("command", tokens(request.command)))
    return sources
