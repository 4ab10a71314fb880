"""L4xx: always-on lessons that never reach the agent (the budget cuts them) or that could
have had a precise trigger instead.

An always-on lesson costs tokens in every session; one whose wording names a file or a
command that exists would reach the agent exactly where it applies with a trigger. To
keep false alarms away, only unmistakable names count:

- a path: a word holding a ``/`` or an inner ``.`` that names a tracked file, or a
  folder written with its ``/`` (``src/db/``), exactly;
- a command: the first word of a code span (in backticks) that is a program on the PATH
  or a file of the repo, unless it is an ordinary word that some system also has as a
  program (`true`, `sort`, `write`, ...) standing alone; ``npm ci`` in "run `npm ci`,
  never install" counts, plain words outside backticks never do. A bare program that
  capture would refuse as broad (``npm``, whose everyday sub-commands it all matches) is
  no precise trigger, so it is not suggested.
"""

from __future__ import annotations

import re
import shutil
from collections.abc import Iterator

from lessons_core.delivery.always import VIA, fit_hits, render
from lessons_core.matching.literal_patterns import literal_pattern
from lessons_core.matching.trigger_checks import command_problem
from lessons_core.recall.render import estimate_tokens, hit_line
from lessons_core.recall.types import Hit
from lessons_core.store.model import Lesson
from lessons_core.validate.context import Context
from lessons_core.validate.findings import Finding

ANCHOR = '"always"'
_SPAN = re.compile(r"`([^`\n]+)`")
_EDGES = "\"'()[]{}<>,;:!?*`"
# Programs named like ordinary words or values: alone in backticks they are far more
# often a value, a method or a word than the program.
ORDINARY_WORDS = frozenset(
    """true false yes test time sort head tail join split paste kill watch write touch
    link install date id more less file find stat sync wait type print printf echo
    expand fold nice users groups who top free which env cut tee seq shift read set
    export source dir clear reset script look last lock open apply patch diff cmp
    compress w ed ex as ld cc ar at bc dc pr tr od nl column rev factor units""".split()
)


def check(ctx: Context) -> Iterator[Finding]:
    always = sorted((x for x in ctx.graph.active() if x.always), key=lambda x: (x.created, x.id))
    if not always:
        return
    yield from _over_budget(ctx, always)
    files = frozenset(ctx.files.paths)
    for lesson in always:
        found = precise_trigger(lesson.rule, files, ctx.files.folders)
        if found is not None:
            option, value = found
            yield Finding(
                "L402",
                ctx.lesson_file(lesson.id),
                f"always-on lesson names '{value}', which exists: a trigger would bring it "
                "exactly where it applies, at no cost to other sessions",
                f"re-add the exact rule with {option} '{value}' (it merges into this "
                'lesson), then remove "always": true from this file',
                lesson.id,
                ANCHOR,
            )


def _over_budget(ctx: Context, always: list[Lesson]) -> Iterator[Finding]:
    budget = ctx.config.always_max_tokens
    if budget <= 0:  # delivery turned off on purpose
        return
    hits = [Hit(x.id, x.rule, VIA, "", (), x.gate) for x in always]
    kept = set(fit_hits(hits, budget).shown)
    cut = [x for x in always if x.id not in kept]
    total = estimate_tokens(render([hit_line(hit) for hit in hits], 0))
    for lesson in cut:
        yield Finding(
            "L401",
            ctx.lesson_file(lesson.id),
            f"always-on lesson does not fit always_max_tokens ({budget}): the {len(always)} "
            f"always-on lessons take {total} tokens, so {len(cut)} never reach the agent",
            'give this rule a trigger instead of "always", shorten or merge always-on '
            "rules, or raise always_max_tokens in .lessons/config.json",
            lesson.id,
            ANCHOR,
        )


def precise_trigger(
    rule: str, files: frozenset[str], folders: frozenset[str]
) -> tuple[str, str] | None:
    """The trigger the wording of ``rule`` names (``--trigger-file`` with a path or glob,
    ``--trigger-cmd`` with a pattern), or None; see the module docstring."""
    for word in rule.split():
        path = word.strip(_EDGES).rstrip(".").removeprefix("./")
        if path in files and ("/" in path or "." in path[1:]):
            return "--trigger-file", path
        if path.endswith("/") and path.rstrip("/") in folders:
            return "--trigger-file", path.rstrip("/") + "/**"
    for span in _SPAN.findall(rule):
        words = span.split()
        program = words[0].removeprefix("./") if words else ""
        if (
            not program
            or program.startswith("-")
            or (len(words) == 1 and program in ORDINARY_WORDS)
        ):
            continue
        if program in files or shutil.which(program) is not None:
            second = words[1] if len(words) > 1 else ""
            plain = re.fullmatch(r"[\w:.-]+", second) is not None and not second.startswith("-")
            pattern = literal_pattern(f"{program} {second}" if plain else program)
            if command_problem(pattern) is None:  # never suggest what capture refuses
                return "--trigger-cmd", pattern
    return None
