"""``lessons review``: lesson changes since a base commit, as Markdown for a PR."""

from __future__ import annotations

import click

from lessons_cli.output import echo_json, format_option
from lessons_core.review.changes import review
from lessons_core.review.markdown import FORMATS, render
from lessons_core.store.layout import find_layout


@click.command("review")
@click.argument("base", required=False)
@format_option(FORMATS, "text for a terminal; markdown (escaped) to paste into a pull request.")
@click.option("--json", "as_json", is_flag=True, help="Print the changes as JSON.")
def review_command(base: str | None, output_format: str, as_json: bool) -> None:
    """Show lessons added, changed, deprecated, superseded or removed since BASE.

    BASE defaults to the merge base of HEAD with the default branch (origin/HEAD, else
    main or master); lessons are compared as they are in the working tree. Each lesson
    comes with its triggers, how many tracked files each glob matches (with examples),
    its status and the reason it was retired, and the validate findings on it. The first
    line names the base commit and how it was chosen.

    \b
    Example:
      lessons review
      lessons review --format markdown > lessons-review.md
      lessons review origin/main --json
    """
    result = review(find_layout(), base)
    if as_json:
        echo_json(result.to_dict())
    else:
        click.echo(render(result, output_format), nl=False)
