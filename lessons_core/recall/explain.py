"""``lessons query --explain``: every lesson considered, whether and why it matched, and
the rank key that placed it — the answer to "why wasn't my rule shown?".

The verdicts come from the same ``rank`` and ``select`` that recall uses; only the per
trigger lines are worked out again here, trigger by trigger without the index's
prefilters, so they say what each trigger does with this request.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from lessons_core.index.build import bm25_terms, build_index
from lessons_core.index.entries import RecallIndex
from lessons_core.matching.bm25 import scores
from lessons_core.matching.commands import compile_command
from lessons_core.matching.globs import compile_glob
from lessons_core.matching.specificity import (
    command_specificity,
    glob_specificity,
    keyword_specificity,
)
from lessons_core.matching.words import contains_phrase, tokens
from lessons_core.recall.prompt_terms import prompt_terms as terms_of_prompt
from lessons_core.recall.rank import (
    MIN_SHARED_TERMS,
    Candidate,
    keyword_sources,
    rank,
    request_files,
    request_named,
    select,
)
from lessons_core.recall.types import NO_LIMITS, Allowance, Recall, RecallRequest
from lessons_core.store.config import Config
from lessons_core.store.files import load_graph
from lessons_core.store.layout import Layout
from lessons_core.store.model import Lesson

SHOWN, CUT, HELD, SPENT, EXCLUDED, UNMATCHED, INACTIVE, BROKEN = (
    "shown",
    "cut by budget",
    "held back: broad trigger",
    "held back: session budget spent",
    "shown earlier in this session",
    "not matched",
    "not active",
    "broken file",
)


@dataclass(frozen=True)
class Check:
    """What one trigger (or the prompt) did with the request."""

    kind: str  # "file" | "command" | "keyword" | "prompt"
    trigger: str
    matched: bool
    detail: str
    specificity: tuple[int, ...] = ()


@dataclass(frozen=True)
class Verdict:
    lesson_id: str
    outcome: str
    position: int | None = None  # 1-based place among all matching lessons
    candidate: Candidate | None = None
    checks: tuple[Check, ...] = ()
    note: str = ""


@dataclass(frozen=True)
class Explanation:
    request: RecallRequest
    prompt_terms: tuple[str, ...]
    config: Config
    limit: int | None
    recall: Recall
    verdicts: tuple[Verdict, ...]

    def to_dict(self) -> dict[str, Any]:
        return {
            "request": {
                "files": list(self.request.files),
                "command": self.request.command,
                "prompt": self.request.prompt,
            },
            "prompt_terms": list(self.prompt_terms),
            "lessons": [_verdict_dict(v) for v in self.verdicts],
            "shown": [hit.lesson_id for hit in self.recall.hits],
            "more": self.recall.more,
        }


def explain(
    layout: Layout,
    request: RecallRequest,
    *,
    config: Config,
    allowance: Allowance = NO_LIMITS,
) -> Explanation:
    """Recall ``request`` and account for every lesson in the graph (within ``allowance``,
    as a session has it, see ``recall.select``)."""
    graph = load_graph(layout)
    index = build_index(graph.lessons.values())
    ranked = rank(index, request)
    selection = select(ranked, config, allowance)
    outcome = {id(c): SHOWN for c in selection.shown}
    outcome.update({id(c): CUT for c in selection.cut})
    outcome.update({id(c): HELD for c in selection.held})
    outcome.update({id(c): SPENT for c in selection.spent})
    outcome.update({id(c): EXCLUDED for c in selection.excluded})
    context = _Context.of(request, index)
    verdicts = [
        Verdict(
            c.hit.lesson_id,
            outcome[id(c)],
            position,
            c,
            context.checks(graph.lessons[c.hit.lesson_id]),
        )
        for position, c in enumerate(ranked, 1)
    ]
    matched = {c.hit.lesson_id for c in ranked}
    for lesson_id, lesson in sorted(graph.lessons.items()):
        if lesson_id in matched:
            continue
        if lesson.is_active:
            verdicts.append(Verdict(lesson_id, UNMATCHED, checks=context.checks(lesson)))
        else:
            verdicts.append(Verdict(lesson_id, INACTIVE, note=lesson.status.value))
    verdicts.extend(Verdict(err.path.stem, BROKEN, note=str(err)) for err in graph.broken)
    found = Recall(
        hits=tuple(c.hit for c in selection.shown), more=selection.more, lines=selection.lines
    )
    return Explanation(
        request, tuple(context.prompt_terms), config, allowance.limit, found, tuple(verdicts)
    )


@dataclass(frozen=True)
class _Context:
    """The request, digested once, for checking every lesson's triggers against it."""

    request: RecallRequest
    files: tuple[str, ...]
    sources: list[tuple[str, list[str]]]
    prompt_terms: list[str]
    relevance: dict[int, float]
    numbers: dict[str, int]
    skipped: dict[tuple[str, str], str]

    @classmethod
    def of(cls, request: RecallRequest, index: RecallIndex) -> _Context:
        files = request_files(request)
        prompt_terms = terms_of_prompt(request.prompt, request.project)
        # Files the prompt names are checked like the request's files (rank matches
        # both), but only the request's own paths are searched for keywords.
        return cls(
            request=request,
            files=files + request_named(request, files),
            sources=keyword_sources(request, files),
            prompt_terms=prompt_terms,
            relevance=scores(index.bm25, prompt_terms),
            numbers={lesson_id: n for n, lesson_id in enumerate(index.ids)},
            skipped={(owner, trigger): why for owner, trigger, why in index.skipped},
        )

    def checks(self, lesson: Lesson) -> tuple[Check, ...]:
        triggers = lesson.triggers
        found = [self.file_check(lesson.id, glob) for glob in triggers.files]
        found.extend(self.command_check(lesson.id, pattern) for pattern in triggers.commands)
        found.extend(self.keyword_check(lesson.id, keyword) for keyword in triggers.keywords)
        if self.request.prompt:
            found.append(self.prompt_check(lesson))
        return tuple(found)

    def file_check(self, lesson_id: str, glob: str) -> Check:
        if (lesson_id, glob) in self.skipped:
            return Check("file", glob, False, f"left out: {self.skipped[lesson_id, glob]}")
        compiled = compile_glob(glob)
        spec = glob_specificity(compiled.glob)
        if not self.files:
            return Check("file", compiled.glob, False, "no file in the request", spec)
        hits = [path for path in self.files if compiled.matches(path)]
        if hits:
            return Check("file", compiled.glob, True, "matches " + ", ".join(hits), spec)
        # The commonest surprise: `*.md` is top-level only, `**/*.md` is anywhere.
        anchored = "" if "/" in compiled.glob else " (anchored at the repo root)"
        return Check("file", compiled.glob, False, "no match" + anchored, spec)

    def command_check(self, lesson_id: str, pattern: str) -> Check:
        if (lesson_id, pattern) in self.skipped:
            why = self.skipped[lesson_id, pattern]
            return Check("command", pattern, False, f"left out: {why}")
        spec = command_specificity(pattern)
        command = self.request.command
        if not command:
            return Check("command", pattern, False, "no command in the request", spec)
        if compile_command(pattern).matches(command):
            return Check("command", pattern, True, "matches the command", spec)
        return Check("command", pattern, False, "no match in any part of the command", spec)

    def keyword_check(self, lesson_id: str, keyword: str) -> Check:
        if (lesson_id, keyword) in self.skipped:
            return Check("keyword", keyword, False, f"left out: {self.skipped[lesson_id, keyword]}")
        phrase = tokens(keyword)
        spec = keyword_specificity(keyword)
        found = [source for source, words in self.sources if contains_phrase(words, phrase)]
        if found:
            return Check("keyword", keyword, True, "whole words in " + ", ".join(found), spec)
        where = ", ".join(source for source, _ in self.sources) or "an empty request"
        return Check("keyword", keyword, False, f"not found as whole words in {where}", spec)

    def prompt_check(self, lesson: Lesson) -> Check:
        wording = set(bm25_terms(lesson))
        shared = [term for term in dict.fromkeys(self.prompt_terms) if term in wording]
        score = self.relevance.get(self.numbers.get(lesson.id, -1), 0.0)
        if len(shared) >= MIN_SHARED_TERMS:
            return Check("prompt", "", True, f"BM25 {score:.3f}; shares {', '.join(shared)}")
        if shared:
            detail = f"shares only {', '.join(shared)}; needs {MIN_SHARED_TERMS} meaningful terms"
        else:
            detail = "shares no meaningful term with the prompt"
        return Check("prompt", "", False, detail)


def _verdict_dict(verdict: Verdict) -> dict[str, Any]:
    data: dict[str, Any] = {"id": verdict.lesson_id, "outcome": verdict.outcome}
    if verdict.position is not None:
        data["position"] = verdict.position
    candidate = verdict.candidate
    if candidate is not None:
        hit = candidate.hit
        data.update(
            via=hit.via,
            trigger=hit.trigger,
            terms=list(hit.terms),
            matched=hit.matched,
            broad=hit.broad,
            rank_key=_key_dict(candidate),
        )
    if verdict.checks:
        data["checks"] = [
            {
                "kind": check.kind,
                "trigger": check.trigger,
                "matched": check.matched,
                "detail": check.detail,
                "specificity": list(check.specificity),
            }
            for check in verdict.checks
        ]
    if verdict.note:
        data["note"] = verdict.note
    return data


def _key_dict(candidate: Candidate) -> dict[str, Any]:
    tier, _spec, _score, _terms, _order, share, created, lesson_id = candidate.key
    return {
        "tier": tier,
        "specificity": list(candidate.specificity),
        "relevance": round(candidate.relevance, 6),
        "shared_terms": list(candidate.shared),
        "shared_by": share,
        "created": iso_date(-created),
        "id": lesson_id,
    }


def iso_date(number: int) -> str:
    text = f"{number:08d}"
    return f"{text[:4]}-{text[4:6]}-{text[6:]}"
