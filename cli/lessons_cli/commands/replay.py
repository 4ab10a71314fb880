"""``lessons replay``: what the Claude Code hook would have shown in a past session."""

from __future__ import annotations

from pathlib import Path

import click

from lessons_cli.commands.stats import render_effect
from lessons_cli.output import counted, echo_json
from lessons_cli.replay import replay
from lessons_core.eval.replay_report import FAILED, REFUSED, Replay
from lessons_core.eval.transcripts import read_transcript
from lessons_core.store.config import load_config
from lessons_core.store.layout import find_layout

NEVER_FIRED_LISTED = 10
OUTCOMES = {FAILED: "failed", REFUSED: "refused when recorded"}


@click.command("replay")
@click.argument("transcript", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option("--json", "as_json", is_flag=True, help="Print every call and the totals as JSON.")
def replay_command(transcript: Path, as_json: bool) -> None:
    """Replay a Claude Code session transcript through the hook, call by call.

    TRANSCRIPT is a session file Claude Code keeps under ~/.claude/projects/<project>/.
    Every prompt and tool call the hook is wired for goes through the code the hook runs
    (session suppression, pure reads, gate or context, compaction), in a throwaway
    session with telemetry off, so the replay keeps nothing. Try a graph on past
    sessions before turning the hook on.

    \b
    Example:
      lessons replay ~/.claude/projects/-home-me-shop/3f2a9c1e.jsonl
      lessons replay SESSION.jsonl --json
    """
    layout = find_layout()
    parsed = read_transcript(transcript)
    result = replay(layout, parsed, load_config(layout.config_path))
    if as_json:
        echo_json(result.to_dict())
        return
    _print(result)
    if parsed.skipped_lines:
        click.echo(f"{parsed.skipped_lines} transcript lines hold nothing a hook sees", err=True)


def _print(result: Replay) -> None:
    for call in result.calls:
        shown = f" {', '.join(call.lessons)} ({call.tokens} tokens)" if call.lessons else ""
        outcome = f" [{OUTCOMES[call.outcome]}]" if call.outcome in OUTCOMES else ""
        click.echo(f"{call.line:>5} {call.mode or 'silent':<7} {call.label}{outcome}{shown}")
    totals = result.totals()
    click.echo(
        f"{counted(totals.calls, 'call')}: {counted(totals.prompts, 'prompt')}, "
        f"{counted(totals.tool_calls, 'tool call')} (and {result.unhooked_calls} the hook is "
        f"not wired for), {counted(totals.compactions, 'compaction')}"
    )
    click.echo(
        f"silent: {totals.silent_share:.0%}; delivering: {totals.delivering} "
        f"({counted(totals.gates, 'gate')})"
    )
    click.echo(
        f"tokens: {totals.tokens_per_call:.1f} per call, "
        f"{totals.tokens_per_delivering_call:.1f} per delivering call, {totals.tokens} in all "
        f"(+{totals.session_note_tokens} session notes, +{totals.nudge_tokens} failure nudges)"
    )
    never = totals.never_fired
    listed = ", ".join(never[:NEVER_FIRED_LISTED]) + (
        " …" if len(never) > NEVER_FIRED_LISTED else ""
    )
    active = len(result.active_ids)
    click.echo(
        f"never fired: {len(never)} of {active} active lessons" + (f": {listed}" if never else "")
    )
    failures = totals.failed_after_lesson
    click.echo(f"failed right after a lesson about them was shown: {len(failures)}")
    for call in failures:
        click.echo(f"  line {call.line} {call.label}: {', '.join(call.failed_after)}")
    # The refusals are those recorded (a session run with the hook on); held is whether
    # the recorded failures came after what today's lessons would have shown.
    for line in render_effect(result.effect()):
        click.echo(line)
