"""Whether two rules with mostly the same words are one rule reworded.

The near-duplicate similarity (``authoring.guards.similarity``) counts meaningful words;
"never", "always" and "use" are common, and code is split into words, so "always push
tags" and "never push tags", or "run `pnpm capabilities:seed`" and "run `pnpm
capabilities:audit`", score as copies. ``one_rule`` tells those apart, for L202 and for
the near-duplicate guard of ``lessons add`` alike.
"""

from __future__ import annotations

import re
from typing import NamedTuple

from lessons_core.authoring.stances import Stance, opposed, stances
from lessons_core.matching.words import fold, tokens

_CODE_SPAN = re.compile(r"`([^`\n]+)`")


class RuleView(NamedTuple):
    """What ``one_rule`` reads of a rule, read once a rule."""

    stances: tuple[Stance, ...]
    spans: frozenset[str]  # its code spans
    words: frozenset[str]


def _view(rule: str, views: dict[str, RuleView]) -> RuleView:
    found = views.get(rule)
    if found is None:
        spans = frozenset(fold(span.strip()) for span in _CODE_SPAN.findall(rule))
        found = views[rule] = RuleView(stances(rule), spans, frozenset(tokens(rule)))
    return found


def one_rule(first_rule: str, second_rule: str, views: dict[str, RuleView] | None = None) -> bool:
    """Whether two rules with mostly the same words say the same thing. Not when they
    say opposite things (``stances.opposed``), open with opposite polarity ("avoid
    `find -maxdepth`" / "use `find -maxdepth 2`"), name different code ("run `pnpm
    capabilities:seed`" / "run `pnpm capabilities:audit`"), or differ by opposite words
    ("keep X out of Y" / "put X in Y"): words such as "never" and "use" are too common to
    count, and code is split into words, so the similarity alone cannot tell those apart."""
    views = {} if views is None else views  # what each rule reads as, read once a rule
    first, second = _view(first_rule, views), _view(second_rule, views)
    if opposed(first.stances, second.stances):
        return False
    leads = [view.stances[0].positive for view in (first, second) if view.stances]
    if len(leads) == 2 and leads[0] != leads[1]:
        return False
    if first.spans and second.spans and first.spans.isdisjoint(second.spans):
        return False
    one_words, two_words = first.words, second.words
    return not any(
        (one in one_words and two in two_words and two not in one_words and one not in two_words)
        or (two in one_words and one in two_words and one not in one_words and two not in two_words)
        for one, two in _OPPOSITES
    )


# Words that turn a rule into its opposite with the rest unchanged ("keep X out of Y" /
# "put X in Y"); one rule holding one of a pair and the other rule the other are two rules.
_OPPOSITES = (
    ("before", "after"), ("with", "without"), ("add", "remove"), ("enable", "disable"),
    ("include", "exclude"), ("inside", "outside"), ("in", "out"), ("first", "last"),
    ("true", "false"), ("allow", "deny"), ("sync", "async"), ("min", "max"),
)  # fmt: skip
