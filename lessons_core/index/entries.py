"""The recall index as a query reads it: its records and the ``RecallIndex`` itself.

A hook only reads the index, so this module holds what reading needs and nothing of the
build: ``lessons_core.index.build`` compiles lessons into these records (and imports
``lessons_core.matching.bm25``, the trigger checks and the model to do it), and
``lessons_core.index.file_format`` reads them back from the cache file. Every record is a
``NamedTuple``, so ``marshal`` stores it as a plain tuple.
"""

# Annotations are evaluated, not postponed (no ``from __future__ import annotations``):
# a NamedTuple compiles each string annotation of its fields when its class is made.
from collections.abc import Iterable, Mapping, Sequence
from typing import NamedTuple

from lessons_core.matching.command_plans import Plan as CommandPlan
from lessons_core.matching.glob_match import Plan


class GlobEntry(NamedTuple):
    """One file trigger of one lesson, as a query matches it."""

    lesson: int  # the lesson's number: ``ids[lesson]``
    glob: str
    matcher: Plan | str  # what ``lessons_core.matching.glob_match.glob_matches`` takes
    suffix: str  # the literal ending every matching path has
    specificity: tuple[int, ...]
    share: int  # active lessons carrying this glob
    broad: bool  # ``lessons_core.matching.breadth``


class CommandEntry(NamedTuple):
    """One command trigger of one lesson; ``RecallIndex.command_runs`` holds its
    ``required`` run too, so a query reads an entry only when the command contains it."""

    lesson: int
    pattern: str
    regex: str  # RE2, word boundaries added
    required: str  # a literal run every match contains
    specificity: tuple[int, ...]
    share: int
    broad: bool
    # The regex as literals with anchors, matched without RE2 (``command_plans``); None:
    # RE2 runs the regex, on the parts that hold every run of ``needs``.
    plan: CommandPlan | None = None
    needs: tuple[str, ...] = ()  # literal runs every match contains


class KeywordEntry(NamedTuple):
    """One keyword of one lesson, filed under its first word."""

    lesson: int
    keyword: str
    phrase: tuple[str, ...]  # its words, matched consecutively
    specificity: tuple[int, ...]
    share: int
    broad: bool


class LessonRow(NamedTuple):
    """What a candidate needs of its lesson."""

    id: str
    rule: str
    created: int  # YYYYMMDD, so newer is larger
    gate: bool
    enforce: bool = False  # every matching command is refused (``Lesson.enforce``)
    forbid: str | None = None  # what a change to its files must not add (``Lesson.forbid``)


# The ``RecallIndex`` columns a ``LessonRow`` is made of, in its field order: the index
# file stores them as one row per lesson (``file_format``), so a candidate's row is one
# read. A new per-lesson field is a field here and in ``LessonRow``, a column of
# ``RecallIndex`` and its value in ``assemble``.
LESSON_COLUMNS = ("ids", "rules", "created", "gates", "enforces", "forbids")

# How many characters of a glob's literal ending file it (``glob_bucket``).
SUFFIX_KEY = 3


def glob_bucket(prefix: str, suffix: str) -> str:
    """The ``by_prefix`` key of a glob with literal directory ``prefix`` and literal
    ending ``suffix``: the prefix and the last ``SUFFIX_KEY`` characters of the ending, so
    the extension globs of a folder do not all share one bucket."""
    return f"{prefix}\0{suffix[-SUFFIX_KEY:]}"


def path_buckets(prefix: str, path: str) -> list[str]:
    """The ``by_prefix`` keys under ``prefix`` that can hold a glob matching ``path``:
    every ending a glob's literal ending can end in (the last 0 to ``SUFFIX_KEY``
    characters of ``path``)."""
    start = f"{prefix}\0"
    return [start + path[len(path) - size :] for size in range(min(SUFFIX_KEY, len(path)) + 1)]


class TermStats(NamedTuple):
    """BM25 statistics (``lessons_core.matching.bm25.term_stats``), plain data only
    (marshal-able): idf per term, and postings ``term -> ((doc, ...), (part, ...))``,
    each document holding the term with the term's part of its score, so that scoring
    a term needs nothing but its own postings.

    Mappings and sequences rather than dicts and tuples, so that an index read from disk
    can load only the terms a query asks for.
    """

    idf: Mapping[str, float]
    postings: Mapping[str, tuple[tuple[int, ...], tuple[float, ...]]]
    doc_len: Sequence[int]
    avgdl: float


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
    by_prefix: Mapping[str, tuple[GlobEntry, ...]]  # glob_bucket(prefix, suffix) -> globs
    commands: Sequence[CommandEntry]
    # Each distinct required run of the command entries, with the numbers of the entries
    # (in ``commands``) that carry it, in order.
    command_runs: Sequence[tuple[str, tuple[int, ...]]]
    keywords: Mapping[str, tuple[KeywordEntry, ...]]  # first token -> keywords
    bm25: TermStats
    skipped: Sequence[tuple[str, str, str]]  # (lesson id, trigger, why it was left out)
    # Numbers of the always-on lessons, oldest first (lessons_core.delivery.always), and
    # (topic, active lessons in it), largest first: read at session start only.
    always: Sequence[int] = ()
    topics: Sequence[tuple[str, int]] = ()
    enforces: Sequence[bool] = ()
    forbids: Sequence[str | None] = ()

    def rows(self, numbers: Iterable[int]) -> dict[int, LessonRow]:
        """``(id, rule, created, gate, enforce, forbid)`` of each lesson in ``numbers``.

        An index read from the cache fetches them a chunk at a time (its columns offer
        ``rows``); a built one reads its tuples.
        """
        bulk = getattr(self.ids, "rows", None)
        if bulk is not None:
            return {n: LessonRow._make(row) for n, row in bulk(numbers).items()}
        ids, rules, created, gates = self.ids, self.rules, self.created, self.gates
        enforces, forbids = self.enforces, self.forbids
        return {
            n: LessonRow(ids[n], rules[n], created[n], gates[n], enforces[n], forbids[n])
            for n in numbers
        }
