"""What recall is asked (``RecallRequest``) and what it answers (``Recall`` of ``Hit``s):
the records ``lessons_core.recall.rank`` ranks into and ``lessons_core.recall.render`` shows."""

from __future__ import annotations

from lessons_core.records import NamedTuple


class RecallRequest(NamedTuple):
    files: tuple[str, ...] = ()  # repo-relative POSIX paths
    command: str | None = None
    prompt: str | None = None


class Hit(NamedTuple):
    lesson_id: str
    rule: str
    via: str  # "file" | "command" | "keyword" | "prompt"
    trigger: str  # the glob / pattern / keyword that matched ("" for prompt)
    terms: tuple[str, ...]  # shared terms for prompt matches, else ()
    gate: bool
    matched: str = ""  # the path, command part or text source ("prompt", "path", ...) hit
    broad: bool = False  # matched through a broad trigger only (lessons_core.matching.breadth)

    def to_dict(self) -> dict[str, object]:
        """The JSON form ``lessons query --json`` prints for one rule."""
        return {
            "id": self.lesson_id,
            "rule": self.rule,
            "via": self.via,
            "trigger": self.trigger,
            "terms": list(self.terms),
            "gate": self.gate,
            "matched": self.matched,
            "broad": self.broad,
        }


class Recall(NamedTuple):
    hits: tuple[Hit, ...]  # rank order, within budget, excluding `exclude`
    more: int  # how many more matched but were cut by the budget
    # Every lesson that matched, in rank order, before `exclude` and the budget: what
    # telemetry logs as a recall's candidates.
    matched: tuple[str, ...] = ()
