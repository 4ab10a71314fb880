"""The recall index: every active lesson's triggers, pre-digested for one quick query.

Built in two steps, so a rebuild after one lesson changed redoes only that lesson:

1. ``digest``: one lesson's compiled triggers and BM25 terms (plain data, cached per file
   by ``lessons_core.index.cache``);
2. ``assemble``: the index over all digests (shares, buckets, BM25 statistics).

It holds only tuples, dicts, strings, ints and floats, so ``lessons_core.index.file_format`` can
store it with ``marshal`` and read back just the parts one query needs. What the index
saves a query:

- file globs are compiled once (to a plan ``lessons_core.matching.glob_match`` matches with ``str``
  methods when made of literal text, ``*`` and ``**``, else to a regex) and bucketed by
  their literal directory prefix (``src/cli/**`` under ``src/cli``), fully literal globs by
  the path they name, so a query evaluates only globs whose prefix is an ancestor of the
  path and whose literal ending (``.ts``) the path has;
- command patterns carry a literal run every match contains, so a pattern is compiled with
  RE2 only when the command contains that run;
- keywords are tokenised and filed under their first word;
- BM25 term statistics are precomputed (by ``rank_bm25``, see ``lessons_core.matching.bm25``) over
  the rule and rationale wording;
- every trigger entry carries a flag saying whether it is broad (``lessons_core.matching.breadth``:
  a routine command, a glob sweeping a whole tree, a common keyword, a crowded trigger),
  so recall can hold such rules back without working it out per query.

Triggers the one judgement of ``lessons_core.matching.trigger_checks`` rejects (a hand-edited file,
a bad merge, an imported pattern RE2 refuses) are left out and listed in ``skipped``, so
one bad trigger never stops recall: its lesson keeps its other triggers.
"""

from __future__ import annotations

from lessons_core.matching.bm25 import TermStats, term_stats
from lessons_core.matching.glob_match import Plan
from lessons_core.matching.specificity import (
    command_specificity,
    glob_specificity,
    glob_suffix,
    keyword_specificity,
)
from lessons_core.matching.words import meaningful, tokens
from lessons_core.records import NamedTuple

TYPE_CHECKING = False  # typing costs a hook ~8 ms: lessons_core.records
if TYPE_CHECKING:  # the model module is not needed to query an index, only to build one
    from collections import Counter
    from collections.abc import Callable, Iterable, Mapping, Sequence
    from typing import TypeVar

    from lessons_core.matching.commands import CommandPattern
    from lessons_core.matching.globs import CompiledGlob
    from lessons_core.matching.trigger_checks import TriggerProblem
    from lessons_core.store.model import Lesson

    Judged = TypeVar("Judged")

# (lesson number, glob, its plan or regex, literal suffix, specificity, lessons sharing it,
#  broad)
GlobEntry = tuple[int, str, Plan | str, str, tuple[int, ...], int, bool]
# (lesson number, pattern, RE2 regex, required literal run, specificity, lessons sharing it,
#  broad)
CommandEntry = tuple[int, str, str, str, tuple[int, ...], int, bool]
# (lesson number, keyword, its tokens, specificity, lessons sharing it, broad)
KeywordEntry = tuple[int, str, tuple[str, ...], tuple[int, ...], int, bool]
# (id, rule, created as YYYYMMDD, gate) of one lesson
LessonRow = tuple[str, str, int, bool]

# One lesson's compiled triggers, without the lesson number and share count that only the
# whole graph decides. Globs: (glob, plan or regex, suffix, specificity, exact, sweeping);
# commands: (pattern, regex, required run, specificity, routine); keywords: (keyword,
# tokens, specificity, common). The last flag is the trigger's own breadth
# (``lessons_core.matching.breadth``); crowding is added when the graph is assembled.
CompiledGlobEntry = tuple[str, Plan | str, str, tuple[int, ...], bool, bool]
CompiledCommand = tuple[str, str, str, tuple[int, ...], bool]
CompiledKeyword = tuple[str, tuple[str, ...], tuple[int, ...], bool]


class Digest(NamedTuple):
    """What the index needs of one lesson; ``tuple(digest)`` is marshal-able."""

    id: str
    rule: str
    created: int  # YYYYMMDD, so newer is larger
    gate: bool
    active: bool
    globs: tuple[CompiledGlobEntry, ...]
    commands: tuple[CompiledCommand, ...]
    keywords: tuple[CompiledKeyword, ...]
    terms: tuple[str, ...]  # BM25 terms of the rule and rationale
    skipped: tuple[tuple[str, str], ...]  # (trigger, why it was left out)
    always: bool = False
    topics: tuple[str, ...] = ()


class RecallIndex(NamedTuple):
    """Lesson ``n`` of every entry is ``ids[n]``; BM25 document ``n`` is the same lesson.

    Fields are read-only mappings and sequences: a freshly built index holds dicts and
    tuples, one read from the cache loads each part on first use.
    """

    ids: Sequence[str]
    rules: Sequence[str]
    created: Sequence[int]  # YYYYMMDD, so newer is larger
    gates: Sequence[bool]
    exact: Mapping[str, tuple[GlobEntry, ...]]  # path -> globs naming exactly it
    by_prefix: Mapping[str, tuple[GlobEntry, ...]]  # literal directory prefix -> globs
    commands: Sequence[CommandEntry]
    keywords: Mapping[str, tuple[KeywordEntry, ...]]  # first token -> keywords
    bm25: TermStats
    skipped: Sequence[tuple[str, str, str]]  # (lesson id, trigger, why it was left out)
    # Numbers of the always-on lessons, oldest first (lessons_core.delivery.always), and
    # (topic, active lessons in it), largest first: read at session start only.
    always: Sequence[int] = ()
    topics: Sequence[tuple[str, int]] = ()

    def rows(self, numbers: Iterable[int]) -> dict[int, LessonRow]:
        """``(id, rule, created, gate)`` of each lesson in ``numbers``.

        An index read from the cache fetches them a chunk at a time (its columns offer
        ``rows``); a built one reads its tuples.
        """
        bulk = getattr(self.ids, "rows", None)
        if bulk is not None:
            found: dict[int, LessonRow] = bulk(numbers)
            return found
        ids, rules, created, gates = self.ids, self.rules, self.created, self.gates
        return {n: (ids[n], rules[n], created[n], gates[n]) for n in numbers}


def bm25_terms(lesson: Lesson) -> list[str]:
    """The words BM25 scores a lesson by: meaningful words of its rule and rationale."""
    return meaningful(tokens(f"{lesson.rule} {lesson.rationale or ''}"))


def build_index(lessons: Iterable[Lesson]) -> RecallIndex:
    """Index the active lessons among ``lessons`` (in id order, so the index is stable)."""
    return assemble(digest(lesson) for lesson in lessons)


def digest(lesson: Lesson) -> Digest:
    """Compile one lesson's triggers (an inactive lesson's are never needed).

    Each trigger goes through the one judgement (``lessons_core.matching.trigger_checks``): one it
    rejects is left out and listed in ``skipped``, and the lesson keeps its others.
    """
    from lessons_core.matching.trigger_checks import judge_command, judge_glob, judge_keyword

    skipped: list[tuple[str, str]] = []
    globs: list[CompiledGlobEntry] = []
    commands: list[CompiledCommand] = []
    keywords: list[CompiledKeyword] = []
    if lesson.is_active:
        globs = [_glob_entry(c) for _, c in _judged(lesson.triggers.files, judge_glob, skipped)]
        commands = [
            _command_entry(c) for _, c in _judged(lesson.triggers.commands, judge_command, skipped)
        ]
        keywords = [
            (keyword, words, keyword_specificity(keyword), not meaningful(list(words)))
            for keyword, words in _judged(lesson.triggers.keywords, judge_keyword, skipped)
        ]
    return Digest(
        id=lesson.id,
        rule=lesson.rule,
        created=int(lesson.created.replace("-", "")),
        gate=lesson.gate,
        active=lesson.is_active,
        globs=tuple(globs),
        commands=tuple(commands),
        keywords=tuple(keywords),
        terms=tuple(bm25_terms(lesson)) if lesson.is_active else (),
        skipped=tuple(skipped),
        always=lesson.always,
        topics=lesson.topics,
    )


def _judged(
    triggers: Iterable[str],
    judge: Callable[[str], Judged | TriggerProblem],
    skipped: list[tuple[str, str]],
) -> list[tuple[str, Judged]]:
    """Each distinct trigger with what ``judge`` made of it; a rejected one goes to
    ``skipped`` with its reason instead."""
    from lessons_core.matching.trigger_checks import TriggerProblem

    kept = []
    for trigger in dict.fromkeys(triggers):
        verdict = judge(trigger)
        if isinstance(verdict, TriggerProblem):
            skipped.append((trigger, verdict.problem))
        else:
            kept.append((trigger, verdict))
    return kept


def _glob_entry(compiled: CompiledGlob) -> CompiledGlobEntry:
    from lessons_core.matching.breadth import sweeping_glob
    from lessons_core.matching.globs import has_glob_chars, matching_plan

    text = compiled.glob
    exact = not has_glob_chars(text)
    matcher = matching_plan(compiled) or compiled.regex
    spec = glob_specificity(text)
    return (text, matcher, glob_suffix(text), spec, exact, sweeping_glob(text))


def _command_entry(compiled: CommandPattern) -> CompiledCommand:
    from lessons_core.matching.breadth import routine_command
    from lessons_core.matching.regex_literals import required_run

    pattern = compiled.pattern
    required = required_run(pattern)
    routine = routine_command(required, compiled.matches)
    return (pattern, compiled.regex, required, command_specificity(pattern), routine)


def assemble(digests: Iterable[Digest]) -> RecallIndex:
    """The index of the active lessons among ``digests``, numbered in id order."""
    from lessons_core.matching.breadth import crowded
    from lessons_core.matching.globs import literal_prefix

    active = sorted((d for d in digests if d.active), key=lambda d: d.id)
    shares = _share_counts(active)
    exact: dict[str, list[GlobEntry]] = {}
    by_prefix: dict[str, list[GlobEntry]] = {}
    commands: list[CommandEntry] = []
    keywords: dict[str, list[KeywordEntry]] = {}
    skipped: list[tuple[str, str, str]] = []
    for number, lesson in enumerate(active):
        for text, matcher, suffix, spec, is_exact, sweeping in lesson.globs:
            share = shares["file", text]
            broad = sweeping or crowded(share, is_exact)
            entry = (number, text, matcher, suffix, spec, share, broad)
            if is_exact:
                exact.setdefault(text, []).append(entry)
            else:
                by_prefix.setdefault(literal_prefix(text), []).append(entry)
        for pattern, regex, required, spec, routine in lesson.commands:
            share = shares["command", pattern]
            broad = routine or crowded(share, exact=False)
            commands.append((number, pattern, regex, required, spec, share, broad))
        for keyword, words, spec, common in lesson.keywords:
            share = shares["keyword", " ".join(words)]
            broad = common or crowded(share, exact=False)
            keywords.setdefault(words[0], []).append((number, keyword, words, spec, share, broad))
        skipped.extend((lesson.id, trigger, why) for trigger, why in lesson.skipped)
    always = sorted((d.created, n) for n, d in enumerate(active) if d.always)
    return RecallIndex(
        ids=tuple(d.id for d in active),
        rules=tuple(d.rule for d in active),
        created=tuple(d.created for d in active),
        gates=tuple(d.gate for d in active),
        exact={path: tuple(entries) for path, entries in exact.items()},
        by_prefix={prefix: tuple(entries) for prefix, entries in by_prefix.items()},
        commands=tuple(commands),
        keywords={word: tuple(entries) for word, entries in keywords.items()},
        bm25=term_stats([d.terms for d in active]),
        skipped=tuple(skipped),
        always=tuple(n for _, n in always),
        topics=_topic_counts(active),
    )


def _topic_counts(active: list[Digest]) -> tuple[tuple[str, int], ...]:
    """Each topic with how many active lessons it holds, largest first, then by name."""
    counts: dict[str, int] = {}
    for lesson in active:
        for topic in dict.fromkeys(lesson.topics):
            counts[topic] = counts.get(topic, 0) + 1
    return tuple(sorted(counts.items(), key=lambda item: (-item[1], item[0])))


def _share_counts(active: list[Digest]) -> Counter[tuple[str, str]]:
    """How many active lessons carry each trigger (globs normalised, keywords by words)."""
    from collections import Counter  # a rebuild's only: a query does without collections

    counts: Counter[tuple[str, str]] = Counter()
    for lesson in active:
        counts.update({("file", glob[0]) for glob in lesson.globs})
        counts.update({("command", command[0]) for command in lesson.commands})
        counts.update({("keyword", " ".join(keyword[1])) for keyword in lesson.keywords})
    return counts
