"""``lessons stats``: recall's cost and use, from the local telemetry log."""

from __future__ import annotations

import click

from lessons_cli.output import counted, echo_json
from lessons_core.recall.printable import visible
from lessons_core.store.config import load_config
from lessons_core.store.files import load_graph
from lessons_core.store.layout import find_layout
from lessons_core.telemetry.effect import Effect
from lessons_core.telemetry.log import log_path, read_log, rotated_path
from lessons_core.telemetry.stats import LessonCount, Stats, compute, preload_cost

ENABLE = 'set "telemetry": true in .lessons/config.json'


@click.command("stats")
@click.option("--top", default=5, show_default=True, help="How many most/least recalled.")
@click.option("--json", "as_json", is_flag=True, help="Print every figure as JSON.")
def stats_command(top: int, as_json: bool) -> None:
    """Show recalls served, silence, tokens, and which lessons work (needs telemetry).

    Reads the local log that telemetry writes under .lessons/local/ (opt-in: set
    "telemetry": true in .lessons/config.json). Nothing leaves the machine.

    \b
    Example:
      lessons stats
      lessons stats --json --top 10
    """
    layout = find_layout()
    config = load_config(layout.config_path)
    has_log = log_path(layout).exists() or rotated_path(layout).exists()
    graph = load_graph(layout)
    if not config.telemetry and not has_log:
        active = [lesson for lesson in graph.lessons.values() if lesson.is_active]
        _telemetry_off(len(active), preload_cost(active), as_json)
        return
    if not config.telemetry:
        click.echo(f"warning: telemetry is off; these are older records ({ENABLE})", err=True)
    stats = compute(read_log(layout), list(graph.lessons.values()), top=top)
    if stats.skipped_lines:
        click.echo(f"warning: skipped {stats.skipped_lines} unreadable log lines", err=True)
    if as_json:
        echo_json({"telemetry": config.telemetry, **stats.to_dict()})
    else:
        click.echo(render(stats))


def _telemetry_off(active: int, preload: int, as_json: bool) -> None:
    """What is known without a log: the store itself, and how to start counting."""
    if as_json:
        echo_json(
            {
                "telemetry": False,
                "active_lessons": active,
                "preload_tokens": preload,
                "enable": ENABLE,
            }
        )
        return
    click.echo(f"active lessons        {active}")
    click.echo(f"preloading all rules  {preload} tokens a session")
    click.echo(f"telemetry is off, so recalls are not counted; to count them, {ENABLE}")


def render(stats: Stats) -> str:
    def counts(items: tuple[LessonCount, ...]) -> str:
        return ", ".join(f"{c.lesson_id} ({c.count})" for c in items) or "-"

    ratio = "-" if stats.ratio is None else f"{stats.ratio:.2f} times that"
    lines = [
        f"recalls served        {stats.recalls} in {counted(stats.sessions, 'session')}",
        f"silent                {stats.silent_share:.1%}",
        f"tokens per recall     {stats.tokens_per_recall:.1f} over every call, "
        f"{stats.tokens_per_delivery:.1f} over delivering calls",
        f"preloading all rules  {stats.preload_tokens} tokens a session "
        f"({stats.active_lessons} active); recall served {ratio}",
        f"most recalled         {counts(stats.most_recalled)}",
        f"least recalled        {counts(stats.least_recalled)}",
        f"never recalled        {never_recalled(stats.never_recalled)}",
        "shown, then failed anyway",
    ]
    lines += [
        f"  {f.lesson_id} before '{f.key}': {counted(f.failures, 'failure')} in "
        f"{counted(f.sessions, 'session')}"
        for f in stats.failed_after
    ] or ["  -"]
    # Ids and commands come from the local log, which a commit can hold too.
    return "\n".join(visible(line) for line in [*lines, *render_effect(stats.effect)])


def never_recalled(ids: tuple[str, ...], shown: int = 10) -> str:
    """``2 active lessons: a, b``, naming at most ``shown`` (``--json`` lists every one)."""
    if not ids:
        return "0 active lessons"
    names = ", ".join(ids[:shown])
    more = f", and {len(ids) - shown} more (--json lists them)" if len(ids) > shown else ""
    return f"{counted(len(ids), 'active lesson')}: {names}{more}"


def render_effect(effect: Effect, top: int = 10) -> list[str]:
    """The effect figures (docs/telemetry.md says what each means, and its limits)."""
    share = "-" if effect.changed_share is None else f"{effect.changed_share:.0%}"
    lines = [
        f"changed by a gate     {share} of retried gates ({effect.changed} changed, "
        f"{effect.unchanged} sent again unchanged, {effect.not_retried} not retried, "
        f"of {effect.gates})",
        "held after shown      (the action did not fail again in the session)",
    ]
    rated = effect.held_rates()
    lines += [
        f"  {e.lesson_id}: {e.held} of {e.shown} held ({e.held_rate:.0%})"
        for e in rated[:top]
        if e.held_rate is not None
    ] or ["  -"]
    if len(rated) > top:
        lines.append(f"  ... {len(rated) - top} more (--json lists all)")
    return lines
