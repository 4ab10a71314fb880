"""``lessons validate``: report broken, dead, broad, duplicated or useless lessons."""

from __future__ import annotations

import click

from lessons_cli.output import echo_json, format_option
from lessons_core.git import prefix
from lessons_core.store.layout import Layout, contained, find_layout, find_root
from lessons_core.store.scoped import personal_layout
from lessons_core.validate.render import FORMATS, as_github, as_json, as_text
from lessons_core.validate.scopes import validate_scopes


@click.command("validate")
@format_option(FORMATS, "text for people, json for programs, github for workflow annotations.")
@click.option(
    "--strict",
    is_flag=True,
    help="Fail on warnings too, not only on errors (but not on those from this machine's "
    "telemetry).",
)
@click.option(
    "--strict-telemetry",
    is_flag=True,
    help="Fail on warnings from this machine's telemetry log too (L302, L303).",
)
@click.option(
    "--personal",
    is_flag=True,
    help="Check your personal lessons instead (and their contradictions with this "
    "repository's lessons and packs).",
)
def validate_command(
    output_format: str, strict: bool, strict_telemetry: bool, personal: bool
) -> None:
    """Check every lesson; exit 1 on errors (and on warnings with --strict).

    Each finding has a stable code (docs/validate.md lists them with their fixes), the
    lesson file, and a suggested fix. Notices (such as a lesson telemetry never saw
    recalled) are for reading and never fail the run. Findings from the local telemetry
    log (L3xx) are reported but change the exit code only with --strict-telemetry, so
    --strict gives the same answer on every machine for the same commit.

    The packs the config names are checked too, each as a source of its own (a finding
    names the pack's file), and a contradiction between scopes is an L204 naming each.

    \b
    Example:
      lessons validate
      lessons validate --format github --strict
    """
    if personal:
        root = find_root()
        layout = contained(Layout(root)) if root is not None else None
        report = validate_scopes(layout, personal_layout())
    else:
        layout = find_layout()
        report = validate_scopes(layout)
    if output_format == "json":
        echo_json(as_json(report, strict, strict_telemetry))
    elif output_format == "github":
        click.echo(as_github(report, prefix(layout.root) if layout else ""))
    else:
        click.echo(as_text(report))
    if report.failed(strict, strict_telemetry):
        raise SystemExit(1)
