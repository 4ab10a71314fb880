"""``lessons export``: the active lessons as a file other tools read."""

from __future__ import annotations

from pathlib import Path

import click

from lessons_cli.harnesses.agent_docs import ADDED, CREATED, EXPORT, REPLACED
from lessons_core.export import agents_md
from lessons_core.fsutil import output_target
from lessons_core.permission_rules.settings import (
    DEFAULT_SETTINGS,
    PermissionsExport,
    export_permissions,
)
from lessons_core.recall.printable import visible
from lessons_core.store.layout import find_layout


@click.command("export")
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["agents-md", "claude-permissions"]),
    required=True,
    help="agents-md: Markdown grouped by topic, one bullet per active rule. "
    "claude-permissions: the command triggers of enforced lessons as permissions.deny "
    f"rules of Claude Code's {DEFAULT_SETTINGS}.",
)
@click.option(
    "--output",
    type=click.Path(dir_okay=False, path_type=Path),
    help="Write to this file's lessons section (atomically) instead of stdout; for "
    f"claude-permissions, the settings file to edit (default {DEFAULT_SETTINGS} of the "
    "repo, and it must be inside the repo).",
)
def export_command(fmt: str, output: Path | None) -> None:
    """Write the active lessons for tools that only read an instructions file, or the
    enforced command rules for Claude Code's own permission check.

    agents-md: the lessons go in a section of their own, between the marker comments
    lessons:export:start and lessons:export:end. With --output, an existing file keeps
    everything outside that section: re-exporting replaces the section only, and a file
    without one gets it at its end.

    claude-permissions: each command trigger of an active lesson with "enforce": true
    that translates exactly into Claude Code's rule syntax (^git push --force( |$)
    becomes Bash(git push --force:*)) goes into permissions.deny, so Claude Code itself
    refuses the command; the others are listed with the reason. Only that list changes,
    and in it only the entries the last export wrote (recorded in
    .lessons/claude-permissions.json): every other byte of the file stays.

    \b
    Example:
      lessons export --format agents-md --output AGENTS.md
      lessons export --format claude-permissions
    """
    layout = find_layout()
    if fmt == "claude-permissions":
        click.echo(_permissions_report(export_permissions(layout, output)))
        return
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


def _permissions_report(done: PermissionsExport) -> str:
    lines = [
        f"{len(done.rules)} deny rule{'' if len(done.rules) == 1 else 's'} for enforced lessons "
        f"in {visible(done.settings)} ({len(done.added)} added, {len(done.removed)} removed)"
    ]
    lines += [f"  {visible(rule)}  lesson {visible(lesson)}" for rule, lesson in done.rules]
    lines += [f"  removed {visible(rule)}" for rule in done.removed]
    if done.untranslated:
        lines.append("not exported (no exact Claude Code rule; the hook still enforces them):")
        lines += [
            f"  lesson {visible(u.lesson_id)}, trigger '{visible(u.pattern)}': {visible(u.reason)}"
            for u in done.untranslated
        ]
    return "\n".join(lines)
