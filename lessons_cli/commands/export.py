"""``lessons export``: the active lessons as a file other tools read."""

from __future__ import annotations

from pathlib import Path

import click

from lessons_cli.harnesses.agent_docs import ADDED, CREATED, EXPORT, REPLACED
from lessons_core.export import agents_md
from lessons_core.fsutil import output_target
from lessons_core.store.layout import find_layout


@click.command("export")
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["agents-md"]),
    required=True,
    help="agents-md: Markdown grouped by topic, one bullet per active rule.",
)
@click.option(
    "--output",
    type=click.Path(dir_okay=False, path_type=Path),
    help="Write to this file's lessons section (atomically) instead of stdout.",
)
def export_command(fmt: str, output: Path | None) -> None:
    """Write the active lessons for tools that only read an instructions file.

    The lessons go in a section of their own, between the marker comments
    lessons:export:start and lessons:export:end. With --output, an existing file keeps
    everything outside that section: re-exporting replaces the section only, and a file
    without one gets it at its end.

    \b
    Example:
      lessons export --format agents-md --output AGENTS.md
    """
    layout = find_layout()
    text = EXPORT.wrap(agents_md(layout))
    if output is None:
        click.echo(text, nl=False)
        return
    done = EXPORT.write(output_target(output, layout.root), text)
    said = {
        CREATED: "wrote",
        ADDED: "added the lessons section to",
        REPLACED: "updated the lessons section of",
    }.get(done, "unchanged:")
    click.echo(f"{said} {output}", err=True)
