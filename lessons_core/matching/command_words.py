"""The words that name what a shell command runs: its program and sub-commands.

``cd web && pnpm test:e2e --filter x`` runs ``pnpm test:e2e``: the last simple command
that is not a pure read, from its program up to three words, stopping at the first
option, path or value (a word with ``-`` in front, or ``/``, ``=`` or ``.`` in it). A plain
word after a sub-command is kept: ``git push origin`` cannot be told from ``npm run
build`` by its words alone. An interpreter (``bash``, ``python3``, ``node``, ...) runs a
script, and the script is what the command is about: ``bash scripts/release.sh`` keeps the
script's path, ``python3 manage.py migrate`` the script and its sub-command; with no script
(``bash -c '...'``, ``python3`` alone) nothing precise names the command.

A failed action's identity and a capture line's pattern are anchored to them
(``feedback.failures.command_pattern``: ``^pnpm test:e2e``); a session's evidence keeps
them as the action a correction followed. Nothing here looks for secrets: callers
that show or store the words check them.
"""

from __future__ import annotations

import re

from lessons_core.matching.literal_patterns import unanchored
from lessons_core.matching.pure_reads import segment_reads
from lessons_core.matching.shell_command import ShellCommand, parsed

MAX_PATTERN_WORDS = 3
# A longer word is data (a heredoc, an inline script), not a program or sub-command name.
MAX_WORD_CHARS = 64
# A script's path names what ran, however long; a longer word is data.
MAX_SCRIPT_CHARS = 200
# Programs that run a script named by their first other word (a path to one of them too),
# and ``python`` with a version (``python3``, ``python3.11``).
_INTERPRETERS = frozenset(
    "sh bash zsh dash ksh fish python pypy pypy3 node deno bun ruby perl php tsx ts-node".split()
)
# Interpreter options whose value is the code itself: nothing names what ran.
_INLINE_CODE = frozenset({"-c", "-e", "-p", "-r", "--eval", "--print", "-"})
# What may end a pattern without naming more: ``$``, ``\b``, white space.
_PATTERN_END = r"(?:\\b|\\s[*+?]?|\$|\s)+$"
# Runners whose next word is the program they run (``uv run python x.py``).
_RUNNERS = (("uv", "run"), ("poetry", "run"), ("pipenv", "run"), ("npx",), ("bunx",))


def command_words(command: str | ShellCommand) -> list[str]:
    """The program and sub-commands ``command`` runs (none: nothing precise)."""
    candidates = [s for s in parsed(command).segments if not segment_reads(s)]
    if not candidates:
        return []
    words = list(candidates[-1].words)
    if not words or len(words[0]) > MAX_WORD_CHARS:
        return []
    runner = _runner(words)
    if is_interpreter(words[runner]):
        script = _script(words[runner:])
        return [*words[:runner], *script] if script else []
    kept = [words[0]]
    for word in words[1:]:
        if len(kept) >= MAX_PATTERN_WORDS or not _is_name(word):
            break
        kept.append(word)
    return kept


def is_interpreter(word: str) -> bool:
    """Whether ``word`` names a program that runs a script (``bash``, ``/usr/bin/python3``)."""
    slash = word.rfind("/")
    if "\n" in word[: slash + 1]:  # the folder in front is any line of text
        return False
    name = word[slash + 1 :]
    if name in _INTERPRETERS:
        return True
    major, dot, minor = name.removeprefix("python").partition(".")
    return name.startswith("python") and major.isdecimal() and (not dot or minor.isdecimal())


def names_only_an_interpreter(pattern: str) -> bool:
    """Whether the command pattern is an interpreter alone (``^bash``, ``python3\\b``): it
    fires on every script the interpreter runs, not on the one the rule is about."""

    text = re.sub(_PATTERN_END, "", pattern.strip())
    return is_interpreter(unanchored(text).strip())


def _runner(words: list[str]) -> int:
    """Where the program a runner runs starts in ``words`` (0: no runner in front)."""
    for runner in _RUNNERS:
        if len(words) > len(runner) and tuple(words[: len(runner)]) == runner:
            return len(runner)
    return 0


def _script(words: list[str]) -> list[str]:
    """The interpreter, its options, the script (or ``-m`` module) and a sub-command:
    ``python3 manage.py migrate``; none when there is no script (``bash -c '...'``)."""
    kept = [words[0]]
    for index, word in enumerate(words[1:], 1):
        if (
            not word
            or word in _INLINE_CODE
            or word[:1] in ("<", ">", "|")  # the script comes on stdin: a heredoc, a pipe
            or not word.isprintable()
            or len(word) > MAX_SCRIPT_CHARS
        ):
            return []
        kept.append(word)
        if word == "-m":  # python -m pytest: the module is the script
            continue
        if not word.startswith("-"):
            after = words[index + 1 : index + 2]
            return kept + [w for w in after if _is_name(w)]
    return []


def _is_name(word: str) -> bool:
    """A sub-command's name, not an option, path or value."""
    return (
        not word.startswith("-")
        and not any(c in word for c in "/=.")
        and word.isprintable()
        and len(word) <= MAX_WORD_CHARS
    )
