"""``lessons eval``: run each case through recall and explain every case that fails.

Each case is recalled exactly as ``lessons query`` would (same budget, no session), its
tokens are those of the block an agent would be shown, and a failed case is explained by
the same ``explain`` that answers ``lessons query --explain``, cut down to the lessons
that were expected and not shown in the first k (or, for a silence case, to what was
shown).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from lessons_core.eval.metrics import CaseScore, EvalCase, Summary, summarise
from lessons_core.index.cache import load_index
from lessons_core.recall.explain import (
    BROKEN,
    CUT,
    INACTIVE,
    SHOWN,
    UNMATCHED,
    Explanation,
    explain,
)
from lessons_core.recall.rank import recall
from lessons_core.recall.render import estimate_tokens, render_block
from lessons_core.recall.types import RecallRequest
from lessons_core.store.config import Config
from lessons_core.store.layout import Layout

DEFAULT_K = 3


@dataclass(frozen=True)
class CaseResult:
    score: CaseScore
    reasons: tuple[str, ...]  # why it failed ("" when it passed)

    def to_dict(self) -> dict[str, Any]:
        case = self.score.case
        return {
            "line": case.line,
            "label": case.label,
            "expect": list(case.expect),
            "shown": list(self.score.shown),
            "passed": self.score.passed,
            "recall_at_k": self.score.recall,
            "precision_at_k": self.score.precision,
            "reciprocal_rank": self.score.reciprocal_rank,
            "tokens": self.score.tokens,
            "reasons": list(self.reasons),
        }


@dataclass(frozen=True)
class EvalReport:
    k: int
    results: tuple[CaseResult, ...]
    summary: Summary

    def to_dict(self) -> dict[str, Any]:
        return {
            "k": self.k,
            **self.summary.to_dict(),
            "failed": [r.to_dict() for r in self.results if not r.score.passed],
            "results": [r.to_dict() for r in self.results],
        }


def evaluate(
    layout: Layout, cases: list[EvalCase], config: Config, k: int = DEFAULT_K
) -> EvalReport:
    index, _broken = load_index(layout)
    results = []
    for case in cases:
        request = RecallRequest(files=case.files, command=case.command, prompt=case.prompt)
        found = recall(layout, request, config=config, index=index)
        shown = tuple(hit.lesson_id for hit in found.hits)
        score = CaseScore(case, shown, k, estimate_tokens(render_block(found)))
        reasons: tuple[str, ...] = ()
        if not score.passed:
            reasons = failure_reasons(score, explain(layout, request, config=config))
        results.append(CaseResult(score, reasons))
    return EvalReport(k, tuple(results), summarise([r.score for r in results]))


def failure_reasons(score: CaseScore, explanation: Explanation) -> tuple[str, ...]:
    """One line per expected lesson missed (or per lesson shown in a silence case)."""
    verdicts = {verdict.lesson_id: verdict for verdict in explanation.verdicts}
    if not score.case.expect:
        return tuple(
            f"{hit.lesson_id} was shown ({hit.via}: {hit.trigger or ', '.join(hit.terms)})"
            for hit in explanation.recall.hits[: score.k]
        )
    reasons = []
    for lesson_id in score.missed:
        verdict = verdicts.get(lesson_id)
        if verdict is None:
            reasons.append(f"{lesson_id}: no such lesson")
        elif verdict.outcome == SHOWN:
            above = ", ".join(score.shown[: score.k])
            reasons.append(
                f"{lesson_id}: shown at rank {score.shown.index(lesson_id) + 1}, below the "
                f"first {score.k} ({above})"
            )
        elif verdict.outcome == CUT:
            reasons.append(f"{lesson_id}: matched at rank {verdict.position} but cut by budget")
        elif verdict.outcome == UNMATCHED:
            checks = "; ".join(f"{c.kind} '{c.trigger}': {c.detail}" for c in verdict.checks)
            reasons.append(f"{lesson_id}: not matched ({checks or 'no trigger'})")
        elif verdict.outcome in (INACTIVE, BROKEN):
            reasons.append(f"{lesson_id}: {verdict.outcome} ({verdict.note})")
        else:
            reasons.append(f"{lesson_id}: {verdict.outcome}")
    return tuple(reasons)
