"""Always-on lessons: rules for every task ("use pnpm, never npm"), delivered where the
session note is (session start, ``/clear``, after compaction) instead of before an edit
or command, inside the ``always_max_tokens`` budget.

They come from the recall index's ``always`` part (and the topic counts from its
``topics`` part), which a reader loads only when asked: an edit or command hook opens the
same index and never touches either, so it pays nothing for them.

The block is the usual fenced one, oldest lesson first, each labelled ``always on``;
lessons that do not fit are counted in the usual notice. Delivered lessons are claimed
in the session like any other, so a trigger of one of them stays quiet until the next
reset, when both come back. Where a harness starts no session after compacting, the
first hook after it that can add context brings them (``deliver.with_due``). With
``session_topics``, a last line names the topics with
most lessons (what the agent can look up with ``lessons query``), in the same budget.
"""

from __future__ import annotations

from itertools import islice
from typing import TYPE_CHECKING, NamedTuple

from lessons_core.fsutil import note
from lessons_core.index.cache import cached_index, rebuilt_index
from lessons_core.index.file_format import CorruptIndex
from lessons_core.recall.render import (
    CLOSE,
    FRAME_TOKENS,
    HEADER,
    OPEN,
    block_header,
    estimate_tokens,
    fitting,
    neutralise,
    notice,
)
from lessons_core.recall.scopes import other_sources, source_index
from lessons_core.recall.types import Hit
from lessons_core.session import state as sessions
from lessons_core.store.layout import lessons_command

if TYPE_CHECKING:
    from collections.abc import Iterable, Sequence

    from lessons_core.index.entries import RecallIndex
    from lessons_core.store.config import Config
    from lessons_core.store.layout import Layout

VIA = "always"
TOPICS_PREFIX = "Topics with most lessons: "
# Topics named on the topics line at most, and how long one name may be.
MAX_TOPICS = 8
MAX_TOPIC_CHARS = 40


class AlwaysBlock(NamedTuple):
    """What session start shows: the block (``""`` when nothing), the ids in it, how many
    always-on lessons did not fit, and the topics line's tokens (0 when there is none)."""

    text: str
    shown: tuple[str, ...]
    more: int
    topic_tokens: int = 0


def always_hits(index: RecallIndex) -> list[Hit]:
    """Every active always-on lesson, oldest first, as a hit labelled ``always on``."""
    rows = index.rows(index.always)
    return [
        Hit(lesson_id=row[0], rule=row[1], via=VIA, trigger="", terms=(), gate=row[3])
        for row in (rows[n] for n in index.always)
    ]


def topics_line(
    topics: Iterable[tuple[str, int]], count: int = MAX_TOPICS, lessons: str = "lessons"
) -> str:
    """``Topics with most lessons: build (42), testing (17); ask: lessons query --prompt
    WORDS`` ('' without topics): the first ``count`` of ``topics``, (topic, lessons in
    it) largest first. ``lessons``: the command that runs lessons."""
    named = [
        f"{neutralise(topic, MAX_TOPIC_CHARS)} ({size})" for topic, size in islice(topics, count)
    ]
    if not named:
        return ""
    return f"{TOPICS_PREFIX}{', '.join(named)}; ask: {lessons} query --prompt WORDS"


def render(lines: Sequence[str], more: int, topics: str = "", header: str = HEADER) -> str:
    """The fenced block of rule ``lines`` (``render.hit_line``), the notice for ``more``,
    then ``topics``; ``header`` "" leaves the header out (the session note said it)."""
    if not lines and not topics:
        return ""
    block = [OPEN, *((header,) if header else ()), *lines]
    if more > 0:
        block.append(notice(more))
    if topics:
        block.append(topics)
    block.append(CLOSE)
    return "\n".join(block)


def fit(
    index: RecallIndex,
    budget: int,
    with_topics: bool = False,
    lessons: str = "lessons",
    header: str = HEADER,
) -> AlwaysBlock:
    """The block of ``index``'s always-on lessons (and topics line) within ``budget``."""
    topics = index.topics if with_topics else ()
    return fit_hits(always_hits(index), budget, topics, lessons, header)


def fit_hits(
    hits: Sequence[Hit],
    budget: int,
    topics: Sequence[tuple[str, int]] = (),
    lessons: str = "lessons",
    header: str = HEADER,
) -> AlwaysBlock:
    """The always-on block within ``budget`` tokens: ``hits`` in order while the block
    (frame and notice included) fits, costed as recall costs its rules
    (``render.fitting``), but never past the budget, not even for the first; then the
    line of ``topics``, if any, naming fewer of them until it fits."""
    lines = fitting(hits, budget)
    used = FRAME_TOKENS + sum(estimate_tokens(line) for line in lines)
    if used > budget:  # the first rule alone, which ``fitting`` always keeps
        lines, used = (), FRAME_TOKENS
    more = len(hits) - len(lines)
    text = render(lines, more, header=header)
    topic_tokens = 0
    for count in range(MAX_TOPICS, 0, -1) if topics else ():
        line = topics_line(topics, count, lessons)
        if used + estimate_tokens(line) <= budget:
            with_line = render(lines, more, line, header)
            topic_tokens = estimate_tokens(with_line) - estimate_tokens(text)
            text = with_line
            break
    return AlwaysBlock(text, tuple(hit.lesson_id for hit in hits[: len(lines)]), more, topic_tokens)


def pack_always_hits(layout: Layout, config: Config) -> list[Hit]:
    """The always-on lessons of the packs the config names, after the project's, labelled
    with their pack. Personal lessons never come here: they speak only on a trigger. A
    pack that cannot be read is noted and left out."""
    if not config.packs:
        return []

    hits: list[Hit] = []
    for store in other_sources(layout, config):
        if store.personal:
            continue
        try:
            found = always_hits(source_index(store))
        except Exception as err:  # one pack never silences the rest: noted, left out
            note(err)
            continue
        label = store.label
        hits += [
            hit._replace(lesson_id=store.qualified(hit.lesson_id), source=label) for hit in found
        ]
    return hits


def at_session_start(layout: Layout, key: str, config: Config) -> str | None:
    """The always-on block for a session that just started, was cleared or compacted,
    claimed in it so no trigger repeats one of its lessons; None when there is nothing."""
    if config.always_max_tokens <= 0:
        return None

    budget, topics = config.always_max_tokens, config.session_topics
    lessons = lessons_command(layout)
    # It comes right after the session note, which says what the header would.
    header = block_header(lessons, config.session_note)
    try:
        index = cached_index(layout, sampled_from=config.sampled_check_from)[0]
        hits = always_hits(index)
    except CorruptIndex:  # a damaged part surfaced on first use: never trust it
        index = rebuilt_index(layout)[0]
        hits = always_hits(index)
    hits += pack_always_hits(layout, config)
    block = fit_hits(hits, budget, index.topics if topics else (), lessons, header)
    if not block.text:
        return None
    if block.shown:
        sessions.claim(layout, key, list(block.shown))
    return block.text
