"""Where each value of a JSON document is, so one array can be rewritten in place.

``json.loads`` gives values, not positions; rewriting a whole file from them would
change every byte a person chose (key order, spacing, escapes). ``parse`` returns the
document's values as nodes holding their span in the text, which is all a byte-keeping
edit needs: the text outside the span it replaces stays as it was.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field

_WHITESPACE = " \t\r\n"
_LITERALS = ("true", "false", "null")
_NUMBER_CHARS = frozenset("+-0123456789.eE")


@dataclass
class Node:
    """One value: its kind (``object``, ``array``, ``string``, ``scalar``), where it is
    (``text[start:end]``) and, for an object, its members in order (key, node); for an
    array, its items."""

    kind: str
    start: int
    end: int
    members: list[tuple[str, Node]] = field(default_factory=list)
    items: list[Node] = field(default_factory=list)

    def member(self, key: str) -> Node | None:
        """The value of ``key`` (the last, as ``json.loads`` reads a repeated key)."""
        found = [node for name, node in self.members if name == key]
        return found[-1] if found else None


class JsonSpanError(ValueError):
    """Text that is not one JSON value; the message says where."""


def parse(text: str) -> Node:
    """The document's value with the span of every value in it."""
    node, end = _value(text, _skip(text, 0))
    if _skip(text, end) != len(text):
        raise JsonSpanError(f"text after the JSON value at character {end}")
    return node


def _skip(text: str, at: int) -> int:
    while at < len(text) and text[at] in _WHITESPACE:
        at += 1
    return at


def _value(text: str, at: int) -> tuple[Node, int]:
    if at >= len(text):
        raise JsonSpanError("the document ends where a value was expected")
    char = text[at]
    if char == "{":
        return _object(text, at)
    if char == "[":
        return _array(text, at)
    if char == '"':
        end = _string_end(text, at)
        return Node("string", at, end), end
    for literal in _LITERALS:
        if text.startswith(literal, at):
            return Node("scalar", at, at + len(literal)), at + len(literal)
    end = at
    while end < len(text) and text[end] in _NUMBER_CHARS:
        end += 1
    if end == at:
        raise JsonSpanError(f"unexpected {text[at]!r} at character {at}")
    return Node("scalar", at, end), end


def _string_end(text: str, at: int) -> int:
    index = at + 1
    while index < len(text):
        char = text[index]
        if char == "\\":
            index += 2
            continue
        if char == '"':
            return index + 1
        index += 1
    raise JsonSpanError(f"a string that starts at character {at} never ends")


def _object(text: str, at: int) -> tuple[Node, int]:
    node = Node("object", at, at)

    def member(index: int) -> int:
        if text[index : index + 1] != '"':
            raise JsonSpanError(f"expected a key at character {index}")
        key_end = _string_end(text, index)
        key = json.loads(text[index:key_end])  # its escapes decoded as JSON does
        index = _skip(text, key_end)
        if text[index : index + 1] != ":":
            raise JsonSpanError(f"expected ':' at character {index}")
        value, index = _value(text, _skip(text, index + 1))
        node.members.append((key, value))
        return index

    node.end = _items(text, at, "}", member)
    return node, node.end


def _array(text: str, at: int) -> tuple[Node, int]:
    node = Node("array", at, at)

    def item(index: int) -> int:
        value, index = _value(text, index)
        node.items.append(value)
        return index

    node.end = _items(text, at, "]", item)
    return node, node.end


def _items(text: str, at: int, close: str, read: Callable[[int], int]) -> int:
    """Read the comma-separated entries of the object or array opening at ``at`` with
    ``read`` (which returns where its entry ends); the end of the closing ``close``."""
    index = _skip(text, at + 1)
    if text[index : index + 1] == close:
        return index + 1
    while True:
        index = _skip(text, read(index))
        if text[index : index + 1] == ",":
            index = _skip(text, index + 1)
            continue
        if text[index : index + 1] == close:
            return index + 1
        raise JsonSpanError(f"expected ',' or '{close}' at character {index}")


def line_indent(text: str, at: int) -> str:
    """The white space that starts the line holding ``text[at]``."""
    start = text.rfind("\n", 0, at) + 1
    end = start
    while end < at and text[end] in " \t":
        end += 1
    return text[start:end]
