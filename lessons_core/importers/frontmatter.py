"""The small YAML subset rule files put between ``---`` lines, read without a YAML library.

Rule-file frontmatter is a handful of ``key: value`` lines: strings (plain or quoted),
booleans, inline ``[a, b]`` lists and ``- item`` block lists. Real files are often not
valid YAML at all: Cursor documents ``globs: **/*.ts`` unquoted, which a YAML parser
rejects because ``*`` starts an alias. So a full YAML dependency would fail on the
commonest form; this reader accepts it and reports anything it does not understand.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

Value = str | bool | list[str]

_KEY = re.compile(r"^([A-Za-z_][\w-]*)\s*:(?:\s+(.*)|\s*)$")
_ITEM = re.compile(r"^\s*-\s+(.*)$|^\s*-$")
_FENCE = "---"


class FrontmatterError(ValueError):
    """A frontmatter line this reader does not understand; the message names the line."""


@dataclass(frozen=True)
class Document:
    fields: dict[str, Value]
    body: str
    has_frontmatter: bool


def split_document(text: str) -> Document:
    """Separate the frontmatter (if the text starts with ``---``) from the Markdown body."""
    lines = text.lstrip("\ufeff").splitlines()
    if not lines or lines[0].strip() != _FENCE:
        return Document({}, text, has_frontmatter=False)
    for end in range(1, len(lines)):
        if lines[end].strip() in {_FENCE, "..."}:
            fields = parse_fields(lines[1:end])
            return Document(fields, "\n".join(lines[end + 1 :]), has_frontmatter=True)
    raise FrontmatterError("the frontmatter opened with '---' is never closed")


def parse_fields(lines: list[str]) -> dict[str, Value]:
    fields: dict[str, Value] = {}
    open_list: str | None = None
    for number, line in enumerate(lines, start=2):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        item = _ITEM.match(line)
        if item and open_list is not None:
            current = fields[open_list]
            assert isinstance(current, list)
            current.append(_scalar(_strip_comment(item.group(1) or ""), number))
            continue
        key = _KEY.match(line)
        if key is None:
            raise FrontmatterError(f"line {number} is not 'key: value': {line.strip()!r}")
        name, raw = key.group(1), _strip_comment(key.group(2) or "")
        if raw:
            fields[name] = _value(raw, number)
            open_list = None
        else:
            fields[name] = []
            open_list = name
    return fields


def _value(raw: str, number: int) -> Value:
    if raw.startswith("[") and raw.endswith("]"):
        inner = raw[1:-1].strip()
        return [_scalar(part, number) for part in _split_inline(inner)] if inner else []
    if raw.lower() in {"true", "false"}:
        return raw.lower() == "true"
    return _scalar(raw, number)


def _scalar(raw: str, number: int) -> str:
    text = raw.strip()
    if len(text) >= 2 and text[0] == text[-1] and text[0] in "'\"":
        inner = text[1:-1]
        if text[0] == "'":
            return inner.replace("''", "'")
        return re.sub(r"\\(.)", r"\1", inner)
    if text[:1] in {"'", '"'}:
        raise FrontmatterError(f"line {number} has an unclosed quote: {raw.strip()!r}")
    return text


def _split_inline(inner: str) -> list[str]:
    """Split ``"a,b", c`` at commas outside quotes and braces."""
    parts: list[str] = []
    current: list[str] = []
    quote: str | None = None
    depth = 0
    for char in inner:
        if quote:
            quote = None if char == quote else quote
        elif char in "'\"":
            quote = char
        elif char == "{":
            depth += 1
        elif char == "}":
            depth -= 1
        elif char == "," and depth == 0:
            parts.append("".join(current))
            current = []
            continue
        current.append(char)
    parts.append("".join(current))
    return [part for part in parts if part.strip()]


def _strip_comment(raw: str) -> str:
    """Drop a trailing `` # comment`` outside quotes (YAML needs the space before ``#``)."""
    quote: str | None = None
    for index, char in enumerate(raw):
        if quote:
            quote = None if char == quote else quote
        elif char in "'\"" and (index == 0 or raw[index - 1] in " [,"):
            quote = char
        elif char == "#" and index > 0 and raw[index - 1] in " \t":
            return raw[:index].rstrip()
    return raw.strip()
