"""Eval metrics on a hand-checked example, and the cases file format."""

from __future__ import annotations

from pathlib import Path

import pytest

from lessons_core.eval.metrics import CaseScore, EvalCase, InvalidCase, read_cases, summarise

# Four cases, k = 3, checked by hand:
#   A expects {a, b}; shown [x, a, y, b]: top-3 [x, a, y] holds a only.
#     recall 1/2, precision 1/3, first expected at rank 2 -> RR 1/2, fails (b missed).
#   B expects {c}; shown [c]: recall 1, precision 1, RR 1, passes.
#   C expects {d}; shown []: recall 0, precision undefined, RR 0, fails.
#   D expects nothing; shown []: recall undefined, precision 1, RR undefined, passes.
# recall@3 = (1/2 + 1 + 0) / 3 = 1/2; precision@3 = (1/3 + 1 + 1) / 3 = 7/9;
# MRR = (1/2 + 1 + 0) / 3 = 1/2; tokens = (30 + 10 + 0 + 0) / 4 = 10.
CASES = [
    CaseScore(EvalCase(1, ("a", "b"), files=("src/a.py",)), ("x", "a", "y", "b"), 3, 30),
    CaseScore(EvalCase(2, ("c",), command="git push"), ("c",), 3, 10),
    CaseScore(EvalCase(3, ("d",), prompt="deploy the docs"), (), 3, 0),
    CaseScore(EvalCase(4, (), files=("README.md",)), (), 3, 0),
]


def test_recall_at_k() -> None:
    """recall@k is the share of expected ids among the first k shown."""
    assert [c.recall for c in CASES] == [0.5, 1.0, 0.0, None]
    assert summarise(CASES).recall_at_k == pytest.approx(0.5)


def test_precision_at_k() -> None:
    """precision@k is the share of the first k shown that were expected."""
    assert [c.precision for c in CASES] == [pytest.approx(1 / 3), 1.0, None, 1.0]
    assert summarise(CASES).precision_at_k == pytest.approx(7 / 9)


def test_mean_reciprocal_rank() -> None:
    """MRR averages 1/rank of the first expected id shown (0 when none is)."""
    assert [c.reciprocal_rank for c in CASES] == [0.5, 1.0, 0.0, None]
    assert summarise(CASES).mrr == pytest.approx(0.5)


def test_tokens_and_passes() -> None:
    """Tokens average over every case; a case passes when nothing expected is missed."""
    summary = summarise(CASES)
    assert summary.tokens_per_case == 10
    assert [c.passed for c in CASES] == [False, True, False, True]
    assert (summary.cases, summary.passed) == (4, 2)
    assert CASES[0].missed == ("b",)


def test_silence_case_fails_when_something_is_shown() -> None:
    """``expect: []`` fails as soon as any lesson is shown."""
    noisy = CaseScore(EvalCase(1, (), command="ls"), ("z",), 3, 12)
    assert (noisy.passed, noisy.precision, noisy.recall) == (False, 0.0, None)


def test_read_cases(tmp_path: Path) -> None:
    """Cases read from JSONL; blank lines and // comments are skipped."""
    path = tmp_path / "cases.jsonl"
    path.write_text(
        '// edits\n{"file": "src/a.py", "expect": ["a"]}\n\n'
        '{"cmd": "git push", "prompt": "ship it", "expect": [], "name": "quiet push"}\n'
    )
    first, second = read_cases(path)
    assert (first.line, first.files, first.expect) == (2, ("src/a.py",), ("a",))
    assert (second.command, second.prompt, second.label) == ("git push", "ship it", "quiet push")
    assert first.label == "line 2: src/a.py"


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ("not json", "cases.jsonl:1: not valid JSON"),
        ('{"file": "a"}', "'expect' must be a list"),
        ('{"expect": []}', "give at least one of file, cmd, prompt"),
        ('{"file": "a", "expect": [], "extra": 1}', "unknown key(s) extra"),
        ('{"cmd": 3, "expect": []}', "'cmd' must be a string"),
    ],
)
def test_bad_case_names_the_line(tmp_path: Path, line: str, message: str) -> None:
    """A malformed case is a user error naming the file, line and problem."""
    path = tmp_path / "cases.jsonl"
    path.write_text(line + "\n")
    with pytest.raises(InvalidCase, match=message.replace("(", r"\(").replace(")", r"\)")):
        read_cases(path)
