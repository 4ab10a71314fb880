"""The recall index: every active lesson's triggers, pre-digested for one quick query.

Built from the graph; holds only tuples, dicts, strings, ints and floats (``to_data``), so
it can be cached on disk with ``marshal`` and loaded without importing the parsers that
built it. What the index saves a query:

- file globs are compiled to regexes once and bucketed by their literal directory prefix
  (``src/cli/**`` under ``src/cli``), fully literal globs by the path they name, so a query
  evaluates only globs whose prefix is an ancestor of the path and whose literal ending
  (``.ts``) the path has;
- command patterns carry a literal run every match contains, so a pattern is compiled with
  RE2 only when the command contains that run;
- keywords are tokenised and filed under their first word;
- BM25 term statistics are precomputed over the rule and rationale wording.

Triggers that cannot be compiled (a hand-edited file, an imported pattern RE2 refuses) are
left out and listed in ``skipped``, so one bad trigger never stops recall.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from lessons_core.bm25 import TermStats, term_stats
from lessons_core.specificity import (
    command_specificity,
    glob_specificity,
    glob_suffix,
    keyword_specificity,
)
from lessons_core.words import meaningful, tokens

if TYPE_CHECKING:  # the model module is not needed to query an index, only to build one
    from lessons_core.errors import InvalidLessonFile
    from lessons_core.layout import Layout
    from lessons_core.model import Lesson

INDEX_VERSION = 1

# (lesson number, glob, regex, literal suffix, specificity, lessons sharing the glob)
GlobEntry = tuple[int, str, str, str, tuple[int, ...], int]
# (lesson number, pattern, RE2 regex, required literal run, specificity, lessons sharing it)
CommandEntry = tuple[int, str, str, str, tuple[int, ...], int]
# (lesson number, keyword, its tokens, specificity, lessons sharing it)
KeywordEntry = tuple[int, str, tuple[str, ...], tuple[int, ...], int]


@dataclass(frozen=True)
class RecallIndex:
    """Lesson ``n`` of every entry is ``ids[n]``; BM25 document ``n`` is the same lesson."""

    ids: tuple[str, ...]
    rules: tuple[str, ...]
    created: tuple[int, ...]  # YYYYMMDD, so newer is larger
    gates: tuple[bool, ...]
    globs: tuple[GlobEntry, ...]
    exact: dict[str, tuple[int, ...]]  # path -> numbers of globs naming exactly it
    by_prefix: dict[str, tuple[int, ...]]  # literal directory prefix -> glob numbers
    commands: tuple[CommandEntry, ...]
    keywords: dict[str, tuple[KeywordEntry, ...]]  # first token -> keywords
    bm25: TermStats
    skipped: tuple[tuple[str, str, str], ...]  # (lesson id, trigger, why it was left out)

    def to_data(self) -> tuple[Any, ...]:
        """Plain nested data for ``marshal.dumps``."""
        stats = self.bm25
        return (
            INDEX_VERSION,
            self.ids,
            self.rules,
            self.created,
            self.gates,
            self.globs,
            self.exact,
            self.by_prefix,
            self.commands,
            self.keywords,
            (stats.idf, stats.postings, stats.doc_len, stats.avgdl),
            self.skipped,
        )

    @classmethod
    def from_data(cls, data: tuple[Any, ...]) -> RecallIndex:
        if not data or data[0] != INDEX_VERSION:
            raise ValueError("recall index data of another version")
        (
            _,
            ids,
            rules,
            created,
            gates,
            globs,
            exact,
            by_prefix,
            commands,
            keywords,
            stats,
            skipped,
        ) = data
        idf, postings, doc_len, avgdl = stats
        return cls(
            ids=ids,
            rules=rules,
            created=created,
            gates=gates,
            globs=globs,
            exact=exact,
            by_prefix=by_prefix,
            commands=commands,
            keywords=keywords,
            bm25=TermStats(idf=idf, postings=postings, doc_len=doc_len, avgdl=avgdl),
            skipped=skipped,
        )


def bm25_terms(lesson: Lesson) -> list[str]:
    """The words BM25 scores a lesson by: meaningful words of its rule and rationale."""
    return meaningful(tokens(f"{lesson.rule} {lesson.rationale or ''}"))


def build_index(lessons: Iterable[Lesson]) -> RecallIndex:
    """Index the active lessons among ``lessons`` (in id order, so the index is stable)."""
    active = sorted((lesson for lesson in lessons if lesson.is_active), key=lambda x: x.id)
    builder = _Builder(_share_counts(active))
    for number, lesson in enumerate(active):
        for glob in dict.fromkeys(lesson.triggers.files):
            builder.add_glob(number, lesson.id, glob)
        for pattern in dict.fromkeys(lesson.triggers.commands):
            builder.add_command(number, lesson.id, pattern)
        for keyword in dict.fromkeys(lesson.triggers.keywords):
            builder.add_keyword(number, lesson.id, keyword)
    return RecallIndex(
        ids=tuple(lesson.id for lesson in active),
        rules=tuple(lesson.rule for lesson in active),
        created=tuple(int(lesson.created.replace("-", "")) for lesson in active),
        gates=tuple(lesson.gate for lesson in active),
        globs=tuple(builder.globs),
        exact={path: tuple(numbers) for path, numbers in builder.exact.items()},
        by_prefix={prefix: tuple(numbers) for prefix, numbers in builder.by_prefix.items()},
        commands=tuple(builder.commands),
        keywords={word: tuple(entries) for word, entries in builder.keywords.items()},
        bm25=term_stats([bm25_terms(lesson) for lesson in active]),
        skipped=tuple(builder.skipped),
    )


@dataclass
class _Builder:
    """Accumulates index entries; a trigger that does not compile goes to ``skipped``."""

    shares: Counter[tuple[str, str]]
    globs: list[GlobEntry] = field(default_factory=list)
    exact: dict[str, list[int]] = field(default_factory=dict)
    by_prefix: dict[str, list[int]] = field(default_factory=dict)
    commands: list[CommandEntry] = field(default_factory=list)
    keywords: dict[str, list[KeywordEntry]] = field(default_factory=dict)
    skipped: list[tuple[str, str, str]] = field(default_factory=list)

    def add_glob(self, number: int, lesson_id: str, glob: str) -> None:
        from lessons_core.globs import GlobError, compile_glob, has_glob_chars, literal_prefix

        try:
            compiled = compile_glob(glob)
        except GlobError as err:
            self.skipped.append((lesson_id, glob, f"file trigger {err}"))
            return
        text = compiled.glob
        if has_glob_chars(text):
            self.by_prefix.setdefault(literal_prefix(text), []).append(len(self.globs))
        else:
            self.exact.setdefault(text, []).append(len(self.globs))
        spec, share = glob_specificity(text), self.shares["file", text]
        self.globs.append((number, text, compiled.regex, glob_suffix(text), spec, share))

    def add_command(self, number: int, lesson_id: str, pattern: str) -> None:
        from lessons_core.commands import CommandPatternError, compile_command
        from lessons_core.regex_literals import required_run

        try:
            regex = compile_command(pattern).regex
        except CommandPatternError as err:
            self.skipped.append((lesson_id, pattern, f"command trigger {err}"))
            return
        spec, share = command_specificity(pattern), self.shares["command", pattern]
        self.commands.append((number, pattern, regex, required_run(pattern), spec, share))

    def add_keyword(self, number: int, lesson_id: str, keyword: str) -> None:
        words = tuple(tokens(keyword))
        if not words:
            self.skipped.append((lesson_id, keyword, "keyword has no letters or digits"))
            return
        spec, share = keyword_specificity(keyword), self.shares["keyword", " ".join(words)]
        self.keywords.setdefault(words[0], []).append((number, keyword, words, spec, share))


def _share_counts(active: list[Lesson]) -> Counter[tuple[str, str]]:
    """How many active lessons carry each trigger (globs normalised, keywords by words)."""
    from lessons_core.globs import normalise_glob

    counts: Counter[tuple[str, str]] = Counter()
    for lesson in active:
        triggers = lesson.triggers
        counts.update({("file", normalise_glob(glob)) for glob in triggers.files})
        counts.update({("command", pattern) for pattern in triggers.commands})
        counts.update({("keyword", " ".join(tokens(word))) for word in triggers.keywords})
    return counts


def load_index(layout: Layout) -> tuple[RecallIndex, list[InvalidLessonFile]]:
    """The index of ``layout``'s graph, and the lesson files that failed to parse."""
    from lessons_core.store import load_graph

    graph = load_graph(layout)
    return build_index(graph.lessons.values()), list(graph.broken)
