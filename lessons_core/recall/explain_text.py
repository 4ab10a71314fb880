"""The plain-text form of an ``Explanation``, as ``lessons query --explain`` prints it."""

from __future__ import annotations

from lessons_core.recall.explain import (
    BROKEN,
    CUT,
    HELD,
    INACTIVE,
    SPENT,
    UNMATCHED,
    Explanation,
    Verdict,
    iso_date,
)
from lessons_core.recall.printable import visible
from lessons_core.recall.render import neutralise

_TIER_NAMES = ("file", "command", "keyword", "prompt")


def render_text(explanation: Explanation) -> str:
    request, config = explanation.request, explanation.config
    lines = [
        "request",
        f"  files:   {', '.join(request.files) or '-'}",
        f"  command: {neutralise(request.command) if request.command else '-'}",
        f"  prompt:  {neutralise(request.prompt) if request.prompt else '-'}",
        f"  prompt terms (common words dropped): {', '.join(explanation.prompt_terms) or '-'}",
        f"budget: {config.max_trigger_matches} trigger + {config.max_prompt_matches} prompt "
        f"matches, {config.max_tokens} tokens"
        + (f", limit {explanation.limit}" if explanation.limit is not None else "")
        + f"; broad: {config.max_broad_matches} a call, when nothing as specific matches "
        "(same tier or stronger)",
        "rank key: tier (file, command, keyword, prompt), then specificity (higher first), "
        "relevance (BM25, then shared terms), shared by (fewer first), created (newer "
        "first), id",
        "",
    ]
    matched = [v for v in explanation.verdicts if v.candidate is not None]
    lines.append(f"matched ({len(matched)}), in rank order:" if matched else "matched: none")
    for verdict in matched:
        lines.extend(_matched_lines(verdict))
    unmatched = [v for v in explanation.verdicts if v.outcome == UNMATCHED]
    if unmatched:
        lines.append(f"not matched ({len(unmatched)}):")
        for verdict in unmatched:
            lines.append(f"  {verdict.lesson_id}")
            lines.extend(_check_lines(verdict))
    for outcome, title in ((INACTIVE, "not active"), (BROKEN, "broken files, skipped")):
        others = [v for v in explanation.verdicts if v.outcome == outcome]
        if others:
            lines.append(f"{title} ({len(others)}):")
            lines.extend(f"  {v.lesson_id}: {v.note}" for v in others)
    counts = [f"shown {len(explanation.recall.hits)}"]
    for outcome in (CUT, HELD, SPENT):
        count = sum(1 for v in explanation.verdicts if v.outcome == outcome)
        if count or outcome == CUT:
            counts.append(f"{outcome} {count}")
    lines.append(", ".join(counts))
    # Ids, notes and file names come from the store; none of them may act on a terminal.
    return "\n".join(visible(line) for line in lines)


def _matched_lines(verdict: Verdict) -> list[str]:
    candidate = verdict.candidate
    if candidate is None:
        return []
    hit = candidate.hit
    tier, _spec, _score, _terms, _order, share, created, _id = candidate.key
    what = ", ".join(hit.terms) if hit.via == "prompt" else hit.trigger
    spec = ",".join(str(value) for value in candidate.specificity) or "-"
    return [
        f"  {verdict.position}. {verdict.lesson_id} [{verdict.outcome}]",
        f"       via {hit.via}: {neutralise(what)} ({hit.matched})"
        + (", a broad trigger" if hit.broad else ""),
        f"       key: tier {tier} {_TIER_NAMES[tier]} | specificity ({spec}) | relevance "
        f"{candidate.relevance:.3f}, {len(candidate.shared)} terms | shared by {share} | "
        f"created {iso_date(-created)}",
        *_check_lines(verdict),
    ]


def _check_lines(verdict: Verdict) -> list[str]:
    lines = []
    for check in verdict.checks:
        mark = "+" if check.matched else "-"
        label = f"{check.kind} {neutralise(check.trigger)}" if check.trigger else check.kind
        shown = check.matched and check.specificity
        spec = f" [specificity {','.join(map(str, check.specificity))}]" if shown else ""
        lines.append(f"       {mark} {label}: {check.detail}{spec}")
    return lines
