"""``lessons add``: capture a lesson right after a failure or a correction."""

from __future__ import annotations

import click

from lessons_cli.output import echo_json
from lessons_core.authoring.capture import add_lesson
from lessons_core.authoring.guards import CaptureDraft
from lessons_core.project_commands import everyday_commands
from lessons_core.store.layout import find_layout
from lessons_core.store.model import Triggers
from lessons_core.store.scoped import personal_layout, shown_id


@click.command("add")
@click.argument("rule")
@click.option(
    "--topic",
    "topics",
    multiple=True,
    required=True,
    help="Topic the lesson belongs to (repeatable; the first names the id).",
)
@click.option(
    "--trigger-file",
    "files",
    multiple=True,
    metavar="GLOB",
    help="Glob of files the rule is about, from the repo root; an absolute path into the "
    "repo is stored relative to it (repeatable).",
)
@click.option(
    "--trigger-cmd",
    "commands",
    multiple=True,
    metavar="PATTERN",
    help="Command the rule is about, e.g. 'git push' (RE2 pattern; repeatable).",
)
@click.option(
    "--trigger-keyword",
    "keywords",
    multiple=True,
    metavar="PHRASE",
    help="Whole word or phrase in prompts, paths or commands (repeatable).",
)
@click.option("--rationale", help="Why the rule exists; shown by 'lessons show'.")
@click.option(
    "--evidence",
    "evidence",
    multiple=True,
    metavar="REF",
    help="Reference such as commit:abc123 or pr:42 (repeatable).",
)
@click.option("--gate", is_flag=True, help="Always deliver before the action (deny, then retry).")
@click.option(
    "--always",
    is_flag=True,
    help="Deliver at every session start and after compaction, whatever the task; no "
    "trigger needed (within the always_max_tokens budget).",
)
@click.option(
    "--enforce",
    is_flag=True,
    help="For people only, never for an agent: refuse every command the rule's command "
    "triggers match, each time, not only the first of a session (needs --trigger-cmd).",
)
@click.option(
    "--forbid",
    metavar="PATTERN",
    help="For people only, never for an agent: an RE2 pattern a change to the rule's files "
    "must not add (needs --trigger-file); every edit, write, patch or shell write that adds "
    "a match is refused, quoting it, e.g. --forbid \"split\\('/'\\)\".",
)
@click.option(
    "--broad-reason",
    metavar="TEXT",
    help="For people only: why the rule's file triggers are deliberately this broad "
    "(e.g. 'every cassette is recorded the same way'); stored in the lesson, after which "
    "add and validate no longer call them broad.",
)
@click.option(
    "--id",
    "lesson_id",
    metavar="ID",
    help="The id to give the lesson (lowercase words joined by dashes, at most 60 "
    "characters) instead of one made from the topic and the rule; refused if taken.",
)
@click.option("--force", is_flag=True, help="Save even if a near-duplicate rule exists.")
@click.option(
    "--personal",
    is_flag=True,
    help="Save it in your own store ($XDG_DATA_HOME/lessons, default "
    "~/.local/share/lessons), not the repository: recalled in every repository wired "
    "with lessons, only where a trigger matches.",
)
@click.option("--json", "as_json", is_flag=True, help="Print the saved lesson as JSON.")
def add_command(
    rule: str,
    topics: tuple[str, ...],
    files: tuple[str, ...],
    commands: tuple[str, ...],
    keywords: tuple[str, ...],
    rationale: str | None,
    evidence: tuple[str, ...],
    gate: bool,
    always: bool,
    enforce: bool,
    forbid: str | None,
    broad_reason: str | None,
    lesson_id: str | None,
    force: bool,
    personal: bool,
    as_json: bool,
) -> None:
    """Save RULE, one imperative sentence, and print its id.

    A rule for every task ("use pnpm, never npm") takes --always instead of triggers.
    --enforce and --forbid make a rule binding, refused every time it is broken; they are
    for people, and an agent capturing what it learned never passes them.
    Re-adding the exact rule of an existing lesson merges the new triggers and evidence
    into it. Refusals (no trigger, a trigger that can never fire such as the glob '[z-a]'
    or a path outside the repo, a glob matching everything, a secret in any field or
    trigger, a control character, a near-duplicate) exit 1 with the reason and the fix,
    and leave the graph unchanged.

    With --personal the lesson is yours alone, kept outside every repository, and judged
    by the same guards against the repository you are in; it is named personal:ID.

    \b
    Example:
      lessons add "Run 'pnpm build' before 'pnpm test:e2e'; e2e runs dist/." \\
          --topic testing --trigger-cmd 'pnpm test:e2e' --evidence commit:3f2a1bc
    """
    if personal and always:
        raise click.UsageError(
            "--always cannot be personal: a personal lesson speaks only where a trigger of "
            "its own matches; give it --trigger-file, --trigger-cmd or --trigger-keyword"
        )
    layout = personal_layout(create=True) if personal else find_layout()
    draft = CaptureDraft(
        rule=rule,
        topics=topics,
        triggers=Triggers(files=files, commands=commands, keywords=keywords),
        rationale=rationale,
        evidence=evidence,
        gate=gate,
        always=always,
        lesson_id=lesson_id,
        enforce=enforce,
        forbid=forbid,
        broad_reason=broad_reason,
    )
    project = everyday_commands(layout.root) if commands else None
    result = add_lesson(layout, draft, force=force, project=project)
    for warning in result.warnings:
        click.echo(f"warning: {warning}", err=True)
    for notice in result.notices:
        click.echo(f"notice: {notice}", err=True)
    if as_json:
        echo_json(
            {
                "lesson": result.lesson.to_dict(),
                "created": result.created,
                "notices": list(result.notices),
            }
        )
        return
    name = shown_id(layout, result.lesson.id)
    if not result.created:
        click.echo(f"updated existing lesson (same rule): {name}", err=True)
    click.echo(name)
