"""``lessons export``: the active lessons as a file other tools read."""

from __future__ import annotations

from pathlib import Path

import click

from lessons_core.export import agents_md
from lessons_core.fsutil import atomic_write, output_target
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
    help="Write to this file (atomically) instead of stdout.",
)
def export_command(fmt: str, output: Path | None) -> None:
    """Write the active lessons for tools that only read an instructions file.

    \b
    Example:
      lessons export --format agents-md --output AGENTS.md
    """
    layout = find_layout()
    text = agents_md(layout)
    if output is None:
        click.echo(text, nl=False)
        return
    atomic_write(output_target(output, layout.root), text.encode())
    click.echo(f"wrote {output}", err=True)
