"""``lessons check``: refuse a change that adds text a lesson's ``forbid`` pattern names."""

from __future__ import annotations

import click

from lessons_cli.output import echo_json, format_option
from lessons_core.check.report import FORMATS, as_github, as_json, as_text, check_changes
from lessons_core.errors import LessonsError
from lessons_core.store.layout import find_layout

EXIT_FINDINGS = 1
EXIT_CANNOT_CHECK = 2


@click.command("check")
@click.argument("commits", metavar="[BASE..HEAD]", required=False)
@format_option(FORMATS, "text for people; github for ::error annotations on the lines.")
@click.option("--json", "as_json_flag", is_flag=True, help="Print the findings as JSON.")
def check_command(commits: str | None, output_format: str, as_json_flag: bool) -> None:
    """Check the lines a change adds against every lesson's forbid pattern.

    Without an argument, the staged changes (what 'git commit' would record: the
    pre-commit case). With BASE..HEAD, what HEAD adds since its merge base with BASE,
    as 'git diff BASE...HEAD' shows it (a pull request's own changes, whatever landed on
    BASE since); BASE...HEAD means the same, and a lone BASE means BASE..HEAD.

    Each added line in a file that an active lesson's file triggers cover is searched
    for that lesson's forbid pattern; each match is a finding naming the file, the line
    in the new file, the rule, the matched text and the lesson. Exit 0 when there are
    none, 1 when there are findings, 2 when the change cannot be checked (outside git,
    no .lessons/, a range that does not resolve).

    \b
    Example:
      lessons check
      lessons check origin/main..HEAD --format github
      lessons check main..feature --json
    """
    try:
        report = check_changes(find_layout(), commits)
    except LessonsError as err:
        click.echo(f"error: {err}", err=True)
        raise SystemExit(EXIT_CANNOT_CHECK) from None
    if as_json_flag:
        echo_json(as_json(report))
    elif output_format == "github":
        click.echo(as_github(report))
    else:
        click.echo(as_text(report))
    if report.breaches:
        raise SystemExit(EXIT_FINDINGS)
