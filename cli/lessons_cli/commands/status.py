"""``lessons deprecate``, ``lessons supersede``, ``lessons rm`` and ``lessons touch``."""

from __future__ import annotations

import click

from lessons_cli.output import echo_json
from lessons_core.authoring.guards import check_reason
from lessons_core.session.state import forget_lesson
from lessons_core.store.layout import Layout, contained, find_layout, find_root
from lessons_core.store.model import Status
from lessons_core.store.project import remove_lesson, set_status
from lessons_core.store.scoped import shown_id, writable_scope
from lessons_core.store.touch import touch_lessons

_REASON = click.option(
    "--reason",
    metavar="TEXT",
    help="Why the rule no longer applies, one line; kept in the lesson file and shown by "
    "show, review and report.",
)


def _reason(reason: str | None) -> str | None:
    return None if reason is None else check_reason(reason)


_PERSONAL = click.option("--personal", is_flag=True, help="ID is one of your personal lessons.")


@click.command("deprecate")
@click.argument("lesson_id", metavar="ID")
@_REASON
@_PERSONAL
def deprecate_command(lesson_id: str, reason: str | None, personal: bool) -> None:
    """Mark a lesson deprecated: kept for history, never recalled.

    personal:ID (or --personal ID) names a personal lesson; a pack's lessons are changed
    where the pack lives, never here.

    \b
    Example:
      lessons deprecate build-use-make-not-ninja --reason "the build moved to just"
    """
    why = _reason(reason)
    store, plain = writable_scope(lesson_id, personal)
    lesson = set_status(store, plain, Status.DEPRECATED, reason=why)
    click.echo(f"deprecated {shown_id(store, lesson.id)}")


@click.command("supersede")
@click.argument("lesson_id", metavar="ID")
@click.option("--by", "new_id", required=True, metavar="NEW_ID", help="The active successor.")
@_REASON
def supersede_command(lesson_id: str, new_id: str, reason: str | None) -> None:
    """Mark a lesson superseded by another, active one.

    \b
    Example:
      lessons supersede build-use-make --by build-use-just-recipes
    """
    why = _reason(reason)
    lesson = set_status(
        find_layout(), lesson_id, Status.SUPERSEDED, superseded_by=new_id, reason=why
    )
    click.echo(f"superseded {lesson.id} by {new_id}")


@click.command("rm")
@click.argument("lesson_id", metavar="ID")
@_PERSONAL
def rm_command(lesson_id: str, personal: bool) -> None:
    """Delete a lesson file and its traces in local state (use git to get it back).

    personal:ID (or --personal ID) deletes a personal lesson, which no git keeps: deprecate
    it instead to keep it. A pack's lessons are removed where the pack lives.

    \b
    Example:
      lessons rm testing-obsolete-rule
    """
    store, plain = writable_scope(lesson_id, personal)
    remove_lesson(store, plain)
    name = shown_id(store, plain)
    root = find_root()
    if root is not None:
        forget_lesson(contained(Layout(root)), name)
    click.echo(f"removed {name}")


@click.command("touch")
@click.argument("lesson_ids", metavar="ID...", nargs=-1, required=True)
@click.option("--json", "as_json", is_flag=True, help="Print what was recorded as JSON.")
def touch_command(lesson_ids: tuple[str, ...], as_json: bool) -> None:
    """Record that lessons were re-read and still hold for the code as it is now.

    Writes "checked": {"commit": HEAD, "date": today} into each lesson file, so
    `lessons validate` counts drift (L304) from here on. Commit the files.
    Every id must exist; none is written otherwise.

    \b
    Example:
      lessons touch db-declare-columns-non-null
    """
    touched = touch_lessons(find_layout(), list(lesson_ids))
    if as_json:
        echo_json(
            [{"id": t.id, "checked": t.checked.to_dict() if t.checked else None} for t in touched]
        )
        return
    for lesson in touched:
        commit = lesson.checked.commit[:10] if lesson.checked else ""
        click.echo(f"checked {lesson.id} at {commit}")
