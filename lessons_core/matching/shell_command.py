"""A shell command, parsed once into the value every question about it is answered from.

A hook call parses the command the agent is about to run once (``parse``, in
``delivery.actions.running``) and the action carries the value. The files it reads and
writes (``shell_files``), whether it only reads (``pure_reads``), the words that name it
(``command_words``) and the parts a command trigger is matched against (``match_parts``)
are all read from it, with one table of programs (``shell_files``).

The tokens come from ``shell_syntax``: one linear pass that keeps operators apart from
words (a quoted ``>`` stays a word) and cuts here-document bodies out unparsed. Each
simple command becomes a ``Segment``: its leading ``VAR=value`` words apart from the
program and its arguments, its redirections with their targets, the operator before it,
and its text as written (what a pattern is matched against). The commands inside
``$(...)`` and backticks run too: they are parsed as well, a few levels deep.

Malformed shell (an unclosed quote, a body without its delimiter) is read as far as it
goes; nothing here raises on any text.
"""

# Annotations are evaluated, not postponed (no ``from __future__ import annotations``):
# a NamedTuple compiles each string annotation of its fields when its class is made.
from collections.abc import Sequence
from typing import NamedTuple

from lessons_core.matching.shell_syntax import (
    MAX_SHELL_CHARS,
    MAX_TOKENS,
    OPERATOR,
    Token,
    scan,
)

# What ``ShellCommand.items`` holds around a subshell: "(" and ")".
OPEN, CLOSE = "(", ")"
# Operators that end a simple command (a newline too).
_ENDS = frozenset({"&&", "||", "|&", ";;", "&", "|", ";", "\n"})
# How deep a command run inside another (``$(...)``, ``bash -c``) is parsed.
MAX_NESTED = 3

SHELLS = frozenset({"sh", "bash", "zsh", "dash", "ksh"})
# Programs that run the next program: (program, its options that take a value).
_WRAPPERS: dict[str, frozenset[str]] = {
    "sudo": frozenset({"-u", "-g", "-C", "-h", "-p", "-U", "-r", "-t", "-D", "--user"}),
    "env": frozenset({"-u", "-S", "--unset", "--split-string"}),
    "nice": frozenset({"-n", "--adjustment"}),
    "timeout": frozenset({"-s", "-k", "--signal", "--kill-after"}),
    "stdbuf": frozenset({"-i", "-o", "-e"}),
    "nohup": frozenset(),
    "time": frozenset({"-f", "-o"}),
    "command": frozenset(),
    "builtin": frozenset(),
    "exec": frozenset({"-a"}),
}
# Shell words that come before a command: ``if``, ``then``, ``!`` ...
_KEYWORDS = frozenset({"if", "then", "else", "elif", "do", "while", "until", "!", "{", "}"})
_SKIPPED = frozenset({"fi", "done", "esac", "for", "case", "select", "function"})


class ShellCommand(NamedTuple):
    """A parsed shell command: its simple commands in order, with ``OPEN`` and ``CLOSE``
    around subshells, and those it runs inside them: in its command substitutions and
    in the scripts its shells run."""

    text: str
    # Quoted inside tuple[]: no ForwardRef is made, hence nothing compiled (see above).
    items: tuple["Segment | str", ...] = ()
    nested: tuple["Segment", ...] = ()
    # Whether the whole text was read (see ``shell_syntax.MAX_SHELL_CHARS``).
    complete: bool = True

    @property
    def segments(self) -> tuple["Segment", ...]:
        """Every simple command: those run inside the others first, then its own."""
        own = tuple(item for item in self.items if not isinstance(item, str))
        return (*self.nested, *own) if self.nested else own


class Segment(NamedTuple):
    """One simple command."""

    # The program and its arguments, quotes removed.
    words: tuple[str, ...]
    # The ``VAR=value`` words in front of the program.
    assignments: tuple[str, ...] = ()
    # (operator, target) pairs; a here-document's target is its body.
    redirects: tuple[tuple[str, str], ...] = ()
    # The operator before it: "" for the first, "&&", "|", ";", a newline, "(" or ")".
    operator: str = ""
    # As written, from its program (its first word when it has none) to its last token.
    text: str = ""
    # What it runs: its words from the program on, past keywords (``if``, ``!``) and
    # wrappers (``sudo``, ``env X=1``, ``timeout 5``); none for ``command -v`` or ``fi``.
    runs: tuple[str, ...] = ()
    # The script a shell runs (``bash -c SCRIPT``, a here-document given to ``sh``), parsed.
    script: ShellCommand | None = None

    @property
    def piped(self) -> bool:
        """Whether its input is the previous command's output."""
        return self.operator in ("|", "|&")


def parse(text: str) -> ShellCommand:
    """``text`` as a ``ShellCommand``."""
    return _parse(text, MAX_NESTED)


def parsed(command: str | ShellCommand) -> ShellCommand:
    """``command`` parsed, unless it is already."""
    return command if isinstance(command, ShellCommand) else parse(command)


def match_parts(command: ShellCommand) -> tuple[str, ...]:
    """What a command trigger is matched against: each simple command's text, then the
    whole command, without repeats, so the part a match reports is the smallest."""
    # A dict keeps first-seen order and finds repeats in constant time: a script of
    # thousands of lines is thousands of parts.
    parts = dict.fromkeys(segment.text for segment in command.segments if segment.text)
    parts.pop(command.text.strip(), None)
    return (*parts, command.text.strip())


def is_assignment(word: str) -> bool:
    """Whether ``word`` sets a shell variable (``NAME=value``)."""
    name, equals, _value = word.partition("=")
    return bool(equals) and name.replace("_", "a").isalnum() and not name[:1].isdigit()


def _program_words(words: Sequence[str]) -> tuple[str, ...]:
    """The words from the program on: assignments, keywords and wrappers dropped."""
    index = 0
    while index < len(words):
        word = words[index]
        if word in _KEYWORDS or is_assignment(word):
            index += 1
        elif word in _SKIPPED:
            return ()
        elif word in _WRAPPERS:
            index = _past_options(words, index + 1, _WRAPPERS[word])
            if word == "timeout" and index < len(words):
                index += 1  # its duration
            if word == "command" and index > 0 and words[index - 1] in ("-v", "-V"):
                return ()  # looks a program up, runs nothing
        else:
            return tuple(words[index:])
    return ()


def _past_options(words: Sequence[str], index: int, valued: frozenset[str]) -> int:
    """The index of the first word at or after ``index`` that is not an option (or an
    option's value, or an ``env`` assignment)."""
    while index < len(words):
        word = words[index]
        if word == "--":
            return index + 1
        if is_assignment(word):
            index += 1
        elif word.startswith("-") and len(word) > 1:
            index += 2 if word in valued else 1
        else:
            return index
    return index


def _parse(text: str, depth: int) -> ShellCommand:
    found, substitutions = scan(text)
    items = _structure(text, found, depth)
    nested: list[Segment] = []
    if depth:
        for start, end in substitutions:
            nested += _parse(text[start:end], depth - 1).segments
    for item in items:
        if not isinstance(item, str) and item.script is not None:
            nested += item.script.segments
    complete = len(text) <= MAX_SHELL_CHARS and len(found) < MAX_TOKENS
    return ShellCommand(text, items, tuple(nested), complete)


def _shell_script(runs: tuple[str, ...], redirects: Sequence[tuple[str, str]]) -> str | None:
    """The script a shell runs: ``bash -c SCRIPT`` (``-lc``, ``-ec``...), or the
    here-document it reads when it names no script file; None for anything else."""
    if not runs or runs[0].rsplit("/", 1)[-1] not in SHELLS:
        return None
    args = runs[1:]
    index = 0
    while index < len(args):
        word = args[index]
        index += 1
        if word in ("-o", "+o", "-O", "+O"):
            index += 1  # an option's name: -o pipefail
        elif not word.startswith(("-", "+")) or word == "--":
            return None  # a script file, whose text is not in the command
        elif word[1:2] != "-" and "c" in word[1:]:
            rest = [w for w in args[index:] if not w.startswith("-")]
            return rest[0] if rest else None
    body = [target for operator, target in redirects if operator in ("<<", "<<-")]
    return body[0] if body else None


def _structure(text: str, found: list[Token], depth: int) -> tuple[Segment | str, ...]:
    """The simple commands of ``found`` in order, with ``OPEN``/``CLOSE`` around subshells."""
    out: list[Segment | str] = []
    words: list[Token] = []
    redirects: list[tuple[str, str]] = []
    bounds = [-1, -1]  # where the simple command's first and last tokens start and end
    operator = ""

    def end(following: str) -> None:
        nonlocal words, redirects, operator
        if words or redirects:
            out.append(_segment(text, words, redirects, operator, bounds, depth))
        words, redirects, bounds[:] = [], [], [-1, -1]
        operator = following

    index = 0
    while index < len(found):
        token = found[index]
        index += 1
        if token.kind == OPERATOR and token.text in _ENDS:
            end(token.text)
            continue
        if token.kind == OPERATOR and token.text in (OPEN, CLOSE):
            end(token.text)
            out.append(token.text)
            continue
        if bounds[0] < 0:
            bounds[0] = token.start
        bounds[1] = token.end
        if token.kind != OPERATOR:
            words.append(token)
        else:  # a redirection: its target is the next word or body, if any
            target = ""
            if index < len(found) and found[index].kind != OPERATOR:
                target = found[index].text
                bounds[1] = max(bounds[1], found[index].end)
                index += 1
            redirects.append((token.text, target))
    end("")
    return tuple(out)


def _segment(
    text: str,
    words: list[Token],
    redirects: list[tuple[str, str]],
    operator: str,
    bounds: list[int],
    depth: int,
) -> Segment:
    assigned = 0
    while assigned < len(words) and is_assignment(words[assigned].text):
        assigned += 1
    start = words[assigned].start if assigned < len(words) else bounds[0]
    own = tuple(token.text for token in words[assigned:])
    runs = _program_words(own)
    script = _shell_script(runs, redirects) if depth else None
    return Segment(
        words=own,
        assignments=tuple(token.text for token in words[:assigned]),
        redirects=tuple(redirects),
        operator=operator,
        text=text[start : bounds[1]],
        runs=runs,
        script=None if script is None else _parse(script, depth - 1),
    )
