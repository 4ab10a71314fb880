"""L2xx: active rules that say the same thing, and lessons that tie on every recall.

Near-duplicates are found with prefix filtering (the all-pairs similarity join): with
words ordered rarest first, two word sets with Jaccard similarity >= t must share a word
among the first ``n - ceil(t * n) + 1`` of each, so only pairs meeting there are compared.
That keeps a thousand rules to a few thousand comparisons instead of half a million.
"""

from __future__ import annotations

import math
import re
from collections import Counter, defaultdict
from collections.abc import Iterator
from typing import NamedTuple

from lessons_core.authoring.guards import normalised_rule, rule_terms, term_similarity
from lessons_core.authoring.rewording import RuleView, one_rule
from lessons_core.matching.commit_messages import TYPED_COMMIT, UNSIGNED_COMMIT, UNTYPED_COMMIT
from lessons_core.matching.glob_match import normalise_glob
from lessons_core.matching.thresholds import CROWDED_TRIGGER_SET, NEAR_DUPLICATE_SIMILARITY
from lessons_core.matching.words import fold, tokens
from lessons_core.recall.printable import inert
from lessons_core.store.model import Lesson, Triggers
from lessons_core.validate.context import Context
from lessons_core.validate.findings import Finding


def check(ctx: Context) -> Iterator[Finding]:
    # Oldest first: the later lesson of a pair is the one reported.
    active = sorted(ctx.graph.active(), key=lambda lesson: (lesson.created, lesson.id))
    yield from _identical_and_near(ctx, active)
    yield from _crowded(ctx, active)


def _identical_and_near(ctx: Context, active: list[Lesson]) -> Iterator[Finding]:
    first_with: dict[str, Lesson] = {}
    distinct: list[Lesson] = []
    for lesson in active:
        twin = first_with.setdefault(normalised_rule(lesson.rule), lesson)
        if twin is lesson:
            distinct.append(lesson)
            continue
        yield Finding(
            "L201",
            ctx.lesson_file(lesson.id),
            f"the rule is identical to active lesson '{twin.id}'",
            f"merge its triggers into '{twin.id}' and delete this lesson (lessons rm {lesson.id})",
            lesson.id,
            '"rule"',
        )
    for cluster in near_copies(distinct):
        yield _near_finding(ctx, cluster)


class NearCopies(NamedTuple):
    """Active lessons whose rules are rewordings of one rule, oldest first; ``score``
    is the highest similarity of the newest to another of them."""

    lessons: tuple[Lesson, ...]
    score: float


def near_copies(lessons: list[Lesson]) -> list[NearCopies]:
    """The near-duplicate pairs of ``lessons`` (oldest first) joined into clusters: fifty
    rewordings of one rule are one cluster, not 1,225 pairs. A pair whose rules say
    opposite things ("always push tags" / "never push tags" share every meaningful word)
    is a contradiction (L204), not a copy; nor is any pair ``rewording.one_rule`` tells
    apart."""
    parent = list(range(len(lessons)))

    def root(index: int) -> int:
        while parent[index] != index:
            parent[index] = parent[parent[index]]
            index = parent[index]
        return index

    best: dict[int, float] = defaultdict(float)
    order = {id(lesson): n for n, lesson in enumerate(lessons)}
    views: dict[str, RuleView] = {}
    for older, newer, score in near_pairs(lessons):
        first, second = order[id(older)], order[id(newer)]
        joined = root(first) == root(second)  # already one cluster: nothing to judge
        if not joined and not one_rule(older.rule, newer.rule, views):
            continue
        parent[max(root(first), root(second))] = min(root(first), root(second))
        best[second] = max(best[second], score)
        best[first] = max(best[first], score)
    members: dict[int, list[int]] = defaultdict(list)
    for index in range(len(lessons)):
        members[root(index)].append(index)
    return [
        NearCopies(tuple(lessons[n] for n in group), best[group[-1]])
        for group in members.values()
        if len(group) > 1
    ]


def _near_finding(ctx: Context, cluster: NearCopies) -> Finding:
    """One finding a cluster, on its newest lesson (the one a commit usually adds)."""
    oldest, *middle, newest = cluster.lessons
    if not middle:
        message = f"the rule is {cluster.score:.0%} like active lesson '{oldest.id}'"
        fix = f"keep one: supersede the other (lessons supersede {newest.id} --by {oldest.id})"
    else:
        others = ", ".join(lesson.id for lesson in middle[:5]) + (
            f" and {len(middle) - 5} more" if len(middle) > 5 else ""
        )
        message = (
            f"the rule is one of {len(cluster.lessons)} near-copies of active lesson "
            f"'{oldest.id}' (also {others}; up to {cluster.score:.0%} alike)"
        )
        fix = (
            f"keep one: supersede the others by it (lessons supersede {newest.id} --by "
            f"{oldest.id}, and the same for each of the others)"
        )
    return Finding(
        "L202",
        ctx.lesson_file(newest.id),
        f"{message}: {inert(oldest.rule)}",
        f"{fix}, or reword them so each says something the other does not",
        newest.id,
        '"rule"',
    )


def near_pairs(lessons: list[Lesson]) -> list[tuple[Lesson, Lesson, float]]:
    """Pairs (earlier, later in ``lessons``) whose rules are near-duplicates."""
    sets = [rule_terms(lesson.rule) for lesson in lessons]
    return [(lessons[a], lessons[b], score) for a, b, score in similar_sets(sets)]


def similar_sets(sets: list[frozenset[str]]) -> list[tuple[int, int, float]]:
    """Index pairs (earlier, later) of word sets with Jaccard similarity at least
    ``NEAR_DUPLICATE_SIMILARITY``, and their similarity."""
    frequency = Counter(word for group in sets for word in group)
    # Each word set as an int bitmask: a candidate pair then costs two bit operations.
    bit = {word: 1 << n for n, word in enumerate(sorted(frequency))}
    masks = [sum(bit[word] for word in group) for group in sets]
    seen_at: dict[str, list[int]] = defaultdict(list)
    pairs: list[tuple[int, int, float]] = []
    threshold = NEAR_DUPLICATE_SIMILARITY
    for index, group in enumerate(sets):
        size = len(group)
        if not size:
            continue
        ordered = sorted(group, key=lambda w: (frequency[w], w))
        prefix = ordered[: size - math.ceil(threshold * size) + 1]
        candidates = {other for word in prefix for other in seen_at[word]}
        mask = masks[index]
        for other in sorted(candidates):
            shared = (mask & masks[other]).bit_count()
            union = size + len(sets[other]) - shared
            if shared >= threshold * union:
                pairs.append((other, index, term_similarity(sets[other], group)))
        for word in prefix:
            seen_at[word].append(index)
    return pairs


def _crowded(ctx: Context, active: list[Lesson]) -> Iterator[Finding]:
    groups: dict[tuple[tuple[str, ...], ...], list[Lesson]] = defaultdict(list)
    for lesson in active:
        if not lesson.triggers.is_empty():
            groups[_trigger_key(lesson)].append(lesson)
    for group in groups.values():
        if len(group) < CROWDED_TRIGGER_SET:
            continue
        folder = _own_folder(group)
        described = "" if folder else _described_by_source(group)
        for lesson in group:
            others = [x.id for x in group if x is not lesson]
            shown = ", ".join(others[:3]) + (
                f" and {len(others) - 3} more" if len(others) > 3 else ""
            )
            if folder:
                yield Finding(
                    "L207",
                    ctx.lesson_file(lesson.id),
                    f"{len(group)} active lessons imported from {folder}/ fire on that folder "
                    f"alone ({shown} too), as its instruction file applied there; recall "
                    "shows the first few by rank",
                    "nothing, unless one names a narrower file or command: give it that trigger",
                    lesson.id,
                    '"triggers"',
                )
                continue
            if described:
                yield Finding(
                    "L208",
                    ctx.lesson_file(lesson.id),
                    f"{len(group)} active lessons imported from {described} fire on the "
                    f"{_place_kind(group[0].triggers)} it describes "
                    f"them on ({shown} too); recall shows the first few by rank",
                    "nothing, unless one names a narrower file or command: give it that trigger",
                    lesson.id,
                    '"triggers"',
                )
                continue
            yield Finding(
                "L203",
                ctx.lesson_file(lesson.id),
                f"{len(group)} active lessons share exactly these triggers ({shown} too); "
                "they tie on every recall and crowd each other out of the budget",
                "give each lesson the narrower trigger it is really about, or merge them",
                lesson.id,
                '"triggers"',
            )


def _own_folder(group: list[Lesson]) -> str:
    """The folder a crowded group is scoped to when that scope is its source's own: only
    file triggers, all inside one folder, and every lesson imported from an instruction or
    rule file in that folder (``import:<path>`` evidence). A nested instruction file
    applies to its whole folder and names no narrower place for most of its rules, so
    sharing the folder is the file's meaning, not a mistake to fix; "" otherwise."""
    triggers = group[0].triggers
    if triggers.commands or triggers.keywords or not triggers.files:
        return ""
    folders = {_literal_folder(glob) for glob in triggers.files}
    if len(folders) != 1 or not (folder := folders.pop()):
        return ""
    if not all(normalise_glob(glob).startswith(folder + "/**") for glob in triggers.files):
        return ""  # a file of the folder, not the folder: the file's rules could differ
    for lesson in group:
        sources = [e.removeprefix("import:") for e in lesson.evidence if e.startswith("import:")]
        if not any(source.startswith(folder + "/") for source in sources):
            return ""
    return folder


def _place_kind(triggers: Triggers) -> str:
    """What a described place is, said in a finding: an action, a folder, a kind of file."""
    if triggers.commands:
        return "action"
    if all(_FOLDER.match(normalise_glob(glob)) for glob in triggers.files):
        return "folder"
    return "kind of file"


def _described_by_source(group: list[Lesson]) -> str:
    """The instruction files a crowded group was imported from when its shared trigger is
    a kind of file they describe (``**/*.test.ts``, ``tests/**/*.py``: only file
    triggers, each a wildcard over files of one kind, never one exact file) or a folder
    (``tests/e2e/**``, a heading naming it above its rules), and every
    lesson of it was imported; "" otherwise. "Mock with `vi.mock`" and "Use
    `beforeEach`" under a file's "Testing" heading are both about its test files, which
    is what the file says, not a trigger set someone got wrong. So are the rules it gives
    about a git or pull-request action (only command triggers, each such an action):
    "Confirm the change is user-facing" and "Disclose AI help" both on ``gh pr create``."""
    triggers = group[0].triggers
    if triggers.keywords or bool(triggers.commands) == bool(triggers.files):
        return ""
    if not all(
        _KIND_OF_FILE.search(normalise_glob(glob)) or _FOLDER.match(normalise_glob(glob))
        for glob in triggers.files
    ):
        return ""
    if not set(triggers.commands) <= _GIT_ACTIONS:
        return ""
    sources: dict[str, None] = {}
    for lesson in group:
        imported = [e.removeprefix("import:") for e in lesson.evidence if e.startswith("import:")]
        if not imported:
            return ""  # a lesson someone wrote names its own place
        sources.update(dict.fromkeys(imported))
    return ", ".join(sorted(sources))


# The git and pull-request actions import names in words ("before committing", "PR
# titles"), where an instruction file's rules about that step meet; a commit whose
# message opens with no type, or with one, for its rules on Conventional Commits; one
# with no sign-off.
_GIT_ACTIONS = frozenset(
    {"git commit", "git push", "git push --force", "gh pr create"}
    | {UNTYPED_COMMIT, TYPED_COMMIT, UNSIGNED_COMMIT}
    | {"gh pr comment", "gh issue comment", "gh pr review"}
)
# A glob over the files of one kind: ``**`` then a name pattern with a wildcard, or that
# name pattern alone (``*.py``: the root's files of that kind, as a rule file may scope).
_KIND_OF_FILE = re.compile(r"\*\*/[^/]*\*[^/]*$|^[^/]*\*[^/]*$")
# A folder, or a kind of file in one: "### `tests/e2e`" above its rules.
_FOLDER = re.compile(r"^[^*?\[{]+/\*\*(?:/\*\.[\w.]+)?$")


def _literal_folder(glob: str) -> str:
    """The folder part of ``glob`` before its first wildcard: ``src/api`` for
    ``src/api/**/*.py``."""
    literal = re.split(r"[*?\[{]", normalise_glob(glob), maxsplit=1)[0]
    return literal.rpartition("/")[0]


def _trigger_key(lesson: Lesson) -> tuple[tuple[str, ...], ...]:
    triggers = lesson.triggers
    return (
        tuple(sorted({normalise_glob(g) for g in triggers.files})),
        tuple(sorted(set(triggers.commands))),
        tuple(sorted({" ".join(tokens(k)) or fold(k) for k in triggers.keywords})),
    )
