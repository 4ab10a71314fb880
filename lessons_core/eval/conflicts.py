"""How well ``lessons validate`` finds contradictions (L204) and near-copies (L202), on a
labelled file of lesson pairs.

The file is ``{"pairs": [{"name", "label", "a", "b"}]}``; ``a`` and ``b`` are lessons
as ``{"rule", "files", "commands", "keywords"}``, and ``label`` is one of ``LABELS``:
``contradiction`` (opposite rules that fire together: L204 should name them),
``near-copy`` (one rule reworded: L202), and pairs that neither should name: ``agree``,
``unrelated``, ``different-object`` (the same topic, another object: "never push to
main" / "always push tags") and ``no-overlap`` (opposite rules whose triggers never
fire on the same call). Each pair is judged alone, by the same code validate runs
(``contradictions.contradictions``, ``duplicates.near_copies``), so a figure here is
the check's own. Precision = flagged and labelled / flagged; recall = flagged and
labelled / labelled.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import orjson

from lessons_core.errors import LessonsError
from lessons_core.store.model import Lesson, Triggers
from lessons_core.validate.contradictions import contradictions
from lessons_core.validate.duplicates import near_copies

CONTRADICTION = "contradiction"
NEAR_COPY = "near-copy"
LABELS = frozenset(
    {CONTRADICTION, NEAR_COPY, "agree", "unrelated", "different-object", "no-overlap"}
)
_LESSON_KEYS = frozenset({"rule", "files", "commands", "keywords"})


class InvalidPairs(LessonsError):
    def __init__(self, path: Path, problem: str) -> None:
        super().__init__(f"{path}: {problem}")


@dataclass(frozen=True)
class Pair:
    name: str
    label: str
    first: Lesson
    second: Lesson


@dataclass(frozen=True)
class Detection:
    """One check's result over the pairs: which it flagged, against the labels."""

    kind: str
    labelled: tuple[str, ...]  # names of the pairs labelled ``kind``
    flagged: tuple[str, ...]  # names of the pairs the check flagged

    @property
    def hits(self) -> int:
        return len(set(self.labelled) & set(self.flagged))

    @property
    def precision(self) -> float | None:
        return self.hits / len(self.flagged) if self.flagged else None

    @property
    def recall(self) -> float | None:
        return self.hits / len(self.labelled) if self.labelled else None

    @property
    def false_alarms(self) -> tuple[str, ...]:
        return tuple(name for name in self.flagged if name not in self.labelled)

    @property
    def missed(self) -> tuple[str, ...]:
        return tuple(name for name in self.labelled if name not in self.flagged)

    def to_dict(self) -> dict[str, Any]:
        return {
            "labelled": len(self.labelled),
            "flagged": len(self.flagged),
            "found": self.hits,
            "precision": self.precision,
            "recall": self.recall,
            "false_alarms": list(self.false_alarms),
            "missed": list(self.missed),
        }


@dataclass(frozen=True)
class ConflictScore:
    pairs: int
    contradictions: Detection
    near_copies: Detection

    def summary(self) -> str:
        """The one line ``lessons eval --conflicts`` and ``python -m bench`` print."""
        return (
            f"contradictions: precision {_ratio(self.contradictions.precision)}, recall "
            f"{_ratio(self.contradictions.recall)} ({_counts(self.contradictions)}); "
            f"near-copies: precision {_ratio(self.near_copies.precision)}, recall "
            f"{_ratio(self.near_copies.recall)} ({_counts(self.near_copies)}); "
            f"{self.pairs} labelled pairs"
        )

    def to_dict(self) -> dict[str, Any]:
        return {
            "pairs": self.pairs,
            "contradictions": self.contradictions.to_dict(),
            "near_copies": self.near_copies.to_dict(),
        }


def _ratio(value: float | None) -> str:
    return "-" if value is None else f"{value:.3f}"


def _counts(found: Detection) -> str:
    return f"{found.hits} of {len(found.labelled)} found, {len(found.flagged)} flagged"


def score_pairs(pairs: list[Pair]) -> ConflictScore:
    opposed, copies = [], []
    for pair in pairs:
        lessons = [pair.first, pair.second]
        if contradictions(lessons):
            opposed.append(pair.name)
        if near_copies(lessons):
            copies.append(pair.name)
    return ConflictScore(
        len(pairs),
        Detection(CONTRADICTION, _named(pairs, CONTRADICTION), tuple(opposed)),
        Detection(NEAR_COPY, _named(pairs, NEAR_COPY), tuple(copies)),
    )


def _named(pairs: list[Pair], label: str) -> tuple[str, ...]:
    return tuple(pair.name for pair in pairs if pair.label == label)


def read_pairs(path: Path) -> list[Pair]:
    """The labelled pairs of ``path``; ``InvalidPairs`` names the pair and the fault."""
    try:
        data = orjson.loads(path.read_bytes())
    except (OSError, orjson.JSONDecodeError) as err:
        raise InvalidPairs(path, f"cannot be read as JSON ({err})") from None
    items = data.get("pairs") if isinstance(data, dict) else None
    if not isinstance(items, list):
        raise InvalidPairs(path, 'expected {"pairs": [...]}')
    pairs: list[Pair] = []
    names: set[str] = set()
    for number, item in enumerate(items, 1):
        where = f"pair {number}"
        if not isinstance(item, dict) or not isinstance(item.get("name"), str):
            raise InvalidPairs(path, f'{where}: expected an object with a "name"')
        name = item["name"]
        if name in names:
            raise InvalidPairs(path, f"{where}: the name '{name}' is used twice")
        names.add(name)
        if item.get("label") not in LABELS:
            known = ", ".join(sorted(LABELS))
            raise InvalidPairs(path, f"{where} ('{name}'): label must be one of {known}")
        first = _lesson(path, f"{where} ('{name}') a", item.get("a"), "a")
        second = _lesson(path, f"{where} ('{name}') b", item.get("b"), "b")
        pairs.append(Pair(name, item["label"], first, second))
    return pairs


def _lesson(path: Path, where: str, item: object, lesson_id: str) -> Lesson:
    if not isinstance(item, dict) or not isinstance(item.get("rule"), str):
        raise InvalidPairs(path, f'{where}: expected an object with a "rule"')
    unknown = set(item) - _LESSON_KEYS
    if unknown:
        raise InvalidPairs(path, f"{where}: unknown key(s) {', '.join(sorted(unknown))}")
    lists = {}
    for key in ("files", "commands", "keywords"):
        value = item.get(key, [])
        if not isinstance(value, list) or not all(isinstance(x, str) for x in value):
            raise InvalidPairs(path, f"{where}: {key} must be a list of strings")
        lists[key] = tuple(value)
    return Lesson(
        id=lesson_id,
        rule=item["rule"],
        topics=("eval",),
        triggers=Triggers(**lists),
        created="2026-01-01" if lesson_id == "a" else "2026-01-02",
    )
