"""The recall index: every active lesson's triggers, pre-digested for one quick query.

Built in two steps, so a rebuild after one lesson changed redoes only that lesson:

1. ``digest``: one lesson's compiled triggers and BM25 terms (plain data, cached per file
   by ``lessons_core.index.cache``);
2. ``assemble``: the index over all digests (shares, buckets, BM25 statistics).

It holds only records (``GlobEntry``, ``CommandEntry``, ``KeywordEntry``: tuples with named
fields, defined in ``lessons_core.index.entries`` with the index itself, so a hook reading
the cache never loads this module), tuples, dicts, strings, ints and floats, so
``lessons_core.index.file_writer`` can store it with ``marshal`` and
``lessons_core.index.file_format`` read back just the parts one query needs. What the index
saves a query:

- file globs are compiled once (to a plan ``lessons_core.matching.glob_match`` matches with ``str``
  methods when made of literal text, ``*`` and ``**``, else to a regex) and bucketed by
  their literal directory prefix and the last characters of their literal ending
  (``src/cli/**/*.ts`` under ``src/cli`` and ``.ts``: ``glob_bucket``), fully literal globs
  by the path they name, so a query reads and evaluates only globs whose prefix is an
  ancestor of the path and whose literal ending the path has;
- command patterns carry a literal run every match contains (also kept apart, in
  ``command_runs``, each distinct run once with the numbers of the entries carrying it),
  so a pattern is read and compiled with RE2 only when the command contains that run;
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

from collections import Counter
from typing import TYPE_CHECKING, Any, NamedTuple, TypeVar

from lessons_core.index.entries import (
    CommandEntry,
    GlobEntry,
    KeywordEntry,
    RecallIndex,
    TermStats,
    glob_bucket,
)
from lessons_core.matching.bm25 import term_stats
from lessons_core.matching.breadth import crowded, routine_command, sweeping_glob
from lessons_core.matching.command_plans import command_plan
from lessons_core.matching.globs import file_matcher, has_glob_chars, literal_prefix
from lessons_core.matching.regex_literals import required_run, required_runs
from lessons_core.matching.specificity import (
    command_specificity,
    glob_specificity,
    glob_suffix,
    keyword_specificity,
)
from lessons_core.matching.trigger_checks import (
    TriggerProblem,
    judge_command,
    judge_glob,
    judge_keyword,
)
from lessons_core.matching.words import meaningful, tokens

if TYPE_CHECKING:  # the model module is not needed to query an index, only to build one
    from collections import Counter
    from collections.abc import Callable, Iterable, Sequence

    from lessons_core.matching.command_plans import Plan as CommandPlan
    from lessons_core.matching.commands import CommandPattern
    from lessons_core.matching.glob_match import Plan
    from lessons_core.matching.globs import CompiledGlob
    from lessons_core.matching.trigger_checks import TriggerProblem
    from lessons_core.store.model import Lesson

    Judged = TypeVar("Judged")

# Digests are named tuples, as the index entries are. ``marshal`` stores only plain tuples, so the
# cache keeps ``Digest.plain()`` and rebuilds digests with ``Digest.from_plain``.


# One lesson's compiled triggers, without the lesson number and share count that only the
# whole graph decides. The last flag is the trigger's own breadth
# (``lessons_core.matching.breadth``); crowding is added when the graph is assembled.
class DigestGlob(NamedTuple):
    glob: str
    matcher: Plan | str
    suffix: str
    specificity: tuple[int, ...]
    exact: bool  # no wildcard: filed under the path it names
    sweeping: bool

    def entry(self, lesson: int, share: int) -> GlobEntry:
        """This glob of lesson number ``lesson``, carried by ``share`` active lessons."""

        broad = self.sweeping or crowded(share, self.exact)
        return GlobEntry(
            lesson, self.glob, self.matcher, self.suffix, self.specificity, share, broad
        )


class DigestCommand(NamedTuple):
    pattern: str
    regex: str
    required: str
    specificity: tuple[int, ...]
    routine: bool
    plan: CommandPlan | None
    needs: tuple[str, ...]

    def entry(self, lesson: int, share: int) -> CommandEntry:
        broad = self.routine or crowded(share, exact=False)
        return CommandEntry(
            lesson,
            self.pattern,
            self.regex,
            self.required,
            self.specificity,
            share,
            broad,
            self.plan,
            self.needs,
        )


class DigestKeyword(NamedTuple):
    keyword: str
    phrase: tuple[str, ...]
    specificity: tuple[int, ...]
    common: bool

    def entry(self, lesson: int, share: int) -> KeywordEntry:
        broad = self.common or crowded(share, exact=False)
        return KeywordEntry(lesson, self.keyword, self.phrase, self.specificity, share, broad)


class Digest(NamedTuple):
    """What the index needs of one lesson; ``plain()`` is what the cache stores."""

    id: str
    rule: str
    created: int  # YYYYMMDD, so newer is larger
    gate: bool
    active: bool
    globs: tuple[DigestGlob, ...]
    commands: tuple[DigestCommand, ...]
    keywords: tuple[DigestKeyword, ...]
    terms: tuple[str, ...]  # BM25 terms of the rule and rationale
    skipped: tuple[tuple[str, str], ...]  # (trigger, why it was left out)
    always: bool = False
    topics: tuple[str, ...] = ()
    enforce: bool = False
    forbid: str | None = None

    def plain(self) -> tuple[Any, ...]:
        """The digest as plain tuples, for ``marshal``."""
        return (
            *self[:5],
            tuple(map(tuple, self.globs)),
            tuple(map(tuple, self.commands)),
            tuple(map(tuple, self.keywords)),
            self.terms,
            self.skipped,
            self.always,
            self.topics,
            self.enforce,
            self.forbid,
        )

    @classmethod
    def from_plain(cls, raw: Sequence[Any]) -> Digest:
        """The digest ``plain()`` gave."""
        (id_, rule, created, gate, active, globs, commands, keywords, terms, skipped,
         always, topics, enforce, forbid) = raw  # fmt: skip
        return cls(
            id_,
            rule,
            created,
            gate,
            active,
            tuple(DigestGlob._make(x) for x in globs),
            tuple(DigestCommand._make(x) for x in commands),
            tuple(DigestKeyword._make(x) for x in keywords),
            terms,
            skipped,
            always,
            topics,
            enforce,
            forbid,
        )


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

    skipped: list[tuple[str, str]] = []
    globs: list[DigestGlob] = []
    commands: list[DigestCommand] = []
    keywords: list[DigestKeyword] = []
    if lesson.is_active:
        globs = [_glob_entry(c) for _, c in _judged(lesson.triggers.files, judge_glob, skipped)]
        commands = [
            _command_entry(c) for _, c in _judged(lesson.triggers.commands, judge_command, skipped)
        ]
        keywords = [
            DigestKeyword(keyword, words, keyword_specificity(keyword), not meaningful(list(words)))
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
        enforce=lesson.enforce,
        forbid=lesson.forbid,
    )


def _judged(
    triggers: Iterable[str],
    judge: Callable[[str], Judged | TriggerProblem],
    skipped: list[tuple[str, str]],
) -> list[tuple[str, Judged]]:
    """Each distinct trigger with what ``judge`` made of it; a rejected one goes to
    ``skipped`` with its reason instead."""

    kept = []
    for trigger in dict.fromkeys(triggers):
        verdict = judge(trigger)
        if isinstance(verdict, TriggerProblem):
            skipped.append((trigger, verdict.problem))
        else:
            kept.append((trigger, verdict))
    return kept


def _glob_entry(compiled: CompiledGlob) -> DigestGlob:
    text = compiled.glob
    return DigestGlob(
        glob=text,
        matcher=file_matcher(compiled),
        suffix=glob_suffix(text),
        specificity=glob_specificity(text),
        exact=not has_glob_chars(text),
        sweeping=sweeping_glob(text),
    )


def _command_entry(compiled: CommandPattern) -> DigestCommand:
    pattern, regex = compiled.pattern, compiled.regex
    required = required_run(pattern)
    routine = routine_command(required, compiled.matches)
    specificity = command_specificity(pattern)
    plan = command_plan(regex)
    needs = () if plan is not None else required_runs(regex)
    return DigestCommand(pattern, regex, required, specificity, routine, plan, needs)


def assemble(digests: Iterable[Digest]) -> RecallIndex:
    """The index of the active lessons among ``digests``, numbered in id order."""

    active = sorted((d for d in digests if d.active), key=lambda d: d.id)
    shares = _share_counts(active)
    exact: dict[str, list[GlobEntry]] = {}
    by_prefix: dict[str, list[GlobEntry]] = {}
    commands: list[CommandEntry] = []
    keywords: dict[str, list[KeywordEntry]] = {}
    skipped: list[tuple[str, str, str]] = []
    for number, lesson in enumerate(active):
        for glob in lesson.globs:
            entry = glob.entry(number, shares["file", glob.glob])
            if glob.exact:
                exact.setdefault(glob.glob, []).append(entry)
            else:
                bucket = glob_bucket(literal_prefix(glob.glob), glob.suffix)
                by_prefix.setdefault(bucket, []).append(entry)
        for command in lesson.commands:
            commands.append(command.entry(number, shares["command", command.pattern]))
        for keyword in lesson.keywords:
            found = keyword.entry(number, shares["keyword", " ".join(keyword.phrase)])
            keywords.setdefault(keyword.phrase[0], []).append(found)
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
        command_runs=_grouped_runs(commands),
        keywords={word: tuple(entries) for word, entries in keywords.items()},
        bm25=TermStats(*term_stats([d.terms for d in active])),
        skipped=tuple(skipped),
        always=tuple(n for _, n in always),
        topics=_topic_counts(active),
        enforces=tuple(d.enforce for d in active),
        forbids=tuple(d.forbid for d in active),
    )


def _grouped_runs(commands: list[CommandEntry]) -> tuple[tuple[str, tuple[int, ...]], ...]:
    """Each distinct required run with the numbers of the entries carrying it."""
    runs: dict[str, list[int]] = {}
    for number, command in enumerate(commands):
        runs.setdefault(command.required, []).append(number)
    return tuple((run, tuple(numbers)) for run, numbers in runs.items())


def _topic_counts(active: list[Digest]) -> tuple[tuple[str, int], ...]:
    """Each topic with how many active lessons it holds, largest first, then by name."""
    counts: dict[str, int] = {}
    for lesson in active:
        for topic in dict.fromkeys(lesson.topics):
            counts[topic] = counts.get(topic, 0) + 1
    return tuple(sorted(counts.items(), key=lambda item: (-item[1], item[0])))


def _share_counts(active: list[Digest]) -> Counter[tuple[str, str]]:
    """How many active lessons carry each trigger (globs normalised, keywords by words)."""

    counts: Counter[tuple[str, str]] = Counter()
    for lesson in active:
        counts.update({("file", glob.glob) for glob in lesson.globs})
        counts.update({("command", command.pattern) for command in lesson.commands})
        counts.update({("keyword", " ".join(keyword.phrase)) for keyword in lesson.keywords})
    return counts
