"""The text and JSON of ``lessons eval --import``."""

from __future__ import annotations

from pathlib import Path

import click

from lessons_cli.output import echo_json
from lessons_core.eval.adoption import GOALS, AdoptionReport, Figures, evaluate_adoption

_HEAD = (
    f"{'project':<34}{'imported':>9}{'good':>7}{'poor':>7}{'wrong':>7}"
    f"{'rules carried':>16}{'broad':>7}  validate above notice"
)


def adoption_report(index: Path, as_json: bool) -> None:
    """Run the evaluation of ``index``, print it, and exit 1 when a goal is missed."""
    report = evaluate_adoption(index)
    if as_json:
        echo_json(report.to_dict())
    else:
        for line in report_lines(report):
            click.echo(line)
    if not report.met:
        raise SystemExit(1)


def report_lines(report: AdoptionReport) -> list[str]:
    lines = [_HEAD]
    for held_out, title in ((False, "tuned"), (True, "held out")):
        picked = [r for r in report.results if r.project.held_out == held_out]
        for result in picked:
            lines.append(_row(result.project.repo, result.figures))
        lines.append(_row(f"{title} ({len(picked)} projects)", report.total(held_out)))
    lines.append(_row("all", report.total()))
    lines.append(
        f"{'goal':<34}{'':>9}{_pct(GOALS['good'], '>='):>7}{'':>7}{_pct(GOALS['wrong'], '<='):>7}"
        f"{_pct(GOALS['carried'], '>='):>16}{GOALS['broad']:>7}  none"
    )
    lines.append("")
    lines.append("everyday commands, and the naive triggers that would fire on over a third:")
    for result in report.results:
        found = result.breadth
        broad = ", ".join(
            f"'{prefix}' {count}/{len(found.commands)}" for prefix, count in found.broad_prefixes
        )
        lines.append(
            f"  {result.project.repo}: {len(found.commands)} commands, {found.prefixes} "
            f"programs and prefixes; {broad or 'none'}"
        )
    totals = (report.total(held_out=False), report.total(held_out=True))
    missed = {goal for figures in totals for goal, ok in figures.met.items() if not ok}
    lines.append("")
    lines.append("every goal met" if report.met else f"goals missed: {', '.join(sorted(missed))}")
    return lines


def _row(name: str, figures: Figures) -> str:
    shares = figures.shares
    carried = f"{figures.carried}/{figures.rules} {_share(shares['carried'])}"
    above = ", ".join(f"{code} x{count}" for code, count in sorted(figures.above_notice.items()))
    return (
        f"{name:<34}{figures.imported:>9}{_share(shares['good']):>7}{_share(shares['poor']):>7}"
        f"{_share(shares['wrong']):>7}{carried:>16}{figures.broad:>7}  {above or 'none'}"
    )


def _share(value: float | None) -> str:
    return "-" if value is None else f"{value:.0%}"


def _pct(value: float, sign: str) -> str:
    return f"{sign}{value:.0%}"
