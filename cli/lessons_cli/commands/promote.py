"""``lessons promote``: a personal lesson into the repository's store."""

from __future__ import annotations

import click

from lessons_core.authoring.promote import promote
from lessons_core.store.layout import find_layout
from lessons_core.store.scoped import personal_layout
from lessons_core.store.sources import PERSONAL, split_qualified


@click.command("promote")
@click.argument("lesson_id", metavar="ID")
@click.option("--force", is_flag=True, help="Save even if a near-duplicate rule exists.")
def promote_command(lesson_id: str, force: bool) -> None:
    """Copy personal lesson ID into this repository and retire the personal copy.

    The lesson passes the same guards as 'lessons add' here, keeps its id when the
    project has none such, and is then a project lesson to commit and review; the
    personal copy is deprecated, naming the project it went to. ID may be written
    personal:ID, as a block names it.

    \b
    Example:
      lessons promote personal:docker-never-compose-down-v
    """
    project = find_layout()
    scope, plain = split_qualified(lesson_id)
    if scope not in (None, PERSONAL):
        raise click.UsageError(f"only a personal lesson is promoted, and '{lesson_id}' is not")
    result = promote(project, personal_layout(), plain, force=force)
    for warning in result.warnings:
        click.echo(f"warning: {warning}", err=True)
    for notice in result.notices:
        click.echo(f"notice: {notice}", err=True)
    click.echo(f"promoted personal:{plain} to {result.lesson.id}; commit its file", err=True)
    click.echo(result.lesson.id)
