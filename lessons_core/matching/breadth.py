"""Broad triggers: ones that fire on routine work or carry a crowd of rules.

Recall shows the rules a broad trigger brings only when nothing more specific matches the
call, and only a few per session (``lessons_core.recall.rank.select``), so the ``pnpm test``
or ``rg`` every session runs does not bring a dozen rules each time. A trigger is broad
when it is

- a command pattern firing on ``BROAD_RECALL_PROBES`` or more of the probe commands
  (``lessons_core.matching.probes``: ``ls``, ``git status``, ``pnpm test``, ...), so it is about a
  family of commands rather than one;
- a glob sweeping a whole tree by file type: ``**`` below at most one literal folder,
  with a leaf that is a bare wildcard or an extension (``src/**``, ``tests/**/*.test.ts``,
  ``**/*.ts``). A name in the leaf (``**/package.json``, ``src/**/path*.ts``) or a deeper
  folder (``src/api/**``) keeps it specific;
- a keyword made only of common words;
- any trigger but an exact path that ``CROWDED_TRIGGER_LESSONS`` or more active lessons
  carry: an imported group that copied one trigger onto every rule, say.

Everything here runs when the index is built (regexes and RE2 included); the index stores
one flag per trigger entry, so a query pays nothing.
"""

from __future__ import annotations

from collections.abc import Callable

from lessons_core.matching import thresholds

_SWEEPING_LEAVES = frozenset({"*", "**"})


def routine_command(required: str, matches: Callable[[str], bool]) -> bool:
    """Whether a command pattern fires on enough probe commands to be broad.

    ``required`` is a literal run every match contains: a probe without it is skipped
    unmatched, so most patterns cost a few substring tests.
    """
    from lessons_core.matching.probes import PROBE_COMMANDS

    hits = 0
    for command in PROBE_COMMANDS:
        if required in command and matches(command):
            hits += 1
            if hits >= thresholds.BROAD_RECALL_PROBES:
                return True
    return False


def sweeping_glob(glob: str) -> bool:
    """Whether a normalised glob covers a whole tree by file type (see the module doc)."""
    segments = glob.split("/")
    if "**" not in segments or segments.index("**") > 1:
        return False
    leaf = segments[-1]
    if leaf in _SWEEPING_LEAVES:
        return True
    from lessons_core.matching.globs import has_glob_chars

    return leaf.startswith("*.") and not has_glob_chars(leaf[1:])


def crowded(share: int, exact: bool) -> bool:
    """Whether a trigger carried by ``share`` active lessons is too crowded to be specific."""
    return not exact and share >= thresholds.CROWDED_TRIGGER_LESSONS
