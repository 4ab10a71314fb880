"""Command triggers: RE2 patterns matched against each part of a shell command.

RE2 runs in time linear in the input whatever the pattern, so a pattern written by an
agent can never hang a hook; it refuses backreferences and lookarounds at compile time,
which is where ``lessons add`` reports them. A pattern that begins or ends with a word
character gets a word boundary there, so ``rm`` fires on ``rm -rf x`` but not on ``format``.
"""

# Annotations are evaluated, not postponed (no ``from __future__ import annotations``):
# a NamedTuple compiles each string annotation of its fields when its class is made.
from collections.abc import Sequence
from typing import TYPE_CHECKING, NamedTuple

from lessons_core.matching.command_plans import plan_matches, top_level_alternatives
from lessons_core.matching.re2_patterns import compiled as _compiled
from lessons_core.matching.re2_patterns import re2_module
from lessons_core.matching.shell_command import ShellCommand, match_parts, parsed

if TYPE_CHECKING:
    from lessons_core.matching.command_plans import Plan


class CommandPatternError(ValueError):
    """A pattern RE2 rejects or that matches everything; the message says why."""


class CommandPattern(NamedTuple):
    pattern: str
    regex: str

    def matches(self, command: str) -> bool:
        """The command matcher, as recall runs it on the index (``fired_part``)."""
        return fired_part(self.regex, request_parts(command)) is not None


def compile_command(pattern: str) -> CommandPattern:
    """Compile ``pattern``; raise ``CommandPatternError`` when RE2 refuses it or it matches ''."""
    if not pattern.strip():
        raise CommandPatternError("is empty")
    if "\x00" in pattern:
        raise CommandPatternError("contains a NUL character, which no command holds")
    regex = bounded_regex(pattern)
    try:
        compiled = _compiled(regex)
        # Checked on the pattern as written too: `x*` would be rescued by the word boundary
        # added in front of it, but it still means "anything" to whoever wrote it.
        empty = compiled.search("") is not None or _compiled(pattern).search("") is not None
    except (re2_module().error, ValueError) as err:  # ValueError: text RE2 cannot take as UTF-8
        reason = err.args[0].decode() if err.args and isinstance(err.args[0], bytes) else err
        raise CommandPatternError(
            f"is not a valid linear-time pattern ({reason}); backreferences and lookarounds "
            "are not supported, write the literal command instead"
        ) from None
    if empty:
        raise CommandPatternError("matches the empty string, so it would fire on every command")
    return CommandPattern(pattern=pattern, regex=regex)


def bounded_regex(pattern: str) -> str:
    """Add word boundaries where each alternative starts or ends with a word character.

    Boundaries go on each top-level alternative, so ``sed|cat`` fires on ``cat x`` but not
    on ``bobcat``, and ``git push| rm`` leaves the space-led alternative alone.
    """
    alternatives = [_bounded(alt) for alt in top_level_alternatives(pattern)]
    if len(alternatives) == 1:
        return alternatives[0]
    return "(?:" + "|".join(alternatives) + ")"


def _bounded(alternative: str) -> str:
    regex = alternative
    if _word(alternative[:1]):
        regex = r"\b" + regex
    # What Python's ``\w$`` finds: a word character last, or before a final newline.
    last = alternative[-2:-1] if alternative.endswith("\n") else alternative[-1:]
    if (_word(alternative[-1:]) or _word(last)) and alternative[-2:-1] != "\\":
        regex = regex + r"\b"
    return regex


def _word(char: str) -> bool:
    r"""Python's ``\w`` (Unicode) on one character."""
    return char.isalnum() or char == "_"


def command_parts(command: str | ShellCommand) -> list[str]:
    """The whole command plus each simple command in it, leading ``VAR=x`` removed."""
    *pieces, whole = match_parts(parsed(command))
    return [whole, *pieces]


def request_parts(command: str | ShellCommand) -> tuple[str, ...]:
    """What a command trigger is matched against: each simple command of ``command``, then
    the whole (``shell_command.match_parts``), so the part a match reports is the smallest."""
    return match_parts(parsed(command))


def fired_part(
    regex: str, parts: Sequence[str], plan: "Plan | None" = None, needs: Sequence[str] = ()
) -> str | None:
    """The one command matcher: the first of ``parts`` (``request_parts``, split once by
    the caller) in which the pattern's RE2 ``regex`` matches, or None. With the regex's
    ``plan`` (``command_plans.command_plan``, made when the index is built) the match is
    found with string methods and RE2 is not loaded; without one, RE2 runs only on the
    parts holding every literal run the regex ``needs`` (``regex_literals.required_runs``)."""
    if plan is not None:
        return next((part for part in parts if plan_matches(plan, part)), None)
    candidates = [part for part in parts if all(run in part for run in needs)]
    if not candidates:
        return None
    compiled = _compiled(regex)
    return next((part for part in candidates if compiled.search(part) is not None), None)
