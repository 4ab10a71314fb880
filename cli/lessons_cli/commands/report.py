"""``lessons report --html``: one self-contained HTML page about the lesson graph."""

from __future__ import annotations

from pathlib import Path

import click

from lessons_core.fsutil import atomic_write, output_target
from lessons_core.report import gather, render_page
from lessons_core.store.layout import find_layout


@click.command("report")
@click.option(
    "--html",
    "html_path",
    required=True,
    type=click.Path(dir_okay=False, writable=True, path_type=Path),
    help="Write the page to this file.",
)
def report_command(html_path: Path) -> None:
    """Write an HTML page: topics, tree coverage, findings, and recall use.

    The page is one file with inline CSS and SVG: no script, no external asset, nothing
    fetched, so it can be opened anywhere or attached to a CI run. Recall charts need
    telemetry ("telemetry": true in .lessons/config.json).

    \b
    Example:
      lessons report --html lessons-report.html
    """
    layout = find_layout()
    page = render_page(gather(layout))
    atomic_write(output_target(html_path, layout.root), page.encode("utf-8"))
    click.echo(f"wrote {html_path}")
