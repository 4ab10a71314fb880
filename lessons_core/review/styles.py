"""How review text is written in each form: plain text for a terminal, or Markdown for a
pull request, with project content (rules, triggers, paths, commands) made harmless.

In both, every control, separator or bidi character is written as its escape
(``lessons_core.recall.printable``), so none acts on the terminal, the PR page or the diff that
shows the review. In Markdown, text has every character Markdown gives a meaning escaped
(no heading, link, emphasis or HTML can come of it, ``&`` included, so no entity either),
an ``@`` before a name or a ``#`` before a number is kept from becoming a mention or an
issue link (GitHub links them after Markdown is parsed, whatever the escapes, so a
zero-width space goes between), and code is a span whose fence is longer than any run of
backticks inside it, on one line, so it cannot close early nor open a fenced block.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import NamedTuple

from lessons_core.recall.printable import visible

_MARKDOWN_SPECIAL = re.compile(r"([\\`*_{}\[\]<>()#+!|~&])")
# "@name" and "#12", after escaping: GitHub's mention and issue links, defused.
_LINKED = re.compile(r"(@)(?=[\w-])|(\\#)(?=\d)")
_ZERO_WIDTH = "&#8203;"


def text(value: str) -> str:
    """Plain text with Markdown's special characters escaped, on one line."""
    escaped = _MARKDOWN_SPECIAL.sub(r"\\\1", visible(" ".join(value.split())))
    return _LINKED.sub(lambda found: found.group(0) + _ZERO_WIDTH, escaped)


def code(value: str) -> str:
    """Inline code that survives backticks inside ``value``, escapes written out."""
    value = visible(value)
    longest = max((len(run) for run in re.findall(r"`+", value)), default=0)
    fence = "`" * (longest + 1)
    pad = " " if value.startswith("`") or value.endswith("`") or longest else ""
    return f"{fence}{pad}{value}{pad}{fence}"


def plain(value: str) -> str:
    """Text for a terminal: on one line, control characters written as escapes."""
    return visible(" ".join(value.split()))


class Style(NamedTuple):
    text: Callable[[str], str]
    code: Callable[[str], str]
    heading: Callable[[int, str], str]
    quote: str  # before the rule
    bold: Callable[[str], str]


MARKDOWN = Style(text, code, lambda level, title: f"{'#' * level} {title}", "> ", "**{}**".format)
TEXT = Style(
    plain,
    lambda value: f"'{plain(value)}'",
    lambda level, title: title if level < 4 else f"{title}:",
    "  ",
    str,
)
