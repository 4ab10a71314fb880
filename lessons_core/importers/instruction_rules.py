"""The rules of one section of an instruction file, each read in its context.

A bullet or a sentence of prose becomes a rule only when it instructs
(``normative.left_reason``); the rest is reported with the reason it stays. Context
keeps a bullet's meaning:

- under a heading such as "Do not" or "Avoid", or after a lead-in that forbids ("Never
  emit either of the following:"), a bullet is a prohibition and says so ("Do not edit
  `uv.lock` by hand", never "Edit `uv.lock` by hand");
- after a lead-in ("Run `make docs` when you change:"), a bullet that is no sentence of
  its own completes it ("Run `make docs` when you change `docs/`");
- a rule ending in "with:" above a code block of one command takes that command;
- a bullet ending in ":" with bullets nested below it ("**Validation Steps**:") heads
  them, each judged as a bullet of its own;
- a nested bullet that is a rule of its own is a lesson too.

A rule keeps its first instructing sentence; what follows it (the other sentences, the
words after a dash, the nested bullets) is its rationale.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from lessons_core.importers.markdown_rules import Body, Item
from lessons_core.importers.markdown_text import (
    clean,
    complete_lead_in,
    outside_code,
    sentences,
    split_rationale,
)
from lessons_core.importers.normative import (
    Left,
    about_place,
    after_label,
    as_prohibition,
    describes_steps,
    entry_place,
    is_link_list,
    is_normative,
    left_reason,
    points_back,
    prohibiting_heading,
    says_a_rule,
)

# A heading's number: "3. Testify Suite Correctness", "1) Setup".
_NUMBERING = re.compile(r"^\s*\d{1,3}[.)]\s+")
# A heading in title case, its second word capitalised too: "Test Helper Imports".
_TITLE_CASE = re.compile(r"^\s*\S+\s+[A-Z]")
# A lead-in a bullet can complete in one rule ("Run `make docs` when you change:"); a
# longer paragraph ending in ":" introduces its list rather than being finished by it.
MAX_LEAD_IN_CHARS = 120
_JOINING_ENDS = frozenset(
    "change changes edit edits touch modify to in on for with of about under when after "
    "before use run avoid never".split()
)
# A lead-in ending on a verb of knowing ("Behavior you must know:") introduces facts: its
# "must" asks for attention to the bullets below it, which say what is so.
_KNOWING_ENDS = frozenset("know note remember understand".split())
_FINISHING_WORDS = _JOINING_ENDS | _KNOWING_ENDS


@dataclass(frozen=True)
class Found:
    """A rule of the section (``left`` None), or a piece that stays, with why."""

    text: str
    rationale: str | None = None
    left: Left | None = None


def section_rules(heading: str, body: Body) -> list[Found]:
    """Every rule and every piece left in one section under ``heading``, in order."""
    found: list[Found] = []
    for index, paragraph in enumerate(body.paragraphs):
        text = complete_lead_in(clean(paragraph), body.paragraph_code.get(index))
        if index in body.lead_ins:
            # Its last sentence opens the list and goes with the bullets (carried by
            # them, or reported with them), unless it is a rule the bullets do not
            # finish ("Use tox for testing (not pytest directly):"), judged as one. The
            # sentences before it are prose.
            said = sentences(text)
            last = said.pop().rstrip(" :") + "." if said else ""
            if not _ends_on(last, _FINISHING_WORDS) and left_reason(last, heading) is None:
                said.append(last)
            text = " ".join(said)
        found.extend(_prose(text, heading))
    forbidding = prohibiting_heading(heading)
    for item in body.items:
        if item.rule:
            found.append(_item(item, heading, forbidding))
            found.extend(_item(sub, heading, forbidding) for sub in _opened(item))
            found.extend(_nested_rules(item, heading, forbidding))
    found.extend(Found(row, left=Left.TABLE) for row in body.tables if set(row) - set("|-: "))
    ruling = _heading_rule(heading, body)
    return found if ruling is None else [ruling, *found]


def _heading_rule(heading: str, body: Body) -> Found | None:
    """The rule a heading says itself ("Don't edit files under `docs/`", "Use testify for
    assertions"), with the first sentence below it as its reason; None for a heading
    that names a topic ("Test Helper Imports", in title case), leads into its section
    ("What belongs in resources:"), heads a list of things not to do ("Do not"), or
    names a task whose steps follow ("Create a release" above numbered steps or a code
    block)."""
    text = clean(_NUMBERING.sub("", heading)).strip().rstrip(".")
    if not text or text.endswith(":") or prohibiting_heading(text):
        return None
    if left_reason(text + ".") is not None:
        return None
    if not says_a_rule(text):
        steps = body.code_blocks or body.paragraph_code or any(i.ordered for i in body.items)
        if steps or _TITLE_CASE.match(outside_code(text)):
            return None
    first = sentences(clean(body.paragraphs[0]))[:1] if body.paragraphs else []
    return Found(text + ".", first[0] if first else None)


def _prose(paragraph: str, heading: str) -> list[Found]:
    """A paragraph's rules: each instructing sentence that stands on its own."""
    result: list[Found] = []
    for sentence in sentences(paragraph):
        left = left_reason(sentence, heading)
        if left is not None:
            result.append(Found(sentence, left=left))
            continue
        rule, rationale = split_rationale(sentence)
        left = left_reason(rule, heading)  # the rule is what stands before the dash
        result.append(Found(sentence, left=left) if left else Found(rule, rationale))
    return result


def _item(item: Item, heading: str, forbidding: bool) -> Found:
    if is_link_list(item.rule):
        return Found(item.rule, left=Left.LINK_LIST)
    text = clean(item.rule)
    if _heads_examples(item):
        # "Use the shared helpers instead of re-deriving widths:" above a list of the
        # helpers: the bullet is the rule, its list what the rule means
        text = text.rstrip().rstrip(":").rstrip() + "."
    if item.code is not None:
        text = complete_lead_in(text, item.code)
    lead_in = sentences(clean(item.lead_in))[-1] if item.lead_in else None
    if _describes(text, lead_in, heading, item.ordered):
        return Found(text, left=Left.DESCRIPTION)
    pointed = None if forbidding else _pointed_at(text, lead_in, heading, item.ordered)
    if pointed is not None:
        return pointed
    if lead_in and prohibiting_heading(lead_in) and not is_normative(text):
        forbidding = True  # "Never emit either of the following:" above what not to emit
    short = lead_in is not None and len(lead_in) <= MAX_LEAD_IN_CHARS
    if (
        short
        and lead_in
        and _finished_by_bullets(lead_in)
        and not is_normative(text)
        and is_normative(lead_in[:-1])
    ):
        text = _completed(lead_in[:-1].rstrip(), text)
    if forbidding:
        text = as_prohibition(text, heading)
    rule, rest = _first_rule(text, heading, item.ordered)
    if rule is None:
        return Found(text, left=left_reason(text, heading, item.ordered) or Left.DESCRIPTION)
    rule, after_dash = split_rationale(rule)
    left = left_reason(rule, heading, item.ordered)  # the rule is what stands before the dash
    if left is not None:
        return Found(text, left=left)
    rationale = "; ".join(part for part in (after_dash, rest, item.rationale) if part)
    return Found(rule, rationale or None)


def _describes(text: str, lead_in: str | None, heading: str, ordered: bool) -> bool:
    """Whether the bullet ``text`` is a part of a description, unless a rule word says
    otherwise: a numbered step under a heading naming how the project works ("1.
    **Authoring**: Write `schema.psl` ..." under "Contract Flow"), or a labelled bullet
    after a sentence that describes ("- **Typed**: Emit ..." after "X is a typed
    layer:")."""
    if says_a_rule(after_label(text) or text):
        return False
    if ordered and describes_steps(heading):
        return True
    described = lead_in is not None and left_reason(lead_in[:-1]) is Left.DESCRIPTION
    return described and bool(after_label(text))


def _pointed_at(text: str, lead_in: str | None, heading: str, ordered: bool) -> Found | None:
    """The rule of a lead-in pointing at the place the entry ``text`` names, with what
    the entry says of it as its reason ("Do not edit these directly:" above "`tox.ini` -
    generated by ..."), or None."""
    place = entry_place(text)
    if not (lead_in and place and points_back(lead_in[:-1])):
        return None
    rule, reason = split_rationale(about_place(lead_in[:-1].rstrip(), place))
    if left_reason(rule, heading, ordered) is not None:
        return None
    said = text[len(place) :].lstrip(" :-–—")
    return Found(rule, "; ".join(part for part in (said, reason) if part))


def _heads_examples(item: Item) -> bool:
    """Whether ``item`` ends in ":", instructs, and opens a list that holds no rule (its
    examples): the bullet is then a rule of its own."""
    text = clean(item.rule).rstrip()
    if not text.endswith(":") or item.code is not None or not item.details_text:
        return False
    if left_reason(text[:-1]) is not None:
        return False
    return all(not is_normative(clean(detail)) for detail in item.details_text)


def _opened(item: Item) -> list[Item]:
    """The nested bullets a bullet ending in ":" opens ("**Validation Steps**:" above
    "Lint code before submitting PRs"), each an item of its own: such a bullet is a
    heading of its list, and its bullets are the rules, each judged on its own words
    (under "Use Conventional Commits:", "`test`: adding tests" is no rule)."""
    if not item.rule.rstrip().endswith(":") or _heads_examples(item):
        return []
    return [Item([line], ordered=item.ordered) for line in item.details_text]


def _finished_by_bullets(lead_in: str) -> bool:
    """Whether the bullets under ``lead_in`` (a sentence ending in ":") finish it: it
    ends on a word that wants what follows ("when you change:", "applies to:")."""
    return _ends_on(lead_in, _JOINING_ENDS)


def _ends_on(lead_in: str, ends: frozenset[str]) -> bool:
    """Whether ``lead_in``'s last word is one of ``ends``."""
    said = lead_in.rstrip(" :.").rsplit(maxsplit=1)
    return bool(said) and said[-1].lower() in ends


def _nested_rules(item: Item, heading: str, forbidding: bool) -> list[Found]:
    """The nested bullets of a bullet that does not end in ":" which are rules of their
    own ("**README.md**: Do NOT edit `README.md` directly." above "Edit
    `internal/readme/README.src.md`."): each is a lesson too, and stays in its parent's
    rationale. A nested bullet that is no rule is rationale only, and not reported."""
    if item.rule.rstrip().endswith(":"):
        return []  # it heads its list (``_opened``)
    nested = (
        _item(Item([line], ordered=item.ordered), heading, forbidding) for line in item.details_text
    )
    return [found for found in nested if found.left is None]


def _completed(lead_in: str, text: str) -> str:
    """The lead-in ``lead_in`` (its ":" gone) finished by the bullet ``text``."""
    joined = f"{lead_in} {text}"
    return joined if joined.endswith((".", "!", "?")) else joined + "."


def _first_rule(text: str, heading: str, ordered: bool) -> tuple[str | None, str | None]:
    """(the first sentence of ``text`` that is a rule, the other sentences). In an entry
    of a list of places ("`sqlite/upstream/` - golden tests. Do not modify these."), a
    later sentence that names no place of its own is about the entry's, and says so."""
    said = sentences(text)
    place = entry_place(said[0]) if said else ""
    for index, said_here in enumerate(said):
        sentence = said_here
        if index and place and "`" not in sentence:
            sentence = about_place(sentence, place)
        left = left_reason(sentence, heading, ordered)
        if left is None:
            others = " ".join(said[:index] + said[index + 1 :])
            return sentence, others or None
        if left is Left.CONTEXT and index:
            # "Tests are documentation. Do not duplicate them in prose.": the rule leans
            # on the sentence before it, which says what "them" is; together they stand
            joined = _leaning_on(said[index - 1], sentence)
            if joined and left_reason(joined, heading, ordered) is None:
                others = " ".join(said[: index - 1] + said[index + 1 :])
                return joined, others or None
    return None, None


def _leaning_on(before: str, sentence: str) -> str:
    """``before`` and ``sentence`` as one, when ``before`` is a description ending in a
    full stop; "" otherwise."""
    if not before.endswith(".") or left_reason(before) is not Left.DESCRIPTION:
        return ""
    return f"{before[:-1]}; {sentence[0].lower()}{sentence[1:]}"
