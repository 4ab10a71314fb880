"""The pointer a hook's block ends with when it holds broad rules back: the command that
lists every rule matching the call.

A block shows the rules about the very file or command touched and the few most specific
others the caps allow; a rule that matched only through a broad trigger
(``lessons_core.matching.breadth``) waits while a more specific one speaks. The block's
last line counts what it left out and, when broad rules are among them, names the
``lessons query`` call that prints them all for the file or command the call touched, so
an agent that wants them runs one command instead of never hearing of them:
``3 more rules match: query --cmd 'pnpm test' --all`` (the launcher named in front of
``query`` where no session note named it, as for ``show ID``). A count of specific rules
alone needs none: those come on the next call, as the caps and the budget allow.
"""

from __future__ import annotations

import shlex
from typing import Protocol

from lessons_core.store.layout import Layout, lessons_command

# A pointer longer than this (a long command pasted into it) costs more than the rules it
# points to would; the count alone is given then.
MAX_POINTER_CHARS = 200


class Touched(Protocol):
    """What a call touched, as ``deliver.ToolAction`` holds it."""

    @property
    def command(self) -> str | None: ...
    @property
    def changes(self) -> tuple[str, ...]: ...
    @property
    def reads(self) -> tuple[str, ...]: ...


def query_for(layout: Layout, action: Touched, short: bool = False) -> str:
    """The ``lessons query ... --all`` command that lists every rule matching ``action``
    (its command's, else its files'), or "" when it would be too long to be worth it.
    ``short``: without the launcher (``query ...``), where the session note named it, as
    its ``show ID`` is."""
    if action.command:
        asked = f"--cmd {shlex.quote(action.command)}"
    else:
        files = dict.fromkeys((*action.changes, *action.reads))
        asked = " ".join(f"--file {shlex.quote(path)}" for path in files)
    if not asked or len(asked) > MAX_POINTER_CHARS:
        return ""
    return f"query {asked} --all" if short else f"{lessons_command(layout)} query {asked} --all"
