"""Command patterns simple enough to match without RE2: literals with anchors.

Most command triggers are a literal command with anchors: ``pnpm test`` (compiled with
word boundaries, ``\\bpnpm test\\b``), ``^git commit( |$)``, ``(?:sed|cat)``. When the
index is built, each pattern's RE2 regex is classified (``command_plan``): one made only
of alternatives of the form *start* *literal* *end* gets a plan, and a query matches it
with string methods (``plan_matches``), so a hook never loads RE2 (a C++ extension,
costly to load) for it. Anything else (classes, repetition, ``.``, groups inside an
alternative, flags) has no plan and runs on RE2.

The plan means what RE2's search means: ``^`` is the start of the text and ``$`` its end
(RE2 without multi-line mode; no "before a final newline"), ``\\b`` an ASCII word
boundary (RE2's ``\\w`` is ``[0-9A-Za-z_]``), and the literal is compared code point by
code point, case-sensitively. ``tests/test_command_plans.py`` checks plan against RE2 on
every command pattern of the corpus and of this repository's lessons, over generated
commands.
"""

from __future__ import annotations

from typing import TypeAlias

# One alternative: how it starts ("", "^", "\\b"), its literal text, how it ends
# ("", "$", "\\b", or END_SPACE: a space or the end of the text).
Alternative: TypeAlias = tuple[str, str, str]
Plan: TypeAlias = tuple[Alternative, ...]

START, BOUNDARY, END = "^", "\\b", "$"
END_SPACE = " |$"  # ``( |$)`` or ``(?: |$)`` at the end
# Where ``.*`` stood in a literal: any text without a line break (RE2's ``.``). No pattern
# holds a NUL (``compile_command`` refuses one), so it cannot pass for a literal's own.
GAP = "\0"
_END_GROUPS = ("( |$)", "(?: |$)")
# Characters special to RE2 outside a class (a class is never planned).
_SPECIALS = frozenset("\\.^$*+?()[]{}|")
# The most literals a pattern expands to before RE2 is the better matcher.
MAX_LITERALS = 64


def command_plan(regex: str) -> Plan | None:
    """The plan of an RE2 ``regex``: its alternatives, each a literal with the anchors at
    its ends, the groups of literals in it expanded; None when RE2 must run it."""
    if "[" in regex:
        return None
    # A group around the whole regex (as ``lessons import`` writes them) is taken off. When
    # its ``(`` closes before the end, the text left has a ``)`` no group opened, which no
    # alternative parses past: no plan, never a wrong one.
    body = regex[3:-1] if regex.startswith("(?:") and regex.endswith(")") else regex
    plan: list[Alternative] = []
    for alternative in top_level_alternatives(body):
        planned = _alternatives_of(alternative)
        if planned is None:
            return None
        plan += planned
    return tuple(plan) if len(plan) <= MAX_LITERALS else None


def top_level_alternatives(pattern: str) -> list[str]:
    """Split ``pattern`` at ``|`` outside groups, classes and escapes."""
    parts: list[str] = []
    depth = 0
    in_class = False
    start = 0
    index = 0
    while index < len(pattern):
        char = pattern[index]
        if char == "\\":
            index += 2
            continue
        if in_class:
            in_class = char != "]"
        elif char == "[":
            in_class = True
            # a ']' right after '[' or '[^' is a literal member, not the end of the class
            if pattern[index + 1 : index + 2] == "^":
                index += 1
            if pattern[index + 1 : index + 2] == "]":
                index += 1
        elif char == "(":
            depth += 1
        elif char == ")":
            depth = max(0, depth - 1)
        elif char == "|" and depth == 0:
            parts.append(pattern[start:index])
            start = index + 1
        index += 1
    parts.append(pattern[start:])
    return parts


def _alternatives_of(text: str) -> list[Alternative] | None:
    """One top-level alternative of a regex as planned alternatives: its start and end
    anchors, and each literal its groups of literals expand to (``git (add|rm) -f?x``
    is four literals), or None when it holds anything else."""
    start = end = ""
    if text.startswith(START):
        start, text = START, text[1:]
    elif text.startswith(BOUNDARY):
        start, text = BOUNDARY, text[2:]
    for group in _END_GROUPS:
        if text.endswith(group):
            end, text = END_SPACE, text[: -len(group)]
            break
    else:
        for anchor in (END, BOUNDARY):
            if text.endswith(anchor) and _unescaped(text, len(text) - len(anchor)):
                end, text = anchor, text[: -len(anchor)]
                break
    literals, index = _sequence(text, 0)
    if literals is None or index != len(text):
        return None
    if any(GAP in literal and "\n" in literal for literal in literals):
        return None  # a gap stays within a line: its literals hold no line break
    return [(start, literal, end) for literal in dict.fromkeys(literals)]


def _unescaped(text: str, at: int) -> bool:
    """Whether ``text[at]`` is not escaped: an even number of backslashes before it."""
    before = at
    while before > 0 and text[before - 1] == "\\":
        before -= 1
    return (at - before) % 2 == 0


def _sequence(text: str, index: int) -> tuple[list[str] | None, int]:
    """The literals the sequence at ``index`` expands to (up to ``|``, ``)`` or the end),
    and where it ends; None for anything but literals, groups of them and ``?``."""
    results = [""]
    size = len(text)
    while index < size:
        char = text[index]
        if char in "|)":
            break
        if char == "(":
            inner = index + 1
            if text.startswith("?:", inner):
                inner += 2
            elif text.startswith("?", inner):  # flags, a named group
                return None, index
            options, index = _alternatives(text, inner)
            if options is None or not text.startswith(")", index):
                return None, index
            index += 1
        elif char == "\\":
            escaped = text[index + 1 : index + 2]
            # An escaped ASCII punctuation mark is itself; any other escape is a class, an
            # assertion or a code, which RE2 runs.
            if not escaped or escaped.isalnum() or not ("!" <= escaped <= "~"):
                return None, index
            options, index = [escaped], index + 2
        elif text.startswith(".*", index):  # a gap: any text within one line
            options, index = [GAP], index + 2
            if text.startswith("?", index):
                index += 1
        elif char in _SPECIALS:
            return None, index
        else:
            options, index = [char], index + 1
        if text.startswith("?", index):  # optional: with it or without it
            options = ["", *options]
            index += 2 if text.startswith("??", index) else 1
        if index < size and text[index] in "*+?{":
            return None, index
        results = [done + option for done in results for option in options]
        if len(results) > MAX_LITERALS:
            return None, index
    return results, index


def _alternatives(text: str, index: int) -> tuple[list[str] | None, int]:
    """The literals of the ``|``-separated sequences at ``index``, and where they end."""
    options: list[str] = []
    while True:
        literals, index = _sequence(text, index)
        if literals is None:
            return None, index
        options += literals
        if not text.startswith("|", index):
            return options, index
        index += 1


def plan_matches(plan: Plan, text: str) -> bool:
    """Whether RE2 would find the regex ``plan`` came from anywhere in ``text``."""
    for start, literal, end in plan:
        if GAP in literal:
            if _gapped(start, literal.split(GAP), end, text):
                return True
            continue
        if start == START:
            if text.startswith(literal) and _ends(end, text, len(literal)):
                return True
            continue
        at = text.find(literal)
        while at >= 0:
            if (not start or _boundary(text, at)) and _ends(end, text, at + len(literal)):
                return True
            at = text.find(literal, at + 1)
    return False


def _gapped(start: str, segments: list[str], end: str, text: str) -> bool:
    """Whether ``segments`` occur in order within one line of ``text``, the first where
    ``start`` allows, the last where ``end`` does. Within a line the first place the
    first segment may start is the best one (every later segment has the most room
    after it), so each line is tried once."""
    first, *middle, last = segments
    at = text.find(first)
    while at >= 0:
        if start == START and at > 0:
            return False
        if start != BOUNDARY or _boundary(text, at):
            line_end = text.find("\n", at)
            line_end = len(text) if line_end < 0 else line_end
            if _rest(middle, last, end, text, at + len(first), line_end):
                return True
            if line_end == len(text):
                return False
            at = text.find(first, line_end + 1)
        else:
            at = text.find(first, at + 1)
    return False


def _rest(middle: list[str], last: str, end: str, text: str, at: int, line_end: int) -> bool:
    for segment in middle:
        found = text.find(segment, at, line_end)
        if found < 0:
            return False
        at = found + len(segment)
    found = text.find(last, at, line_end)
    while found >= 0:
        if _ends(end, text, found + len(last)):
            return True
        found = text.find(last, found + 1, line_end)
    return False


def _ends(end: str, text: str, at: int) -> bool:
    if not end:
        return True
    if end == END:
        return at == len(text)
    if end == BOUNDARY:
        return _boundary(text, at)
    return at == len(text) or text[at] == " "


def _boundary(text: str, at: int) -> bool:
    return _word(text[at - 1 : at] if at else "") != _word(text[at : at + 1])


def _word(char: str) -> bool:
    return char != "" and char.isascii() and (char.isalnum() or char == "_")
