"""``lessons eval``: measure recall quality on a file of cases."""

from __future__ import annotations

from pathlib import Path

import click

from lessons_cli.output import echo_json
from lessons_core.eval_metrics import read_cases
from lessons_core.evaluation import DEFAULT_K, EvalReport, evaluate
from lessons_core.layout import find_layout


def _ratio(value: float | None) -> str:
    return "-" if value is None else f"{value:.3f}"


@click.command("eval")
@click.argument("cases", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option(
    "--k",
    "k",
    default=DEFAULT_K,
    show_default=True,
    type=click.IntRange(min=1),
    help="How many of the shown lessons count (recall@k, precision@k).",
)
@click.option("--json", "as_json", is_flag=True, help="Print the full report as JSON.")
def eval_command(cases: Path, k: int, as_json: bool) -> None:
    """Score recall on CASES.jsonl: recall@k, precision@k, MRR, tokens per case.

    Each line of CASES is {"file": PATH, "cmd": COMMAND, "prompt": TEXT, "expect": [IDS]}
    (any of file, cmd, prompt; "expect": [] asks for silence). A case fails when an
    expected lesson is not among the first k shown; the report says why, from the same
    explanation as 'lessons query --explain'. Exits 1 when any case fails.

    \b
    Example:
      lessons eval tests/eval/cases.jsonl --k 3
    """
    report = evaluate(find_layout(), read_cases(cases), k=k)
    if as_json:
        echo_json(report.to_dict())
    else:
        _print(report)
    if report.summary.passed < report.summary.cases:
        raise SystemExit(1)


def _print(report: EvalReport) -> None:
    summary = report.summary
    click.echo(
        f"{summary.passed}/{summary.cases} cases passed; recall@{report.k} "
        f"{_ratio(summary.recall_at_k)}, precision@{report.k} {_ratio(summary.precision_at_k)}, "
        f"MRR {_ratio(summary.mrr)}, {summary.tokens_per_case:.1f} tokens per case"
    )
    for result in report.results:
        if result.score.passed:
            continue
        shown = ", ".join(result.score.shown) or "nothing"
        click.echo(f"FAIL {result.score.case.label}")
        click.echo(f"  expected {', '.join(result.score.case.expect) or 'silence'}; shown {shown}")
        for reason in result.reasons:
            click.echo(f"  {reason}")
