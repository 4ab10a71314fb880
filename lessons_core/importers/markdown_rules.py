"""Rules out of a Markdown body: one per top-level bullet, or the prose as a whole.

Nested bullets elaborate their parent and become its rationale. Headings, rules and
HTML comments carry no rule. Code blocks cannot live in a one-line rule, so they are
counted as left behind, as are prose paragraphs standing beside a list (usually an
introduction such as "Follow these rules:").
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

_ITEM = re.compile(r"^(\s*)(?:[-*+]|\d{1,3}[.)])\s+(.*)$")
_CHECKBOX = re.compile(r"^\[[ xX]\]\s+")
_FENCE = re.compile(r"^\s*(```|~~~)")
_HEADING = re.compile(r"^\s{0,3}#{1,6}(\s|$)")
_THEMATIC_BREAK = re.compile(r"^\s{0,3}([-*_])(\s*\1){2,}\s*$")
_COMMENT = re.compile(r"^\s*<!--.*-->\s*$")


@dataclass
class Item:
    text: list[str] = field(default_factory=list)
    details: list[list[str]] = field(default_factory=list)

    @property
    def rule(self) -> str:
        return _join(self.text)

    @property
    def rationale(self) -> str | None:
        parts = [_join(detail) for detail in self.details if _join(detail)]
        return "; ".join(parts) or None


@dataclass
class Body:
    items: list[Item] = field(default_factory=list)
    paragraphs: list[str] = field(default_factory=list)
    code_blocks: int = 0


def parse_body(markdown: str) -> Body:
    body = Body()
    base_indent: int | None = None
    current: Item | None = None
    paragraph: list[str] = []
    in_fence: str | None = None
    blank_before = False

    def close_paragraph() -> None:
        if paragraph:
            body.paragraphs.append(_join(paragraph))
            paragraph.clear()

    for line in markdown.splitlines():
        fence = _FENCE.match(line)
        if in_fence:
            if fence and fence.group(1) == in_fence:
                in_fence = None
            continue
        if fence:
            in_fence = fence.group(1)
            body.code_blocks += 1
            close_paragraph()
            continue
        if not line.strip():
            close_paragraph()
            blank_before = True
            continue
        if _HEADING.match(line) or _THEMATIC_BREAK.match(line) or _COMMENT.match(line):
            close_paragraph()
            current = None
            continue
        item = _ITEM.match(line)
        indent = len(line) - len(line.lstrip())
        if item:
            close_paragraph()
            text = _CHECKBOX.sub("", item.group(2))
            if base_indent is None or current is None or indent <= base_indent + 1:
                base_indent = indent if current is None else base_indent
                current = Item([text])
                body.items.append(current)
            else:
                current.details.append([text])
        elif current is not None and (indent > 0 or not blank_before):
            # A continuation: indented, or lazily following the item line.
            (current.details[-1] if current.details else current.text).append(line)
        else:
            current = None
            paragraph.append(line.lstrip("> "))
        blank_before = False
    close_paragraph()
    return body


def _join(lines: list[str]) -> str:
    return " ".join(" ".join(lines).split())
