"""``lessons import``: bring in rules kept in another tool's format."""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path

import click

from lessons_cli.output import echo_json
from lessons_core.importers.agentsmesh import plan_agentsmesh
from lessons_core.importers.apply import apply_plan
from lessons_core.importers.instructions import plan_instructions
from lessons_core.importers.plan import ImportResult, Note, NoteKind
from lessons_core.importers.rule_files import FORMATS
from lessons_core.importers.rule_import import plan_rule_files
from lessons_core.store.layout import find_layout

EXAMPLES_PER_CODE = 3

dry_run_option = click.option(
    "--dry-run",
    is_flag=True,
    help="List every lesson it would write, with its triggers, and every loss; write nothing.",
)
json_option = click.option(
    "--json", "as_json", is_flag=True, help="Print the full report as JSON (every note)."
)


@click.group("import")
def import_group() -> None:
    """Import rules from another tool; re-importing the same source changes nothing.

    Each import reports what it could not carry, what it carried in a changed form, and
    which lessons would not pass the capture guards of 'lessons add' (written anyway:
    the rules already exist).

    \b
    Example:
      lessons import agentsmesh .agentsmesh/lessons/lessons.json --dry-run
    """


@import_group.command("agentsmesh")
@click.argument("path", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@dry_run_option
@json_option
def agentsmesh_command(path: Path, dry_run: bool, as_json: bool) -> None:
    """Import an agentsmesh lessons graph (its single lessons.json file).

    Ids, rules, rationale, topics (with their summaries), evidence, status, successors
    and creation dates are kept; triggers are inlined per lesson, JavaScript command
    patterns rewritten for RE2.

    \b
    Example:
      lessons import agentsmesh .agentsmesh/lessons/lessons.json
    """
    layout = find_layout()
    report(apply_plan(layout, plan_agentsmesh(path, layout.root), dry_run=dry_run), as_json)


@import_group.command("instructions")
@click.argument("files", nargs=-1, type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option(
    "--always",
    is_flag=True,
    help="Import a root file's rules that name no file or command as always-on lessons "
    "(shown at session start, within always_max_tokens) instead of leaving them in the file.",
)
@dry_run_option
@json_option
def instructions_command(
    files: tuple[Path, ...], always: bool, dry_run: bool, as_json: bool
) -> None:
    """Import the rules of plain instruction files (CLAUDE.md, AGENTS.md, ...).

    FILES default to every instruction file git tracks: CLAUDE.md, AGENTS.md,
    GEMINI.md in any folder, and .github/copilot-instructions.md. A bullet or a
    sentence becomes a lesson only when it is a rule (an imperative, always/never/
    must/should/avoid/prefer/don't); it is cleaned of Markdown and triggered where its
    mistake is made: the file or command it forbids and the situation it names, never
    the command or file it asks for. Descriptions, links, tables, set-up steps,
    lead-ins and rules naming no such place stay in the file, listed under their
    reason (--always makes a root file's rules naming nothing always-on lessons). A
    file below the root (pkg/AGENTS.md) applies to its folder: the paths it names are
    read from there first, and its rules are scoped to the folder. The section
    'lessons init --agents-md' wrote is skipped. --dry-run lists every lesson it
    would write, with its triggers.

    \b
    Example:
      lessons import instructions --dry-run
      lessons import instructions CLAUDE.md docs/AGENTS.md
    """
    layout = find_layout()
    plan = plan_instructions(layout, list(files), always)
    report(apply_plan(layout, plan, dry_run=dry_run), as_json)


RULE_FILE_HELP = {
    "cursor": "Cursor project rules (.cursor/rules/**/*.mdc, scoped by 'globs')",
    "copilot": "GitHub Copilot instructions (.github/instructions/**/*.instructions.md, "
    "scoped by 'applyTo')",
    "kiro": "Kiro steering files (.kiro/steering/**/*.md, scoped by 'inclusion: fileMatch' "
    "and 'fileMatchPattern')",
    "claude-rules": "Claude Code rules (.claude/rules/**/*.md, scoped by 'paths')",
}


def _rule_file_command(name: str) -> click.Command:
    fmt = FORMATS[name]

    @click.argument(
        "path", required=False, type=click.Path(exists=True, path_type=Path), metavar="[PATH]"
    )
    @dry_run_option
    @json_option
    def command(path: Path | None, dry_run: bool, as_json: bool) -> None:
        layout = find_layout()
        report(apply_plan(layout, plan_rule_files(layout, name, path), dry_run=dry_run), as_json)

    command.__doc__ = f"""Import {RULE_FILE_HELP[name]}.

    PATH is a folder (searched recursively) or one file; by default {fmt.default_dir}/ at
    the repo root. Each top-level bullet becomes a lesson whose file triggers are the
    file's globs; nested bullets become its rationale; a file without a list becomes one
    lesson, with a warning. A rule already here (same wording) gets the new triggers.

    \b
    Example:
      lessons import {name} --dry-run
      lessons import {name} {fmt.default_dir}/
    """
    return import_group.command(name)(command)


for _name in FORMATS:
    _rule_file_command(_name)


def report(result: ImportResult, as_json: bool) -> None:
    """The import report: counts on stdout; on a dry run every lesson it would write, in
    full; every loss, grouped by its reason; other notes summarised."""
    if as_json:
        echo_json(result.to_dict())
        return
    verb = "would import" if result.dry_run else "imported"
    lessons, topics = result.lessons, result.topics
    click.echo(
        f"{verb} {result.plan.source} ({result.plan.format}): "
        f"{len(result.plan.lessons)} lessons ({len(lessons.created)} new, "
        f"{len(lessons.updated)} updated, {len(lessons.unchanged)} unchanged), "
        f"{len(result.plan.topics)} topic summaries ({len(topics.created)} new, "
        f"{len(topics.updated)} updated, {len(topics.unchanged)} unchanged)"
    )
    if result.dry_run:
        _planned(result)
    lost = result.notes_of(NoteKind.NOT_CARRIED)
    click.echo(f"not carried: {len(lost)}")
    for code, group in _by_code(lost):
        click.echo(f"  {code} ({len(group)}):")
        for note in group:
            click.echo(f"    {note.subject}: {note.detail}")
    for kind, title in (
        (NoteKind.TRANSLATED, "carried in another form"),
        (NoteKind.WARNING, "would not pass 'lessons add'"),
    ):
        notes = result.notes_of(kind)
        click.echo(f"{title}: {len(notes)}")
        _summary(notes)
    if result.notes_of(NoteKind.TRANSLATED) or result.notes_of(NoteKind.WARNING):
        click.echo("(--json lists every note)")


def _planned(result: ImportResult) -> None:
    """Every lesson the import would write: its id, its rule and its triggers, in full."""
    written = set(result.lessons.created + result.lessons.updated + result.lessons.unchanged)
    planned = [lesson for lesson in result.plan.lessons if lesson.id in written]
    click.echo(f"lessons it would write: {len(planned)}")
    for lesson in planned:
        click.echo(f"  {lesson.id}: {lesson.rule}")
        triggers = lesson.triggers
        for label, values in (
            ("files", triggers.files),
            ("commands", triggers.commands),
            ("keywords", triggers.keywords),
        ):
            if values:
                click.echo(f"    {label}: {', '.join(values)}")
        if lesson.always:
            click.echo("    always-on (shown at session start)")


def _by_code(notes: list[Note]) -> list[tuple[str, list[Note]]]:
    """``notes`` grouped by code, the largest group first."""
    by_code: dict[str, list[Note]] = defaultdict(list)
    for note in notes:
        by_code[note.code].append(note)
    return sorted(by_code.items(), key=lambda item: (-len(item[1]), item[0]))


def _summary(notes: list[Note]) -> None:
    for code, group in _by_code(notes):
        click.echo(f"  {code} ({len(group)}), e.g.")
        for note in group[:EXAMPLES_PER_CODE]:
            click.echo(f"    {note.subject}: {note.detail}")
