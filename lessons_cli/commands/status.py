"""``lessons deprecate``, ``lessons supersede`` and ``lessons rm``."""

from __future__ import annotations

import click

from lessons_core.authoring.guards import check_reason
from lessons_core.store.layout import find_layout
from lessons_core.store.model import Status
from lessons_core.store.project import remove_lesson, set_status

_REASON = click.option(
    "--reason",
    metavar="TEXT",
    help="Why the rule no longer applies, one line; kept in the lesson file and shown by "
    "show, review and report.",
)


def _reason(reason: str | None) -> str | None:
    return None if reason is None else check_reason(reason)


@click.command("deprecate")
@click.argument("lesson_id", metavar="ID")
@_REASON
def deprecate_command(lesson_id: str, reason: str | None) -> None:
    """Mark a lesson deprecated: kept for history, never recalled.

    \b
    Example:
      lessons deprecate build-use-make-not-ninja --reason "the build moved to just"
    """
    why = _reason(reason)
    lesson = set_status(find_layout(), lesson_id, Status.DEPRECATED, reason=why)
    click.echo(f"deprecated {lesson.id}")


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
def rm_command(lesson_id: str) -> None:
    """Delete a lesson file and its traces in local state (use git to get it back).

    \b
    Example:
      lessons rm testing-obsolete-rule
    """
    remove_lesson(find_layout(), lesson_id)
    click.echo(f"removed {lesson_id}")
