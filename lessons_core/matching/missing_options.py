"""Command patterns of a command run without an option a rule asks for.

"Always pass `--run`" to ``pnpm test`` is broken by a ``pnpm test`` with no ``--run``
and kept by one with it: a lesson firing on every ``pnpm test`` would fire on the very
command the rule asks for. Import gives such a rule the pattern of the commands that
lack the option (``importers.rule_triggers``), as it gives a sign-off rule the commits
with none (``commit_messages``). RE2 has no lookahead, so "a word other than the
option" is spelled out: a word that leaves the option at some character, a word the
option begins with, or a longer word ("--runner"); ``--run=x`` passes the option.
"""

from __future__ import annotations

import re

# A command a pattern can be built on: plain words, optionally anchored ("^pnpm test").
_PLAIN_COMMAND = re.compile(r"\^?[\w.:@/-]+(?: [\w.:@/-]+)*")
# An option as a rule names it: "--run", "-tags", "--frozen".
OPTION = re.compile(r"--?[A-Za-z][\w-]*")


def without_option(command: str, option: str) -> str | None:
    """The pattern of ``command`` (plain words, "pnpm test") run with no word ``option``
    ("--run"), nor ``option=value``; None when ``command`` is a pattern of its own or
    ``option`` is no option."""
    if not _PLAIN_COMMAND.fullmatch(command) or not OPTION.fullmatch(option):
        return None
    # an option holds only letters, digits, "_" and "-", which need no escape here ("-"
    # leads its character class)
    other = [f"{option[:at]}[^{option[at]}\\s]\\S*" for at in range(len(option))]
    other += [option[:at] for at in range(1, len(option))]
    other.append(f"{option}[^=\\s]\\S*")
    words = command.removeprefix("^").replace(".", "\\.")
    return f"^{words}(?: +(?:{'|'.join(other)}))* *$"
