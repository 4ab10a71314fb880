"""L1xx: triggers of active lessons that match nothing, match nearly everything, or can
never fire at all. Triggers the judgement rejects are schema findings (L009, L010, L012)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator

from lessons_core.matching import trigger_checks as tc
from lessons_core.matching.breadth import broad_notices
from lessons_core.matching.command_words import names_only_an_interpreter
from lessons_core.matching.commands import CommandPatternError, compile_command
from lessons_core.matching.probes import probe_hits, probe_hits_many, swept_program
from lessons_core.matching.thresholds import BROAD_GLOB_SHARE, BROAD_RECALL_PROBES
from lessons_core.project_commands import everyday_commands
from lessons_core.store.model import Lesson
from lessons_core.validate.context import Context
from lessons_core.validate.findings import Finding

_CODES = {
    tc.GLOB_DEAD: "L101",
    tc.GLOB_DIRECTORY: "L102",
    tc.GLOB_BROAD: "L103",
    tc.GLOB_EVERYTHING: "L103",
    tc.COMMAND_BROAD: "L104",
    tc.KEYWORD_COMMON: "L105",
    tc.COMMAND_INTERPRETER: "L107",
}


def check(ctx: Context) -> Iterator[Finding]:
    active = sorted(ctx.graph.active(), key=lambda lesson: lesson.id)
    commands = [c for x in active for c in x.triggers.commands]
    judged = [c for c in commands if tc.command_problem(c, hits=[]) is None]
    hits = probe_hits_many(judged)
    project = everyday_commands(ctx.layout.root) if judged else []
    own = probe_hits_many(judged, project) if project else {}
    glob_cache: dict[str, tc.TriggerProblem | None] = {}
    shares = _share_counts(active)
    for lesson in active:
        problems: list[tc.TriggerProblem] = []
        for glob in lesson.triggers.files:
            if glob not in glob_cache:
                glob_cache[glob] = tc.glob_problem(
                    glob, ctx.layout.root, ctx.files, BROAD_GLOB_SHARE
                )
            problem = glob_cache[glob]
            # A person recorded why this lesson's file triggers are this broad.
            if not (lesson.broad_reason and problem and problem.kind == tc.GLOB_BROAD):
                problems += _some(problem)
        for pattern in lesson.triggers.commands:
            problems += _some(
                tc.command_problem(pattern, hits.get(pattern), project, own.get(pattern, []))
            )
        for keyword in lesson.triggers.keywords:
            problems += _some(tc.keyword_problem(keyword))
        yield from _findings(ctx, lesson, problems)
        if lesson.enforce:
            yield from _enforced_broad(ctx, lesson, hits)
        if not lesson.gate:  # a gated rule is never held back
            yield from _held_back(ctx, lesson, shares, {p.trigger for p in problems})


def _share_counts(active: list[Lesson]) -> Counter[tuple[str, str]]:
    """How many active lessons carry each trigger, by ``Triggers`` field."""
    counts: Counter[tuple[str, str]] = Counter()
    for lesson in active:
        for field in ("files", "commands", "keywords"):
            counts.update({(field, trigger) for trigger in getattr(lesson.triggers, field)})
    return counts


def _held_back(
    ctx: Context, lesson: Lesson, shares: Counter[tuple[str, str]], judged: set[str]
) -> Iterator[Finding]:
    """L108: the triggers recall will hold back as broad (none already reported)."""
    accepted = set(lesson.triggers.files) if lesson.broad_reason else set()
    found = broad_notices(
        lesson.triggers,
        lambda field, trigger: shares[field, trigger],
        lambda t: t not in judged and t not in accepted,
    )
    for trigger, sentence in found:
        yield Finding(
            "L108",
            ctx.lesson_file(lesson.id),
            sentence,
            "fine for a rule about every such call; to have it speak beside more specific "
            'rules, narrow the trigger to the file or command it is about, or set "gate": true',
            lesson.id,
            trigger,
        )


def _enforced_broad(ctx: Context, lesson: Lesson, hits: dict[str, list[str]]) -> Iterator[Finding]:
    """L150: an enforced lesson refuses every command its triggers match, every time, so
    a trigger recall would call broad (``BROAD_RECALL_PROBES`` ordinary commands or more,
    most of one program's, or only an interpreter) would refuse everyday work. One that
    cannot fire is left to L010; one already too broad for any lesson (L104, L107) is
    still named here, since enforcing it is what makes it refuse every time."""
    for pattern in lesson.triggers.commands:
        found = hits.get(pattern)
        if found is None:  # not probed with the others: only an interpreter, or invalid
            try:
                found = probe_hits(compile_command(pattern).matches)
            except CommandPatternError:  # L010
                continue
        reason = enforced_breadth(pattern, found)
        if reason is None:
            continue
        yield Finding(
            "L150",
            ctx.lesson_file(lesson.id),
            f"enforced, and command trigger '{pattern}' {reason}: every such command would be "
            f"refused, every time",
            "narrow the trigger to the one command the rule forbids (e.g. '^git push "
            '--force\'), or remove "enforce" so the rule is shown once a session instead',
            lesson.id,
            pattern,
        )


def enforced_breadth(pattern: str, hits: list[str]) -> str | None:
    """Why a command trigger is too broad to enforce, given its probe ``hits``; None when
    it is specific enough."""
    swept = swept_program(hits)
    if swept is not None:
        program, hit, family = swept
        return f"matches {len(hit)} of the {family} everyday '{program}' commands"
    if len(hits) >= BROAD_RECALL_PROBES:
        shown = ", ".join(f"'{command}'" for command in hits[:3])
        more = ", ..." if len(hits) > 3 else ""
        return f"fires on {len(hits)} of the ordinary commands ({shown}{more})"
    if names_only_an_interpreter(pattern):
        return "names only an interpreter, so it fires on every script it runs"
    return None


def _some(problem: tc.TriggerProblem | None) -> list[tc.TriggerProblem]:
    return [] if problem is None else [problem]


def _findings(ctx: Context, lesson: Lesson, problems: list[tc.TriggerProblem]) -> Iterator[Finding]:
    file = ctx.lesson_file(lesson.id)
    for problem in problems:
        code = _CODES.get(problem.kind)
        if code is not None:
            yield Finding(code, file, problem.problem, problem.fix, lesson.id, problem.trigger)
    never = sum(1 for problem in problems if problem.kind in tc.NEVER_FIRES)
    triggers = lesson.triggers
    # An always-on lesson reaches every session whatever its triggers.
    if not lesson.always and never == len(triggers.files) + len(triggers.commands) + len(
        triggers.keywords
    ):
        reason = "it has no trigger" if triggers.is_empty() else "none of its triggers can fire"
        yield Finding(
            "L106",
            file,
            f"active lesson can never be recalled: {reason}",
            "add a file glob, command pattern or keyword that names where the rule applies, "
            "or deprecate the lesson",
            lesson.id,
            '"triggers"',
        )
