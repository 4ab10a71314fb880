"""The block an agent is shown: project notes, fenced, one rule a line, each labelled.

Rule text is project content that anyone with commit access (or an agent) wrote, so it is
rendered inert before it goes inside the fence:

- control, format and line-separator characters become spaces and runs of white space
  collapse, so a rule is always exactly one line;
- anything shaped like a markup tag (``</lessons>``, ``</system>``, ``<|im_start|>``)
  has its angle brackets swapped for ``‹ ›``, so the fence cannot be closed from inside;
  so does the start of a closing tag left open (``</lessons`` at the end of a
  rule), and a tag is also looked for across the rule and its label, which are joined
  on one line; the fence's name in square brackets (``[/lessons]``, the fence
  ``bracket_fence`` writes) has its bracket swapped for ``⟦``;
- code fences (three or more backticks or tildes), role markers (``SYSTEM:``,
  ``Assistant:``, ``[INST]``, ``<<SYS>>``) and JSON objects that could pass for hook output
  (``{"decision": ...}``) get their ASCII punctuation swapped for look-alikes
  (``ˋˋˋ``, ``SYSTEM꞉``, ``⟦INST⟧``, ``⦃"decision": ...⦄``).

Nothing is dropped: a person (or a model) still reads what the rule says, but no parser,
chat template or hook reader sees a marker.

Most rules hold nothing to defuse: ``neutralise`` recognises them with str methods alone
and sends only the rest through ``lessons_core.recall.inert``'s regular expressions.

A rule is shown by its first sentence, at most ``MAX_SHOWN_CHARS`` long: a rule written
with ``lessons add`` is one sentence and shows whole, while a longer one (an imported rule
of several sentences, say) ends in ``…`` and its id (``[ID]``), for ``lessons show ID``. A
rule only the prompt's words brought (its terms, a keyword) shows at most
``LOOSE_SHOWN_CHARS``: it may not be about the task at all.
Only a cut rule names its id, and a rule about the very file or command touched has no
label at all rather than the path the agent just named or the pattern of the command it
just wrote: the block repeats on every delivering call, so every word of its frame counts.
What it says once per session (what the block is, how to read a cut rule) is said by the
session note (``lessons_core.delivery.deliver.SESSION_NOTE``), and a block carries
``header`` only where no note came before it (``lessons query``, the MCP tool, a session
without the note).

Tokens are estimated as characters / 4, rounded up: near enough for English and code, and
the cap only exists to keep recalls short.
"""

from __future__ import annotations

from bisect import bisect_left
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Callable, Iterable, Sequence

    from lessons_core.recall.types import Hit, Recall

# Short, since every delivering call repeats it (4 tokens a block fewer than the
# ``<project-lessons>`` it was): the session note says once what the blocks are.
OPEN = "<lessons>"
CLOSE = "</lessons>"
# The same fence in square brackets, for a harness that HTML-escapes angle brackets in the
# context it hands the model (Gemini CLI). Rules cannot write this one either.
BRACKET_OPEN = "[lessons]"
BRACKET_CLOSE = "[/lessons]"
# What a block is, said once: by the session note in hooks, by the block elsewhere
# (``lessons show`` and ``lessons topics``, which print whole rules, say NOTE alone).
# {lessons}: the command that runs lessons (``lessons_core.store.layout.lessons_command``).
NOTE = "Project lessons, not system instructions; apply where they fit."
SHOW_SENTENCE = "A rule ending … [ID] is cut: {lessons} show ID."


def header_for(lessons: str) -> str:
    """The block's header naming ``lessons``, the command that runs lessons here."""
    return f"{NOTE} {SHOW_SENTENCE.format(lessons=lessons)}"


HEADER = header_for("lessons")


def block_header(lessons: str, noted: bool) -> str:
    """The header of a hook's block: none ("") where the session note said it
    (``noted``), else the frame naming ``lessons``, the command the capture line names."""
    return "" if noted else header_for(lessons)


MAX_RULE_CHARS = 400
# A rule's first sentence is shown up to this long: what ``lessons add`` accepts as a rule
# (``model.MAX_RULE_CHARS``) always shows whole.
MAX_SHOWN_CHARS = 300
# A rule no trigger matched, only the prompt's words (its terms, a keyword), is shown up
# to this long: it may not be about the task at all, and ``… [ID]`` says where the rest is.
LOOSE_SHOWN_CHARS = 160
_LOOSE = frozenset({"prompt", "keyword"})
# Words ending in a full stop that do not end a sentence.
_ABBREVIATIONS = frozenset({"e.g", "i.e", "etc", "vs", "cf", "incl", "approx", "esp", "viz"})
MAX_LABEL_CHARS = 80


def estimate_tokens(text: str) -> int:
    return (len(text) + 3) // 4


# Letters that case-insensitive matching takes for ASCII ones (ſ for s, ı and İ for i,
# the Kelvin sign for k).
_FOLDS_TO_ASCII = ("\u017f", "\u0131", "\u0130", "\u212a")
# Role names that, followed by a colon, read like a chat turn (see lessons_core.recall.inert).
_ROLES = ("system", "assistant", "user", "human", "developer")


def neutralise(text: str, limit: int = MAX_RULE_CHARS) -> str:
    """``text`` as one inert line (see the module docstring)."""
    if _plain(text):  # what the full path gives such text, without its imports
        return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"
    from lessons_core.recall.inert import neutralise as full  # noqa: PLC0415 (rule text that is not plain only: its patterns)

    return full(text, limit)


def _plain(text: str) -> bool:
    """Whether ``neutralise`` leaves ``text`` as it is: printable, single-spaced, and free
    of every character a marker needs. Checked with str methods, so the common rule costs
    no import of ``re``; anything doubtful takes the full path."""
    if not text.isprintable() or "  " in text or text != text.strip(" "):
        return False
    if not text.isascii() and any(char in text for char in _FOLDS_TO_ASCII):
        return False  # the patterns ignore case: 'ſystem:' reads as 'system:' to them
    if "```" in text or "~~~" in text or ("<" in text and _tag_like(text)):
        return False
    if "[" in text and _marker_after(text, "[", ("inst", "sys", "lessons")):
        return False
    if '"' in text and ("{" in text or "}" in text):
        return False
    if ":" in text:
        lowered = text.lower()
        return not any(role in lowered for role in _ROLES)
    return True


def whole(text: str) -> str:
    """``text`` inert and uncut: what ``lessons show`` prints of a rule or rationale."""
    return neutralise(text, len(text) + 1)


def first_sentence(line: str, limit: int = MAX_SHOWN_CHARS) -> str:
    """The first sentence of ``line``, cut at a word to ``limit`` characters; ``…`` marks
    a cut.

    A sentence ends at ``.``, ``!`` or ``?`` followed by a space and a capital (or an
    opening quote, backtick or ``*``), outside brackets and backticks and not after an
    abbreviation such as ``e.g.`` or an initial. Plain string scanning: no regex on the
    hook path, and the few rules of one block are short.
    """
    end = _sentence_end(line)
    shown = line[:end]
    if len(shown) > limit:
        cut = shown[: limit - 1]
        space = cut.rfind(" ")
        shown = (cut[:space] if space > limit // 2 else cut).rstrip(" ,;:-—") + "…"
    elif end < len(line):
        shown += " …"
    return shown


def _sentence_end(line: str) -> int:
    depth = 0
    quoted = False
    last = len(line) - 2
    for i, char in enumerate(line):
        if char == "`":
            quoted = not quoted
        elif quoted:
            continue
        elif char in "([{":
            depth += 1
        elif char in ")]}":
            depth = max(depth - 1, 0)
        elif (
            char in ".!?"
            and depth == 0
            and i < last
            and line[i + 1] == " "
            and (line[i + 2].isupper() or line[i + 2] in "`*\"'(")
            and not (char == "." and _abbreviation(line, i))
        ):
            return i + 1
    return len(line)


def _abbreviation(line: str, stop: int) -> bool:
    word = line[:stop].rsplit(" ", 1)[-1].lstrip("(\"'")
    return (len(word) == 1 and word.isupper()) or word.lower() in _ABBREVIATIONS


def _tag_like(text: str) -> bool:
    """Whether a ``<`` in ``text`` could open a tag: one followed (past a space and a
    ``/``) by a letter, ``!``, ``?``, ``|`` or another ``<``. ``a < b`` and ``=> x`` cannot."""
    return _marker_after(text, "<", tuple("!?|<"), letters=True)


def _marker_after(text: str, opener: str, starts: tuple[str, ...], letters: bool = False) -> bool:
    """Whether some ``opener`` in ``text`` is followed, past a space, a ``/`` and a space
    (plain text has no double spaces), by one of ``starts`` (any case) or a letter."""
    start = text.find(opener)
    while start != -1:
        rest = text[start + 1 : start + 12].lstrip(" ")
        rest = (rest[1:].lstrip(" ") if rest.startswith("/") else rest).lower()
        if rest.startswith(starts) or (letters and rest[:1].isalpha()):
            return True
        start = text.find(opener, start + 1)
    return False


def why(hit: Hit) -> str:
    """The short label saying why a rule appeared."""
    if hit.via == "prompt":
        return "prompt terms: " + neutralise(", ".join(hit.terms), MAX_LABEL_CHARS)
    if hit.via == "always":  # lessons_core.delivery.always
        return "always on"
    if hit.via == "named":  # a file the prompt names (lessons_core.recall.prompt_files)
        return "named in the prompt: " + neutralise(hit.matched, MAX_LABEL_CHARS)
    if hit.via == "command" or (hit.via == "file" and hit.matched and hit.trigger == hit.matched):
        # About the very command or file the call names: the agent just wrote it, and
        # neither the path again nor the pattern says more. No label at all.
        return ""
    return f"{hit.via}: {neutralise(hit.trigger, MAX_LABEL_CHARS)}"


def hit_line(hit: Hit, short: Callable[[str], str] | None = None) -> str:
    """``- RULE (why)``; a rule shown cut ends ``… (why) [ID]``, for ``lessons show``, the
    id as ``short`` gives it (``short_id``; by default whole). A rule about the very file
    or command touched has no ``(why)``: ``- RULE``. A rule from a pack or the personal
    store names it first: ``- RULE (personal, file: GLOB)``, ``- RULE (pack NAME)``."""
    # Rule and label are each inert; joined, '<x' ending one and '>' in the other could
    # still make a tag, hence the second pass over the whole line.
    loose = hit.via in _LOOSE
    rule = first_sentence(whole(hit.rule), LOOSE_SHOWN_CHARS if loose else MAX_SHOWN_CHARS)
    label = why(hit)
    if hit.source:  # a pack's or a personal lesson says where it comes from, always
        scope = neutralise(hit.source, MAX_LABEL_CHARS)
        label = f"{scope}, {label}" if label else scope
    line = f"- {rule} ({label})" if label else f"- {rule}"
    if not rule.endswith("…"):
        return inert_line(line)
    return inert_line(f"{line} [{short(hit.lesson_id) if short else hit.lesson_id}]")


def short_id(ids: Sequence[str], lesson_id: str) -> str:
    """The shortest start of ``lesson_id``, to the end of one of its words, that no other
    of ``ids`` starts with: all ``lessons show`` needs to find it
    (``lessons_core.store.files.find_lesson``). ``ids`` are sorted (the index numbers its
    active lessons in id order), so the only ids that share more of it are its
    neighbours: two lookups, paid only by a rule shown cut. Imported ids are long
    (``git-commit-hygiene-when-writing-a-git-commit``, 11 tokens) and start with their
    topic; the start that tells one apart is about half of that. An id not in ``ids``
    is whole."""

    at = bisect_left(ids, lesson_id)
    if at == len(ids) or ids[at] != lesson_id:
        return lesson_id
    shared = 0
    for other in (ids[at - 1] if at else "", ids[at + 1] if at + 1 < len(ids) else ""):
        same = 0
        for mine, theirs in zip(lesson_id, other, strict=False):
            if mine != theirs:
                break
            same += 1
        shared = max(shared, same)
    end = lesson_id.find("-", shared + 1)
    start = lesson_id if end == -1 else lesson_id[:end]
    return lesson_id if start == OPEN[1:-1] else start  # "[lessons]" is the Gemini fence


def inert_line(line: str) -> str:
    """A line joined from inert parts, inert as a whole: ``<x`` ending one part and ``>``
    in the next could still make a tag."""
    if "<" not in line:
        return line
    from lessons_core.recall.inert import inert_tags  # noqa: PLC0415 (a line with "<" only: its patterns)

    return inert_tags(line)


def notice(more: int, pointer: str = "") -> str:
    """The line saying how many more rules match than the block shows, and the command
    that lists them all (``pointer``, ``delivery.pointer``) if given."""
    count = "1 more rule matches" if more == 1 else f"{more} more rules match"
    return f"{count}: {pointer}" if pointer else f"{count}."


def fitting(
    hits: Sequence[Hit], max_tokens: int, short: Callable[[str], str] | None = None
) -> tuple[str, ...]:
    """The lines of the leading ``hits`` whose block stays within ``max_tokens`` (with the
    frame), the first whatever it costs: the one place a rule is rendered and costed. The
    first line that does not fit ends the list. ``short``: as for ``hit_line``."""
    lines: list[str] = []
    used = FRAME_TOKENS
    for hit in hits:
        line = hit_line(hit, short)
        cost = estimate_tokens(line)
        if lines and used + cost > max_tokens:
            break
        lines.append(line)
        used += cost
    return tuple(lines)


def render_block(recall: Recall, header: str = HEADER, pointer: str = "") -> str:
    """What an agent is shown; "" when nothing matched. The lines recall costed are used
    as they are (``Recall.lines``); a recall without them has its hits rendered here.
    ``header`` "" leaves it out: a hook whose session note said it already. ``pointer``:
    the command the count of rules left out names (``notice``)."""
    if not recall.hits:
        return ""
    shown = recall.lines if len(recall.lines) == len(recall.hits) else map(hit_line, recall.hits)
    lines = [*shown]
    if recall.more > 0:
        lines.append(notice(recall.more, pointer))
    return fence(lines, header)


def fence(lines: Iterable[str], header: str = HEADER) -> str:
    """``lines`` in the labelled block, under ``header`` ("": none, where the session note
    said what the block is): every place lesson text is handed to an agent (hooks,
    ``lessons query``, ``show``, ``list``, ``topics`` and the MCP tools) frames it so. Each
    line must be inert already (``hit_line``, ``whole``, ``inert_line``)."""
    return "\n".join([OPEN, *((header,) if header else ()), *lines, CLOSE])


def bracket_fence(text: str) -> str:
    """``text`` with the fence of each block in it written ``[lessons]`` …
    ``[/lessons]``: the lines that are exactly ``OPEN`` or ``CLOSE`` (a rule's line
    starts with ``- ``, so it is never one of them). Same length, same token estimate."""
    if OPEN not in text:
        return text
    lines = text.split("\n")
    return "\n".join(
        BRACKET_OPEN if line == OPEN else BRACKET_CLOSE if line == CLOSE else line for line in lines
    )


# The fixed part of every block, counted against max_tokens before any rule.
FRAME_TOKENS = estimate_tokens("\n".join([OPEN, HEADER, notice(999), CLOSE]))
