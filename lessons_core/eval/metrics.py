"""Recall quality on a list of cases: recall@k, precision@k, MRR, tokens.

A case names what the agent is about to touch (a file, a command, a prompt) and the ids
of the lessons that should be shown, best first not required. ``expect: []`` is a
silence case: nothing should be shown. Per case, with R the ranked ids shown and R_k
its first k, E the expected ids:

- recall@k = |E ∩ R_k| / |E|                       (not defined for a silence case)
- precision@k = |E ∩ R_k| / |R_k|                  (1 for a silence case that stays silent,
                                                    not defined when nothing was shown for
                                                    a case that expected something)
- reciprocal rank = 1 / rank of the first expected id in R, 0 when none is shown
- a case passes when every expected id is in R_k (a silence case: when R_k is empty).

Averages are taken over the cases where each is defined.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import orjson

from lessons_core.errors import LessonsError

CASE_KEYS = frozenset({"file", "files", "cmd", "prompt", "expect", "name"})


class InvalidCase(LessonsError):
    def __init__(self, path: Path, line: int, problem: str) -> None:
        super().__init__(f"{path}:{line}: {problem}")


@dataclass(frozen=True)
class EvalCase:
    line: int
    expect: tuple[str, ...]
    files: tuple[str, ...] = ()
    command: str | None = None
    prompt: str | None = None
    name: str | None = None

    @property
    def label(self) -> str:
        if self.name:
            return self.name
        parts = list(self.files)
        if self.command:
            parts.append(f"$ {self.command}")
        if self.prompt:
            parts.append(f'"{self.prompt}"')
        return f"line {self.line}: " + " ".join(parts)


@dataclass(frozen=True)
class CaseScore:
    case: EvalCase
    shown: tuple[str, ...]
    k: int
    tokens: int

    @property
    def top(self) -> tuple[str, ...]:
        return self.shown[: self.k]

    @property
    def missed(self) -> tuple[str, ...]:
        return tuple(i for i in self.case.expect if i not in self.top)

    @property
    def recall(self) -> float | None:
        if not self.case.expect:
            return None
        return len(set(self.case.expect) & set(self.top)) / len(set(self.case.expect))

    @property
    def precision(self) -> float | None:
        if not self.top:
            return None if self.case.expect else 1.0
        return len(set(self.case.expect) & set(self.top)) / len(self.top)

    @property
    def reciprocal_rank(self) -> float | None:
        if not self.case.expect:
            return None
        rank = next((n for n, i in enumerate(self.shown, 1) if i in self.case.expect), None)
        return 1 / rank if rank else 0.0

    @property
    def passed(self) -> bool:
        return not self.missed if self.case.expect else not self.top


@dataclass(frozen=True)
class Summary:
    cases: int
    passed: int
    recall_at_k: float | None
    precision_at_k: float | None
    mrr: float | None
    tokens_per_case: float

    def to_dict(self) -> dict[str, Any]:
        return {
            "cases": self.cases,
            "passed": self.passed,
            "recall_at_k": self.recall_at_k,
            "precision_at_k": self.precision_at_k,
            "mrr": self.mrr,
            "tokens_per_case": self.tokens_per_case,
        }


def summarise(scores: Sequence[CaseScore]) -> Summary:
    return Summary(
        cases=len(scores),
        passed=sum(score.passed for score in scores),
        recall_at_k=_mean([score.recall for score in scores]),
        precision_at_k=_mean([score.precision for score in scores]),
        mrr=_mean([score.reciprocal_rank for score in scores]),
        tokens_per_case=sum(s.tokens for s in scores) / len(scores) if scores else 0.0,
    )


def _mean(values: list[float | None]) -> float | None:
    defined = [v for v in values if v is not None]
    return sum(defined) / len(defined) if defined else None


def read_cases(path: Path) -> list[EvalCase]:
    """Parse a JSONL file of cases; a bad line raises ``InvalidCase`` naming it."""
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError) as err:
        raise LessonsError(f"{path}: cannot be read ({err})") from None
    cases = []
    for number, line in enumerate(lines, start=1):
        if line.strip() and not line.lstrip().startswith("//"):
            cases.append(_case(path, number, line))
    if not cases:
        raise InvalidCase(path, 1, "no cases; write one JSON object a line")
    return cases


def _case(path: Path, number: int, line: str) -> EvalCase:
    try:
        data = orjson.loads(line)
    except orjson.JSONDecodeError as err:
        raise InvalidCase(path, number, f"not valid JSON ({err})") from None
    if not isinstance(data, dict):
        raise InvalidCase(path, number, "must be a JSON object")
    unknown = sorted(set(data) - CASE_KEYS)
    if unknown:
        raise InvalidCase(path, number, f"unknown key(s) {', '.join(unknown)}")
    expect = data.get("expect")
    if not isinstance(expect, list) or not all(isinstance(i, str) for i in expect):
        raise InvalidCase(path, number, "'expect' must be a list of lesson ids ([] for silence)")
    files = data.get("files", [])
    if "file" in data:
        files = [data["file"], *files]
    if not isinstance(files, list) or not all(isinstance(f, str) and f for f in files):
        raise InvalidCase(path, number, "'file' must be a path ('files' a list of paths)")
    text = {key: data.get(key) for key in ("cmd", "prompt", "name")}
    for key, value in text.items():
        if value is not None and not isinstance(value, str):
            raise InvalidCase(path, number, f"'{key}' must be a string")
    if not files and not text["cmd"] and not text["prompt"]:
        raise InvalidCase(path, number, "give at least one of file, cmd, prompt")
    return EvalCase(
        line=number,
        expect=tuple(expect),
        files=tuple(files),
        command=text["cmd"],
        prompt=text["prompt"],
        name=text["name"],
    )
