"""L0xx: files that do not parse or break the schema, links that lead nowhere, and
triggers that can never fire."""

from __future__ import annotations

from collections.abc import Iterator

from lessons_core.errors import InvalidLessonFile
from lessons_core.matching.trigger_checks import (
    TriggerProblem,
    judge_command,
    judge_glob,
    judge_keyword,
)
from lessons_core.store.model import Lesson
from lessons_core.validate.context import Context
from lessons_core.validate.findings import Finding

# InvalidLessonFile.kind -> (code, fix)
_BROKEN: dict[str, tuple[str, str]] = {
    "unparsable": ("L001", "fix the JSON by hand, or restore the file with git"),
    "unknown-field": ("L002", "remove the field, or fix its spelling (docs/format.md)"),
    "missing-field": ("L003", "add the field (docs/format.md lists the required ones)"),
    "bad-status": ("L004", "set status to 'active', 'deprecated' or 'superseded'"),
    "id-mismatch": ("L006", "make the id equal the file name (without .json)"),
    "too-large": ("L005", "shorten the file: move long text into the evidence it links to"),
}
_INVALID_VALUE_FIX = "correct the value to the type and form docs/format.md gives"


def check(ctx: Context) -> Iterator[Finding]:
    for err in ctx.config_errors:
        yield Finding(
            "L011",
            ctx.rel(err.path),
            err.problem,
            "fix the setting or remove it to use the default (docs/format.md)",
            anchor=err.key,
        )
    for broken in ctx.graph.broken:
        yield _broken_file(ctx, broken)
    for lesson in ctx.graph.lessons.values():
        yield from _links(ctx, lesson)
        yield from _compiles(ctx, lesson)


def _broken_file(ctx: Context, err: InvalidLessonFile) -> Finding:
    code, fix = _BROKEN.get(err.kind, ("L005", _INVALID_VALUE_FIX))
    where = f"field '{err.key}': " if err.key else ""
    return Finding(
        code,
        ctx.rel(err.path),
        f"{where}{err.problem}",
        fix,
        lesson_id=err.path.stem,
        anchor=f'"{err.key.split(".")[-1]}"' if err.key else None,
    )


def _links(ctx: Context, lesson: Lesson) -> Iterator[Finding]:
    successor_id = lesson.superseded_by
    if successor_id is None:
        return
    successor = ctx.graph.lessons.get(successor_id)
    file = ctx.lesson_file(lesson.id)
    if successor is None:
        if ctx.layout.lesson_path(successor_id).exists():
            return  # the successor's file is broken; that file has its own finding
        yield Finding(
            "L007",
            file,
            f"superseded_by names '{successor_id}', which is not a lesson",
            "point superseded_by at an existing lesson id, or restore that lesson",
            lesson_id=lesson.id,
            anchor='"superseded_by"',
        )
    elif not successor.is_active:
        yield Finding(
            "L008",
            file,
            f"superseded by '{successor_id}', which is {successor.status.value}",
            "point superseded_by at the lesson that replaced it in turn, or deprecate both",
            lesson_id=lesson.id,
            anchor='"superseded_by"',
        )


def _compiles(ctx: Context, lesson: Lesson) -> Iterator[Finding]:
    """Triggers the one judgement rejects (recall leaves each out and serves the rest)."""
    file = ctx.lesson_file(lesson.id)
    root = ctx.layout.root
    checked: list[tuple[str, object]] = [
        ("L009", judge_glob(glob, root)) for glob in lesson.triggers.files
    ]
    checked += [("L010", judge_command(pattern)) for pattern in lesson.triggers.commands]
    checked += [("L012", judge_keyword(keyword)) for keyword in lesson.triggers.keywords]
    for code, result in checked:
        if isinstance(result, TriggerProblem):
            yield Finding(code, file, result.problem, result.fix, lesson.id, anchor=result.trigger)
