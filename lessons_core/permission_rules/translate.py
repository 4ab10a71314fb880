"""A command trigger as Claude Code ``Bash(...)`` permission rules, where it translates.

Claude Code reads a rule's content three ways (its bundled client, 2.1.33x): ``P:*`` is a
prefix rule, matching the command ``P`` and every command starting with ``P`` and a
space; content with an unescaped ``*`` is a wildcard, each ``*`` any run of characters;
anything else must equal the command. It matches each simple command of a compound one
(``a && b``), with leading ``VAR=x`` assignments dropped, as a command trigger does
(``lessons_core.matching.commands``).

A trigger translates when it says exactly that, so the deny rule refuses the commands the
lesson refuses and no others:

- ``^P( |$)`` (or ``(?: |$)``, ``(\\s|$)``): ``Bash(P:*)``;
- ``^P$``: ``Bash(P)``;
- ``^P`` with ``P`` ending in a character that is not a letter, digit or ``_`` (no word
  boundary is added there): ``Bash(P*)``;
- alternatives, each of those: one rule each.

``P`` is literal text: ASCII letters, digits, ``_`` and plain punctuation (``\\.`` for a
dot), single spaces, starting with a letter, digit or ``_``. Everything else is reported
with the reason: a pattern not anchored with ``^`` fires anywhere in a command (``sudo
P``, ``echo P``) where a permission rule reads only its start; ``^P`` ending in a word
character also fires on ``P-x`` and ``P.x`` (a word boundary, not a space); regex classes,
repeats and groups have no equivalent; shell operators, quotes, ``*``, parentheses and
``#`` are read by Claude Code's own shell parsing, not as text.

What remains different is on Claude Code's side, and only refuses more: it also looks
through wrappers (``timeout 5 P``, ``nice P``) and quotes.
"""

from __future__ import annotations

from typing import NamedTuple

from lessons_core.matching.command_plans import top_level_alternatives

_PREFIX_ENDS = ("( |$)", "(?: |$)", r"(\s|$)", r"(?:\s|$)")
_WORD = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_")
# Punctuation that is text to both RE2 and Claude Code's rule matcher, written plainly.
_PLAIN = frozenset("-/=,:@%~_!")
# Regex metacharacters: each escaped is its literal (``\\.`` is a dot).
_ESCAPABLE = frozenset(".+?^$[]{}|/-=,:@%~!")
# Text Claude Code's shell parsing reads, not as part of a command's words.
_SHELL = frozenset(";&|<>`$'\"#()*\\")


class Translated(NamedTuple):
    """The rules for one command trigger, or why there are none (``reason``)."""

    pattern: str
    rules: tuple[str, ...]
    reason: str | None


def translate(pattern: str) -> Translated:
    """``pattern`` (a command trigger) as ``Bash(...)`` rules, or the reason it has none."""
    rules: list[str] = []
    for alternative in top_level_alternatives(pattern):
        rule = _rule(alternative)
        if isinstance(rule, _Refused):
            return Translated(pattern, (), rule.reason)
        rules.append(rule)
    return Translated(pattern, tuple(dict.fromkeys(rules)), None)


class _Refused(NamedTuple):
    reason: str


def _rule(alternative: str) -> str | _Refused:
    if not alternative.startswith("^"):
        return _Refused(
            "it is not anchored with '^', so it fires anywhere in a command ('sudo ...', "
            "'echo ...'), while a permission rule reads a command from its start"
        )
    body = alternative[1:]
    end = ""
    for suffix in (*_PREFIX_ENDS, "$"):
        if body.endswith(suffix) and not body.endswith("\\" + suffix):
            body, end = body[: -len(suffix)], suffix
            break
    literal = _literal(body)
    if isinstance(literal, _Refused):
        return literal
    if end == "$":
        return f"Bash({literal})"
    if end:
        return f"Bash({literal}:*)"
    if literal[-1] in _WORD:
        return _Refused(
            f"'^{body}' ends at any word boundary, so it also fires on '{literal}-x' and "
            f"'{literal}.x', while a prefix rule needs a space after it: write "
            f"'^{body}( |$)' to export it"
        )
    return f"Bash({literal}*)"


def _literal(body: str) -> str | _Refused:
    """The text ``body`` matches, when it is plain text a permission rule can hold."""
    out: list[str] = []
    index = 0
    while index < len(body):
        char = body[index]
        if char == "\\":
            escaped = body[index + 1 : index + 2]
            if escaped not in _ESCAPABLE:
                return _Refused(
                    f"'\\{escaped}' is a regex class or escape, which a permission rule cannot say"
                )
            out.append(escaped)
            index += 2
            continue
        if char in _SHELL:
            return _Refused(
                f"'{char}' is read by Claude Code's shell parsing, not as text of a command"
            )
        if not (char in _WORD or char in _PLAIN or char == " "):
            return _Refused(
                f"'{char}' is regex syntax (a class, repeat or group), which a permission "
                "rule cannot say"
                if char in ".?[]{}^$+|"
                else f"'{char}' is not plain ASCII text"
            )
        out.append(char)
        index += 1
    text = "".join(out)
    if not text or text[0] not in _WORD:
        return _Refused("it does not start with a program name")
    if "  " in text or text.endswith(" "):
        return _Refused("it holds a double or trailing space, which Claude Code reads as one")
    if any(char in _SHELL for char in text):
        return _Refused("it holds text Claude Code's shell parsing reads, not as a command's")
    return text
