"""``lessons eval``: measure recall quality on a file of cases, or on the telemetry log."""

from __future__ import annotations

from pathlib import Path

import click

from lessons_cli.adoption_report import adoption_report
from lessons_cli.log_replay import replay_log
from lessons_cli.output import counted, echo_json
from lessons_cli.transcript_actions import per_transcript
from lessons_core.eval.conflicts import read_pairs, score_pairs
from lessons_core.eval.evaluation import DEFAULT_K, EvalReport, evaluate
from lessons_core.eval.metrics import read_cases
from lessons_core.eval.replay_report import CallCost, LogReplay
from lessons_core.harvest.scoring import HarvestScore, score_labelled
from lessons_core.store.config import load_config
from lessons_core.store.layout import find_layout


def _ratio(value: float | None) -> str:
    return "-" if value is None else f"{value:.3f}"


@click.command("eval")
@click.argument(
    "cases", required=False, type=click.Path(exists=True, dir_okay=False, path_type=Path)
)
@click.option(
    "--k",
    "k",
    default=DEFAULT_K,
    show_default=True,
    type=click.IntRange(min=1),
    help="How many of the shown lessons count (recall@k, precision@k).",
)
@click.option(
    "--replay",
    is_flag=True,
    help="Replay the telemetry log's tool calls through today's lessons instead.",
)
@click.option(
    "--harvest",
    "labels",
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    metavar="LABELS.json",
    help="Score 'lessons harvest' on the labelled transcripts beside LABELS.json instead.",
)
@click.option(
    "--conflicts",
    "pairs",
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    metavar="PAIRS.json",
    help="Score validate's contradiction (L204) and near-copy (L202) checks on the "
    "labelled lesson pairs of PAIRS.json instead.",
)
@click.option(
    "--import",
    "adoption",
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    metavar="INDEX.json",
    help="Run 'lessons import' on each labelled public project INDEX.json lists and judge "
    "what it writes instead.",
)
@click.option("--json", "as_json", is_flag=True, help="Print the full report as JSON.")
@click.pass_context
def eval_command(
    ctx: click.Context,
    cases: Path | None,
    k: int,
    replay: bool,
    labels: Path | None,
    pairs: Path | None,
    adoption: Path | None,
    as_json: bool,
) -> None:
    """Score recall on CASES.jsonl: recall@k, precision@k, MRR, tokens per case.

    Each line of CASES is {"file": PATH, "cmd": COMMAND, "prompt": TEXT, "expect": [IDS]}
    (any of file, cmd, prompt; "expect": [] asks for silence). A case fails when an
    expected lesson is not among the first k shown; the report says why, from the same
    explanation as 'lessons query --explain'. Exits 1 when any case fails.

    With --replay (and no CASES), every tool call the hooks logged (telemetry on) goes
    through the hook again with today's lessons, each logged session in a throwaway one:
    the silent share and tokens per call as logged and as they would be now.

    With --harvest LABELS.json (and no CASES), 'lessons harvest' reads the transcripts the
    labels file names ({"FILE.jsonl": [{"kind": K, "subject": S}]}, [] for none) and is
    scored: recall and precision of its candidates. Exits 1 when a transcript's
    candidates differ from its labels.

    With --conflicts PAIRS.json (and no CASES), each labelled pair of lessons
    ({"pairs": [{"name", "label", "a": LESSON, "b": LESSON}]}, LESSON being {"rule",
    "files", "commands", "keywords"}; label contradiction, near-copy, agree, unrelated,
    different-object or no-overlap) goes through validate's contradiction and near-copy
    checks: precision and recall of each. Exits 1 when a check flags a pair not
    labelled for it (a false alarm).

    With --import INDEX.json (and no CASES), each project the index lists (a public
    repository's instruction, CI and task files and its file list, with labels saying
    which sentences are rules and where each applies) is rebuilt as a git repo in a
    temporary folder; 'lessons import instructions' (and 'import cursor' on its Cursor
    rules) runs there, every lesson written is judged good, poor or wrong against the
    labels, and validate runs on the result. Tuned and held-out projects are reported
    apart. Exits 1 when a goal is missed: good at least 90%, wrong at most 2%, labelled
    rules carried at least 80%, no lesson firing on over a third of the project's
    everyday commands, nothing from validate above a notice.

    \b
    Example:
      lessons eval tests/eval/cases.jsonl --k 3
      lessons eval --replay
      lessons eval --harvest tests/fixtures/harvest/labels.json
      lessons eval --conflicts tests/fixtures/conflicts/pairs.json
      lessons eval --import tests/fixtures/adoption/index.json
    """
    if adoption is not None:
        if cases is not None or replay or labels is not None or pairs is not None:
            raise click.UsageError("--import scores the importer; pass no CASES or other mode")
        adoption_report(adoption, as_json)
        return
    if pairs is not None:
        if cases is not None or replay or labels is not None:
            raise click.UsageError("--conflicts scores lesson pairs; pass no CASES or other mode")
        _conflicts(pairs, as_json)
        return
    if labels is not None:
        if cases is not None or replay:
            raise click.UsageError("--harvest scores transcripts; pass no CASES or --replay")
        _harvest(labels, as_json)
        return
    if replay:
        if cases is not None:
            raise click.UsageError("pass CASES or --replay, not both")
        if ctx.get_parameter_source("k") is not click.core.ParameterSource.DEFAULT:
            raise click.UsageError("--k scores a cases file; --replay has no expected lessons")
        layout = find_layout()
        result = replay_log(layout, load_config(layout.config_path))
        if as_json:
            echo_json(result.to_dict())
        else:
            _print_replay(result)
        return
    if cases is None:
        raise click.UsageError("pass a CASES.jsonl file, or --replay for the telemetry log")
    layout = find_layout()
    report = evaluate(layout, read_cases(cases), load_config(layout.config_path), k=k)
    if as_json:
        echo_json(report.to_dict())
    else:
        _print(report)
    if report.summary.passed < report.summary.cases:
        raise SystemExit(1)


def _harvest(labels: Path, as_json: bool) -> None:
    layout = find_layout()
    scored, _result = score_labelled(layout, labels, per_transcript(layout))
    if as_json:
        echo_json(scored.to_dict())
    else:
        _print_harvest(scored)
    if scored.passed < len(scored.transcripts):
        raise SystemExit(1)


def _conflicts(path: Path, as_json: bool) -> None:
    score = score_pairs(read_pairs(path))
    if as_json:
        echo_json(score.to_dict())
    else:
        click.echo(score.summary())
        for found in (score.contradictions, score.near_copies):
            for name in found.false_alarms:
                click.echo(f"FALSE ALARM {found.kind}: {name}")
            for name in found.missed:
                click.echo(f"missed {found.kind}: {name}")
    if score.contradictions.false_alarms or score.near_copies.false_alarms:
        raise SystemExit(1)


def _print_harvest(scored: HarvestScore) -> None:
    click.echo(
        f"{scored.passed}/{len(scored.transcripts)} transcripts passed; "
        f"recall {_ratio(scored.recall)}, precision {_ratio(scored.precision)} "
        f"({scored.matched} of {scored.expected} expected found, {scored.found} found)"
    )
    for kind, counts in scored.by_kind().items():
        if counts["expected"] or counts["found"]:
            click.echo(
                f"  {kind:<13}{counts['matched']}/{counts['expected']} expected, "
                f"{counts['found']} found"
            )
    for result in scored.transcripts:
        if result.passed:
            continue
        click.echo(f"FAIL {result.transcript}")
        for what, labels in (("missed", result.missed), ("not expected", result.extra)):
            for kind, subject in labels:
                click.echo(f"  {what}: {kind} {subject}")


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


def _print_replay(result: LogReplay) -> None:
    click.echo(
        f"{counted(result.logged.calls, 'logged tool call')} in "
        f"{counted(result.sessions, 'session')} replayed; "
        f"{result.changed} would deliver differently today"
    )
    click.echo(f"{'':<16}{'silent':>8}{'tokens/call':>13}{'per delivering call':>21}")
    for label, cost in (("as logged", result.logged), ("today's lessons", result.replayed)):
        click.echo(f"{label:<16}{_cost(cost)}")
    if result.prompts:
        recalls = counted(result.prompts, "prompt recall")
        click.echo(f"{recalls} not replayed: prompt text is never logged")
    if result.queries:
        asked = f"{result.queries} {'query' if result.queries == 1 else 'queries'}"
        click.echo(f"{asked} made through lessons mcp not replayed: no hook answered them")
    if result.unreplayable:
        click.echo(
            f"{counted(result.unreplayable, 'older record')} not replayed: the log does not "
            "say whether their key is files or a command"
        )
    if result.skipped_lines:
        click.echo(f"{counted(result.skipped_lines, 'unreadable log line')} skipped", err=True)


def _cost(cost: CallCost) -> str:
    return (
        f"{cost.silent_share:>8.0%}{cost.tokens_per_call:>13.1f}"
        f"{cost.tokens_per_delivering_call:>21.1f}"
    )
