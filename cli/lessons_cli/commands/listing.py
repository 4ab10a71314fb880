"""``lessons list``, ``lessons show`` and ``lessons topics``."""

from __future__ import annotations

import click

from lessons_cli.output import describe, echo_json, lesson_list, topic_lines
from lessons_core.recall.printable import visible
from lessons_core.store.files import load_graph
from lessons_core.store.layout import find_layout
from lessons_core.store.model import Status
from lessons_core.store.scoped import find_scoped, personal_layout

STATUS_CHOICE = click.Choice([s.value for s in Status])


@click.command("list")
@click.option("--topic", help="Only lessons in this topic.")
@click.option("--status", type=STATUS_CHOICE, help="Only lessons with this status.")
@click.option("--personal", is_flag=True, help="Your personal lessons instead of the project's.")
@click.option("--json", "as_json", is_flag=True, help='Print {"lessons": [...]}.')
def list_command(topic: str | None, status: str | None, personal: bool, as_json: bool) -> None:
    """List lessons, one per line (id: rule), in the block the hooks show.

    \b
    Example:
      lessons list --topic testing --status active
      lessons list --personal
    """
    graph = load_graph(personal_layout() if personal else find_layout())
    for broken in graph.broken:
        click.echo(f"warning: skipped {visible(str(broken))}", err=True)
    lessons = [
        lesson
        for _, lesson in sorted(graph.lessons.items())
        if (topic is None or topic in lesson.topics)
        and (status is None or lesson.status.value == status)
    ]
    if as_json:
        echo_json({"lessons": [lesson.to_dict() for lesson in lessons]})
        return
    if lessons:
        click.echo(lesson_list(lessons))


@click.command("show")
@click.argument("lesson_id", metavar="ID")
@click.option("--personal", is_flag=True, help="ID is one of your personal lessons.")
@click.option("--json", "as_json", is_flag=True, help="Print the lesson as JSON.")
def show_command(lesson_id: str, personal: bool, as_json: bool) -> None:
    """Show one lesson in full: rule, rationale, triggers, evidence, status.

    ID is a lesson's id, or the start of it that tells it apart (what a block names a
    rule shown cut by: '… [testing-run-pnpm]'); personal:ID names a personal lesson,
    PACK:ID a lesson of the pack PACK.

    \b
    Example:
      lessons show testing-run-pnpm-build-before
      lessons show personal:docker-never-compose-down-v
    """
    _store, lesson = find_scoped(lesson_id, personal)
    if as_json:
        echo_json(lesson.to_dict())
    else:
        click.echo(describe(lesson))


@click.command("topics")
@click.option("--json", "as_json", is_flag=True, help='Print {"topics": {name: count}}.')
def topics_command(as_json: bool) -> None:
    """List topics with how many active lessons each holds.

    \b
    Example:
      lessons topics
    """
    counts = load_graph(find_layout()).topic_counts()
    if as_json:
        echo_json({"topics": counts})
        return
    if counts:
        click.echo(topic_lines(counts))
