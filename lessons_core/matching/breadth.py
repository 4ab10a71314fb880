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
  ``**/*.ts``). A name in the leaf (``**/package.json``, ``src/**/path*.ts``), a deeper
  folder (``src/api/**``) or a folder named below the ``**`` (``tests/**/cassettes/**``)
  keeps it specific;
- a keyword made only of common words;
- any trigger but an exact path that ``CROWDED_TRIGGER_LESSONS`` or more active lessons
  carry: an imported group that copied one trigger onto every rule, say.

Everything here runs when the index is built (regexes and RE2 included); the index stores
one flag per trigger entry, so a query pays nothing.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Protocol

from lessons_core.matching import thresholds
from lessons_core.matching.commands import compile_command
from lessons_core.matching.glob_match import normalise_glob
from lessons_core.matching.globs import has_glob_chars
from lessons_core.matching.regex_literals import required_run

if TYPE_CHECKING:

    class Triggers(Protocol):
        """A lesson's triggers as judging them needs them (``store.model.Triggers`` is
        one: matching sits below the store and names none of its records)."""

        @property
        def files(self) -> tuple[str, ...]: ...
        @property
        def commands(self) -> tuple[str, ...]: ...
        @property
        def keywords(self) -> tuple[str, ...]: ...


_SWEEPING_LEAVES = frozenset({"*", "**"})


def routine_command(required: str, matches: Callable[[str], bool]) -> bool:
    """Whether a command pattern fires on enough probe commands to be broad.

    ``required`` is a literal run every match contains: a probe without it is skipped
    unmatched, so most patterns cost a few substring tests.
    """
    from lessons_core.matching.probes import PROBE_COMMANDS  # noqa: PLC0415 (heavy: RE2)

    hits = 0
    for command in PROBE_COMMANDS:
        if required in command and matches(command):
            hits += 1
            if hits >= thresholds.BROAD_RECALL_PROBES:
                return True
    return False


def sweeping_glob(glob: str) -> bool:
    """Whether a normalised glob covers a whole tree by file type (see the module doc).

    A folder named below the ``**`` (``tests/**/cassettes/**``) names where the files are,
    not their type: how much such a glob covers is a question of the repo's files (L103).
    """
    segments = glob.split("/")
    if "**" not in segments or segments.index("**") > 1:
        return False

    between = segments[segments.index("**") + 1 : -1]
    if any(not has_glob_chars(segment) for segment in between):
        return False
    leaf = segments[-1]
    if leaf in _SWEEPING_LEAVES:
        return True
    return leaf.startswith("*.") and not has_glob_chars(leaf[1:])


def crowded(share: int, exact: bool) -> bool:
    """Whether a trigger carried by ``share`` active lessons is too crowded to be specific."""
    return not exact and share >= thresholds.CROWDED_TRIGGER_LESSONS


def why_broad(kind: str, trigger: str, share: int) -> str | None:
    """Why recall will hold back ``trigger`` (a ``file``, ``command`` or ``keyword``
    trigger that ``share`` active lessons carry) as broad, or None when it is specific.

    Capture and validate say so when a trigger is written, rather than leaving it for
    ``--explain`` to reveal at recall. The trigger must be one that can fire (callers
    judge it first); a keyword of common words is left to the checks that refuse or
    report it (``trigger_checks.keyword_problem``).
    """
    exact = False
    if kind == "file":
        glob = normalise_glob(trigger)
        exact = not has_glob_chars(glob)
        if sweeping_glob(glob):
            return "it sweeps a whole tree by file type"
    elif kind == "command":
        from lessons_core.matching.probes import probe_hits  # noqa: PLC0415 (heavy: RE2)

        compiled = compile_command(trigger)
        if routine_command(required_run(trigger), compiled.matches):
            hits = probe_hits(compiled.matches)
            shown = ", ".join(f"'{command}'" for command in hits[:3])
            more = ", ..." if len(hits) > 3 else ""
            return f"it fires on {len(hits)} of the ordinary commands ({shown}{more})"
    return f"{share} active lessons carry it" if crowded(share, exact) else None


def broad_notices(
    triggers: Triggers, share: Callable[[str, str], int], keep: Callable[[str], bool]
) -> list[tuple[str, str]]:
    """(trigger, sentence) for each of ``triggers`` that recall will hold back as broad.

    ``share(field, trigger)`` is how many active lessons carry it, this one included;
    ``keep(trigger)`` says whether to judge it (one that can never fire is not broad).
    """
    found: list[tuple[str, str]] = []
    for kind, label, field in _KINDS:
        for trigger in getattr(triggers, field):
            reason = why_broad(kind, trigger, share(field, trigger)) if keep(trigger) else None
            if reason is not None:
                found.append((trigger, broad_notice(label, trigger, reason)))
    return found


_KINDS = (
    ("file", "file trigger", "files"),
    ("command", "command trigger", "commands"),
    ("keyword", "keyword", "keywords"),
)


def broad_notice(label: str, trigger: str, reason: str) -> str:
    """The sentence capture and validate give a broad trigger (``label`` as in
    "command trigger")."""
    return (
        f"{label} '{trigger}' is broad ({reason}): recall shows this rule only when no "
        "more specific rule of the same kind or a stronger one matches the call, and a few "
        "broad rules a session"
    )
