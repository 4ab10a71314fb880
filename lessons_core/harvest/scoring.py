"""How well harvest finds what a labelled set of transcripts holds: recall and precision.

A labels file is a JSON object: each key a transcript file beside it, each value the
candidates it should yield, ``[{"kind": "fail-fix", "subject": "make check"}, ...]``
(``[]``: a session with nothing to find). A found candidate matches a label of the same
transcript with the same kind and subject (the file or command acted on), each label at
most once. Over all transcripts, with E the labels and F the candidates found:

- recall = |matched| / |E|      (not defined without labels)
- precision = |matched| / |F|   (1 when nothing was found and nothing expected)
- a transcript passes when its candidates and its labels match exactly.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import orjson

from lessons_core.errors import LessonsError
from lessons_core.harvest.candidates import Candidate, Harvest, harvest
from lessons_core.harvest.detect import KINDS, ActionOf
from lessons_core.store.layout import Layout

Label = tuple[str, str]  # (kind, subject)


class InvalidLabels(LessonsError):
    def __init__(self, path: Path, problem: str) -> None:
        super().__init__(
            f'{path}: {problem}; expected {{"FILE.jsonl": [{{"kind": K, "subject": S}}]}}'
        )


@dataclass(frozen=True)
class TranscriptScore:
    transcript: str
    expected: tuple[Label, ...]
    found: tuple[Label, ...]

    @property
    def matched(self) -> int:
        return sum((Counter(self.expected) & Counter(self.found)).values())

    @property
    def missed(self) -> tuple[Label, ...]:
        return tuple((Counter(self.expected) - Counter(self.found)).elements())

    @property
    def extra(self) -> tuple[Label, ...]:
        return tuple((Counter(self.found) - Counter(self.expected)).elements())

    @property
    def passed(self) -> bool:
        return not self.missed and not self.extra

    def to_dict(self) -> dict[str, Any]:
        return {
            "transcript": self.transcript,
            "passed": self.passed,
            "expected": [_label(x) for x in self.expected],
            "found": [_label(x) for x in self.found],
            "missed": [_label(x) for x in self.missed],
            "extra": [_label(x) for x in self.extra],
        }


@dataclass(frozen=True)
class HarvestScore:
    transcripts: tuple[TranscriptScore, ...]

    @property
    def passed(self) -> int:
        return sum(1 for t in self.transcripts if t.passed)

    @property
    def expected(self) -> int:
        return sum(len(t.expected) for t in self.transcripts)

    @property
    def found(self) -> int:
        return sum(len(t.found) for t in self.transcripts)

    @property
    def matched(self) -> int:
        return sum(t.matched for t in self.transcripts)

    @property
    def recall(self) -> float | None:
        return self.matched / self.expected if self.expected else None

    @property
    def precision(self) -> float:
        return self.matched / self.found if self.found else 1.0

    def by_kind(self) -> dict[str, dict[str, int]]:
        """Per kind of candidate: how many were expected, found and matched."""
        counts = {kind: {"expected": 0, "found": 0, "matched": 0} for kind in KINDS}
        for t in self.transcripts:
            for kind, _subject in t.expected:
                counts[kind]["expected"] += 1
            for kind, _subject in t.found:
                counts[kind]["found"] += 1
            for kind, _subject in (Counter(t.expected) & Counter(t.found)).elements():
                counts[kind]["matched"] += 1
        return counts

    def to_dict(self) -> dict[str, Any]:
        return {
            "transcripts": len(self.transcripts),
            "passed": self.passed,
            "expected": self.expected,
            "found": self.found,
            "matched": self.matched,
            "recall": self.recall,
            "precision": self.precision,
            "by_kind": self.by_kind(),
            "results": [t.to_dict() for t in self.transcripts],
        }


def read_labels(path: Path) -> dict[str, tuple[Label, ...]]:
    try:
        data = orjson.loads(path.read_bytes())
    except OSError as err:
        raise InvalidLabels(path, f"cannot be read ({err.strerror})") from None
    except orjson.JSONDecodeError as err:
        raise InvalidLabels(path, f"is not JSON ({err})") from None
    if not isinstance(data, dict):
        raise InvalidLabels(path, "is not a JSON object")
    labels: dict[str, tuple[Label, ...]] = {}
    for name, items in data.items():
        if not isinstance(items, list) or not all(_is_label(item) for item in items):
            raise InvalidLabels(path, f"the labels of {name!r} are not a list of kind/subject")
        labels[name] = tuple((item["kind"], item["subject"]) for item in items)
    return labels


def score_labelled(
    layout: Layout, labels_path: Path, action_of: Callable[[Path], ActionOf]
) -> tuple[HarvestScore, Harvest]:
    """Harvest the transcripts ``labels_path`` names (beside it) and score the result."""
    labels = read_labels(labels_path)
    paths = [labels_path.parent / name for name in labels]
    missing = [str(path) for path in paths if not path.is_file()]
    if missing:
        raise InvalidLabels(labels_path, f"names transcripts that are not there: {missing}")
    result = harvest(layout, paths, action_of)
    return score(labels, result.candidates), result


def score(labels: dict[str, tuple[Label, ...]], found: tuple[Candidate, ...]) -> HarvestScore:
    by_file: dict[str, list[Label]] = {name: [] for name in labels}
    for candidate in found:
        by_file.setdefault(candidate.transcript, []).append((candidate.kind, candidate.subject))
    return HarvestScore(
        tuple(
            TranscriptScore(name, labels.get(name, ()), tuple(items))
            for name, items in by_file.items()
        )
    )


def _is_label(item: Any) -> bool:
    return (
        isinstance(item, dict)
        and item.get("kind") in KINDS
        and isinstance(item.get("subject"), str)
    )


def _label(label: Label) -> dict[str, str]:
    return {"kind": label[0], "subject": label[1]}
