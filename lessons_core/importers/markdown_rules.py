"""Rules out of a Markdown body: one per top-level bullet, or the prose as a whole.

Nested bullets elaborate their parent and become its rationale. Headings, rules and
HTML comments carry no rule. Code blocks cannot live in a one-line rule, so they are
counted as left behind, as are prose paragraphs standing beside a list (usually an
introduction such as "Follow these rules:"), and table rows. What the import of an
instruction file needs to read each piece in its context is kept with it: the paragraph
ending in ":" that leads into a list (``Item.lead_in``), and the command of a code block
right below an item or paragraph ending in ":" (``Item.code``, ``Body.paragraph_code``);
such a block is not counted as left behind.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from lessons_core.markdown_fences import closes_fence, opening_fence

_ITEM = re.compile(r"^(\s*)(?:[-*+]|\d{1,3}[.)])\s+(.*)$")
_CHECKBOX = re.compile(r"^\[[ xX]\]\s+")
_HEADING = re.compile(r"^\s{0,3}#{1,6}(\s|$)")
_THEMATIC_BREAK = re.compile(r"^\s{0,3}([-*_])(\s*\1){2,}\s*$")
_COMMENT = re.compile(r"^\s*<!--.*-->\s*$")
_ORDERED = re.compile(r"^\s*\d{1,3}[.)]\s")
_TABLE = re.compile(r"^\s*\|")
_HEADING_TEXT = re.compile(r"^\s{0,3}#{1,6}\s+(.*?)\s*#*\s*$")
# A sentence pointing at what follows it: "NEVER edit these files directly."
_POINTS_AHEAD = re.compile(r"\b(?:these|the following)\b", re.I)


@dataclass
class Item:
    text: list[str] = field(default_factory=list)
    details: list[list[str]] = field(default_factory=list)
    ordered: bool = False  # a numbered step
    code: str | None = None  # the command of the code block right below it
    lead_in: str | None = None  # the paragraph ending in ":" that opens its list

    @property
    def rule(self) -> str:
        return _join(self.text)

    @property
    def details_text(self) -> list[str]:
        """Each nested bullet's text, joined."""
        return [_join(detail) for detail in self.details if _join(detail)]

    @property
    def rationale(self) -> str | None:
        parts = [_join(detail) for detail in self.details if _join(detail)]
        return "; ".join(parts) or None


@dataclass
class Body:
    items: list[Item] = field(default_factory=list)
    paragraphs: list[str] = field(default_factory=list)
    code_blocks: int = 0
    tables: list[str] = field(default_factory=list)  # table rows
    paragraph_code: dict[int, str] = field(default_factory=dict)  # paragraph -> command
    lead_ins: set[int] = field(default_factory=set)  # paragraphs that open a list


def parse_body(markdown: str) -> Body:
    parser = _Parser()
    for line in markdown.splitlines():
        parser.line(line)
    parser.close_paragraph()
    return parser.body


class _Parser:
    """Reads a Markdown body line by line into a ``Body``."""

    def __init__(self) -> None:
        self.body = Body()
        self.base_indent: int | None = None
        self.current: Item | None = None
        self.paragraph: list[str] = []
        self.in_fence: str | None = None
        self.fenced: list[str] = []
        self.blank_before = False
        self.opener: Item | int | None = None  # what a code block below would complete
        self.lead_in: str | None = None  # the paragraph ending in ":" right before a list
        self.pointer: int | None = None  # the index of that paragraph

    def close_paragraph(self) -> None:
        if self.paragraph:
            self.body.paragraphs.append(_join(self.paragraph))
            self.paragraph.clear()
            last = self.body.paragraphs[-1]
            ends = last.endswith(":")
            self.opener = len(self.body.paragraphs) - 1 if ends else None
            # "NEVER edit these files directly." above a list of files leads into it too
            pointing = ends or bool(_POINTS_AHEAD.search(last.rsplit(". ", 1)[-1]))
            self.lead_in = last if pointing else None
            self.pointer = len(self.body.paragraphs) - 1 if pointing else None

    def line(self, line: str) -> None:
        fence = opening_fence(line)
        if self.in_fence:
            self._fenced(line, self.in_fence)
        elif fence:
            self.in_fence, self.fenced = fence[0], []
            self.close_paragraph()
        elif not line.strip():
            self.close_paragraph()
            self.blank_before = True
        elif _HEADING.match(line) or _THEMATIC_BREAK.match(line) or _COMMENT.match(line):
            self.close_paragraph()
            self.current, self.opener, self.lead_in = None, None, None
        elif _TABLE.match(line):
            # a table row, at the top or indented under a bullet: never words of it
            self.close_paragraph()
            self.body.tables.append(line.strip())
        else:
            self._text(line)
            self.blank_before = False

    def _fenced(self, line: str, fence: str) -> None:
        if closes_fence(line, fence):
            self.in_fence = None
            if not _complete(self.body, self.opener, self.fenced):
                self.body.code_blocks += 1
            self.opener, self.pointer = None, None
        else:
            self.fenced.append(line)

    def _text(self, line: str) -> None:
        item = _ITEM.match(line)
        indent = len(line) - len(line.lstrip())
        current = self.current
        if item:
            self.close_paragraph()
            text = _CHECKBOX.sub("", item.group(2))
            if self.base_indent is None or current is None or indent <= self.base_indent + 1:
                self._item(text, indent, bool(_ORDERED.match(line)))
            else:
                current.details.append([text])
        elif current is not None and (indent > 0 or not self.blank_before):
            # A continuation: indented, or lazily following the item line.
            (current.details[-1] if current.details else current.text).append(line)
        else:
            self.current, self.lead_in = None, None
            self.paragraph.append(line.lstrip("> "))

    def _item(self, text: str, indent: int, ordered: bool) -> None:
        current = self.current
        self.base_indent = indent if current is None else self.base_indent
        if current is None and self.pointer is not None and self.lead_in is not None:
            self.body.lead_ins.add(self.pointer)
        elif current is not None and current.ordered != ordered:
            self.lead_in = None  # a list of another kind: a new list
        self.current = Item([text], ordered=ordered, lead_in=self.lead_in)
        self.body.items.append(self.current)
        self.opener = self.current if text.rstrip().endswith(":") else None


def _complete(body: Body, opener: Item | int | None, fenced: list[str]) -> bool:
    """Give the code block ``fenced`` to the item or paragraph it completes: one command,
    "$ " prompt and comments aside. False when it completes nothing."""
    lines = [line.strip().removeprefix("$ ") for line in fenced]
    commands = [line for line in lines if line and not line.startswith("#")]
    if opener is None or len(commands) != 1:
        return False
    if isinstance(opener, Item):
        opener.code = commands[0]
    else:
        body.paragraph_code[opener] = commands[0]
    return True


def _join(lines: list[str]) -> str:
    return " ".join(" ".join(lines).split())


def heading_text(line: str) -> str | None:
    """The words of ``line`` when it is an ATX heading ("## Do Not Edit" -> "Do Not
    Edit", "" for a bare "#"), else None."""
    found = _HEADING_TEXT.match(line)
    return found.group(1) if found else None


def sections(text: str, first: str) -> list[tuple[str, str]]:
    """(heading, body) pairs of a Markdown text, in order, empty ones too; the text
    before the first heading under ``first``. A ``#`` line in a code block is no
    heading."""
    found: list[tuple[str, list[str]]] = [(first, [])]
    fence: str | None = None
    for line in text.splitlines():
        opened = opening_fence(line)
        if fence is not None:
            fence = None if closes_fence(line, fence) else fence
        elif opened:
            fence = opened[0]
        else:
            heading = heading_text(line)
            if heading is not None:
                found.append((heading or first, []))
                continue
        found[-1][1].append(line)
    return [(heading, "\n".join(lines)) for heading, lines in found]
