"""``lessons review``: lesson changes and the lessons code changes bring up, for a PR."""

from __future__ import annotations

import click

from lessons_cli.output import echo_json, format_option
from lessons_core import git
from lessons_core.review import github
from lessons_core.review.changes import review
from lessons_core.review.markdown import FORMATS, render
from lessons_core.store.layout import find_layout


@click.command("review")
@click.argument("range_", metavar="[BASE | BASE..HEAD | BASE...HEAD]", required=False)
@format_option(
    FORMATS,
    "text for a terminal; markdown (escaped) for a pull request or a CI job summary; "
    "github: GitHub Actions annotations on the changed files.",
)
@click.option("--json", "as_json", is_flag=True, help="Print the review as JSON.")
def review_command(range_: str | None, output_format: str, as_json: bool) -> None:
    """Review a change against the lessons: the lessons it adds, changes, deprecates,
    supersedes or removes, the active lessons whose triggers match the files it changes
    and the commands it adds to scripts and CI, and the lessons whose files it deletes or
    renames.

    BASE alone compares it with the working tree (uncommitted edits included);
    BASE..HEAD (or BASE...HEAD) compares the commit HEAD with its merge base with BASE,
    what a pull request adds, as lessons check reads it. Without one, BASE is the merge
    base of HEAD with the default branch (origin/HEAD, else main or master). Each lesson
    comes with its rule, its triggers, what it matched (the file and line, or the added
    command) and why; the lessons are listed most specific match first. Added commands
    are read from shell scripts, Makefiles, justfiles, package.json scripts, GitHub
    Actions run steps and other CI YAML, tox.ini, noxfile.py, pre-commit configs and
    Dockerfile RUN lines. The first line names the base commit and how it was chosen.

    \b
    Example:
      lessons review
      lessons review --format markdown > lessons-review.md
      lessons review origin/main..HEAD --format github
      lessons review origin/main --json
    """
    layout = find_layout()
    result = review(layout, range_)
    if as_json:
        echo_json(result.to_dict())
    elif output_format == "github":
        click.echo(github.render(result, git.prefix(layout.root)), nl=False)
    else:
        click.echo(render(result, output_format), nl=False)
