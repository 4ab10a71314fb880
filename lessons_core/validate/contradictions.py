"""L204: active lessons whose rules say opposite things where both fire.

"Always push tags" beside "Never push tags", "use pnpm instead of npm" beside "use npm
instead of pnpm": an agent shown both gets no rule at all. Each rule is read into its
stances (``stances``: for or against a set of words, lexically, in the languages the
correction cues cover); lessons are bucketed by stance, so only two lessons holding
opposite stances about the same words are ever compared, and such a pair is reported only
when their triggers can fire on the same call (``overlap.shared_trigger``). That keeps the
check linear in the number of lessons, with one comparison per opposed pair.

The same object is often worded apart: "Always run npm install with --legacy-peer-deps"
and "Never pass --legacy-peer-deps to npm install". Stances are also bucketed by the code
they name (``stances.anchors``: a flag, a path, an identifier), and two of opposite
polarity naming the same one are compared word by word (``stances.same_object``).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterator, Sequence
from typing import NamedTuple

from lessons_core.authoring.stances import Stance, anchors, same_object, stances
from lessons_core.matching.glob_counts import FileIndex
from lessons_core.recall.printable import inert
from lessons_core.store.model import Lesson
from lessons_core.validate.context import Context
from lessons_core.validate.findings import Finding
from lessons_core.validate.overlap import shared_trigger

_NO_FILES = FileIndex(())


# How many opposing lessons one lesson's finding names: a rule reworded fifty times
# against one that says the opposite is one finding per lesson, not fifty each.
MAX_NAMED = 5


class Contradiction(NamedTuple):
    """``older`` and ``newer`` disagree: ``newer_says`` against ``older_says``; ``others``
    are further older lessons ``newer`` contradicts where both fire."""

    older: Lesson
    newer: Lesson
    older_says: Stance
    newer_says: Stance
    shared: str  # the trigger both fire on, as a message names it
    others: tuple[str, ...] = ()


def check(ctx: Context) -> Iterator[Finding]:
    active = sorted(ctx.graph.active(), key=lambda lesson: (lesson.created, lesson.id))
    for found in contradictions(active, ctx.files):
        yield finding(ctx.lesson_file(found.newer.id), found)


def finding(file: str, found: Contradiction) -> Finding:
    older, newer = found.older.id, found.newer.id
    also = f" (and {', '.join(repr(x) for x in found.others)})" if found.others else ""
    return Finding(
        "L204",
        file,
        f"the rule contradicts active lesson '{older}'{also}, and both fire on "
        f'{found.shared}: this one says "{inert(found.newer_says.text)}", '
        f"'{older}' says \"{inert(found.older_says.text)}\"",
        f"keep the one that holds and retire the other (lessons supersede {newer} --by "
        f"{older}, or lessons supersede {older} --by {newer}), or narrow a trigger so "
        "they never fire together",
        newer,
        '"rule"',
    )


def contradictions(lessons: Sequence[Lesson], files: FileIndex = _NO_FILES) -> list[Contradiction]:
    """One ``Contradiction`` for each lesson of ``lessons`` that contradicts an earlier
    one (``lessons`` in order, oldest first), naming up to ``MAX_NAMED`` of them."""
    held: dict[tuple[frozenset[str], bool], list[tuple[int, Stance]]] = defaultdict(list)
    # The code a stance names (``stances.anchors``), for stances worded apart.
    by_anchor: dict[tuple[str, bool], list[tuple[int, Stance]]] = defaultdict(list)
    for index, lesson in enumerate(lessons):
        for stance in _distinct(stances(lesson.rule)):
            held[stance.key, stance.positive].append((index, stance))
            for anchor in anchors(stance):
                by_anchor[anchor, stance.positive].append((index, stance))
    # newer lesson -> (older lesson, what the older says, what the newer says, trigger)
    against: dict[int, list[tuple[int, Stance, Stance, str]]] = defaultdict(list)
    judged: set[tuple[int, int]] = set()

    def judge(index: int, stance: Stance, other: int, opposite: Stance) -> None:
        older, newer = min(index, other), max(index, other)
        if index == other or (older, newer) in judged:
            return
        judged.add((older, newer))
        if len(against[newer]) >= MAX_NAMED:
            return
        shared = shared_trigger(lessons[older].triggers, lessons[newer].triggers, files)
        if shared is not None:
            says = {index: stance, other: opposite}
            against[newer].append((older, says[older], says[newer], shared))

    for (key, positive), holders in held.items():
        if positive:
            for index, stance in holders:
                for other, opposite in held.get((key, False), ()):
                    judge(index, stance, other, opposite)
    # Then the same object worded apart: opposite stances naming the same code.
    for (anchor, positive), holders in by_anchor.items():
        if positive:
            for index, stance in holders:
                for other, opposite in by_anchor.get((anchor, False), ()):
                    pair = (min(index, other), max(index, other))
                    if pair in judged or len(against[pair[1]]) >= MAX_NAMED:
                        continue  # judged already, or the newer one names enough
                    if same_object(stance, opposite):
                        judge(index, stance, other, opposite)
    found = []
    for newer in sorted(against):
        if not against[newer]:
            continue
        (older, older_says, newer_says, shared), *rest = sorted(against[newer], key=_first)
        others = tuple(lessons[n].id for n, *_ in rest)
        found.append(
            Contradiction(lessons[older], lessons[newer], older_says, newer_says, shared, others)
        )
    return found


def _first(entry: tuple[int, Stance, Stance, str]) -> int:
    return entry[0]


def _distinct(found: tuple[Stance, ...]) -> list[Stance]:
    """One stance per (words, polarity): a rule repeating itself is one vote."""
    seen: dict[tuple[frozenset[str], bool], Stance] = {}
    for stance in found:
        seen.setdefault((stance.key, stance.positive), stance)
    return list(seen.values())
