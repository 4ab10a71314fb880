"""``lessons harvest``: capture candidates from past session transcripts; writes nothing."""

from __future__ import annotations

from pathlib import Path

import click

from lessons_cli.output import counted, echo_json
from lessons_cli.transcript_actions import per_transcript
from lessons_core.harvest.candidates import Candidate, Harvest, harvest
from lessons_core.harvest.sources import (
    DEFAULT_RECENT,
    claude_projects_dir,
    codex_sessions_dir,
    recent_sessions,
)
from lessons_core.store.layout import find_layout

KIND_LABELS = {
    "correction": "correction",
    "fail-fix": "failed, then fixed",
    "recurring": "failed again",
    "gate-ignored": "gate ignored",
}


@click.command("harvest")
@click.argument(
    "transcripts", nargs=-1, type=click.Path(exists=True, dir_okay=False, path_type=Path)
)
@click.option(
    "--recent",
    default=DEFAULT_RECENT,
    show_default=True,
    type=click.IntRange(min=1),
    help="Without TRANSCRIPT: how many of this repo's newest sessions to read.",
)
@click.option("--json", "as_json", is_flag=True, help="Print the candidates as JSON.")
def harvest_command(transcripts: tuple[Path, ...], recent: int, as_json: bool) -> None:
    """List lessons worth capturing from past sessions; never writes one.

    Reads session transcripts of Claude Code and Codex CLI (TRANSCRIPT files, or by
    default this repo's newest sessions under ~/.claude/projects/ and ~/.codex/sessions/)
    once each, and lists four kinds of candidate: a correction typed right after an
    action, a command that failed and a changed form of it that worked right after (or
    the same call working again after an environment error), a call that failed twice
    the same way, and a call sent again unchanged after a lessons gate. Each comes with its
    evidence (masked), a precise trigger, a ready 'lessons add' line and the lessons
    that already cover it.

    \b
    Example:
      lessons harvest
      lessons harvest ~/.claude/projects/-home-me-shop/3f2a9c1e.jsonl --json
    """
    layout = find_layout()
    paths = list(transcripts) or recent_sessions(layout.root, recent)
    if not paths:
        click.echo(
            f"no sessions of this repo under {claude_projects_dir()} or "
            f"{codex_sessions_dir()}; pass transcript files instead",
            err=True,
        )
    result = harvest(layout, paths, per_transcript(layout))
    if as_json:
        echo_json(result.to_dict())
        return
    _print(result)


def _print(result: Harvest) -> None:
    for candidate in result.candidates:
        _print_candidate(candidate)
    uncovered = sum(1 for c in result.candidates if not c.covered)
    click.echo(
        f"{counted(len(result.candidates), 'candidate')} ({uncovered} not covered by a lesson) "
        f"in {counted(len(result.transcripts), 'transcript')}"
    )


def _print_candidate(candidate: Candidate) -> None:
    count = f" {candidate.count} times" if candidate.count > 1 else ""
    click.echo(f"{KIND_LABELS[candidate.kind]}{count}: {candidate.subject}")
    click.echo(f"  evidence: {candidate.evidence}")
    if candidate.fix:
        click.echo(f"  fixed by: {candidate.fix}")
    click.echo(
        f"  session {candidate.session} at {candidate.time or '?'} "
        f"({candidate.transcript} line {candidate.line})"
    )
    if candidate.covered_by:
        click.echo(f"  covered by: {', '.join(candidate.covered_by)}")
    if candidate.add_line:
        click.echo(f"  {candidate.add_line}")
    click.echo("")
