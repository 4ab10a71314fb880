"""From what a transcript showed (``detect.Found``) to capture candidates a person can act on.

Each candidate gets the trigger a failure nudge would give the same action (the
repo-relative file, or a command pattern anchored to the program and sub-command), a
``lessons add`` line with that trigger and the session as evidence (neither when
``lessons add`` would refuse the trigger: ``feedback.proposals``), and the active lessons
that already cover it:

- by trigger: every lesson whose file or command trigger matches the action, the way
  recall matches it (all matches, no budget); a keyword or prompt match is about other
  words, not this action;
- by wording, for a correction: every lesson whose rule is a near-duplicate of the
  correction's words, through validate's similarity join (``similar_sets``).

Nothing here writes a lesson.
"""

from __future__ import annotations

import shlex
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from lessons_core.authoring.guards import rule_terms
from lessons_core.authoring.secrets import mask_secrets
from lessons_core.eval.transcripts import Transcript, stream_transcript
from lessons_core.feedback.failures import capture_line
from lessons_core.feedback.proposals import breadth_judge
from lessons_core.feedback.stop_capture import fix_rule, with_rule
from lessons_core.harvest.codex_rollouts import is_rollout, stream_rollout
from lessons_core.harvest.detect import CORRECTION, ActionOf, Detector, Found, shown_rules
from lessons_core.index.cache import load_index
from lessons_core.recall.rank import rank
from lessons_core.recall.types import RecallRequest
from lessons_core.session.action import precise
from lessons_core.store.files import load_graph
from lessons_core.store.layout import Layout
from lessons_core.validate.duplicates import similar_sets

SUBJECT_CHARS = 120
# How recall matched a lesson for it to cover a candidate's action.
_COVERING = frozenset({"file", "command"})


@dataclass(frozen=True)
class Candidate:
    kind: str
    transcript: str  # the file's name
    session: str
    time: str
    line: int
    subject: str  # the file or command acted on, masked
    evidence: str  # the quoted correction or the error class, masked
    fix: str  # for a fail-fix by a changed command: the command that worked, masked
    count: int  # failures seen, for a recurring failure; else 1
    trigger: tuple[str, str] | None  # (--trigger-file | --trigger-cmd, value)
    add_line: str | None
    covered_by: tuple[str, ...]

    @property
    def covered(self) -> bool:
        return bool(self.covered_by)

    def to_dict(self) -> dict[str, Any]:
        flag, value = self.trigger or (None, None)
        return {
            "kind": self.kind,
            "transcript": self.transcript,
            "session": self.session,
            "time": self.time,
            "line": self.line,
            "subject": self.subject,
            "evidence": self.evidence,
            "fix": self.fix or None,
            "count": self.count,
            "trigger": None if flag is None else {"option": flag, "value": value},
            "add": self.add_line,
            "covered_by": list(self.covered_by),
        }


def candidates(layout: Layout, found: Iterable[tuple[str, Found]]) -> list[Candidate]:
    """Each (transcript name, found) as a candidate, with its trigger and coverage."""
    found = list(found)
    index, _broken = load_index(layout)
    by_wording = _near_rules(layout, [item for _name, item in found])
    proposable = breadth_judge(layout)  # no line proposes a trigger lessons add refuses
    made = []
    for number, (name, item) in enumerate(found):
        request = RecallRequest(files=item.action.files, command=item.action.command)
        by_trigger = [c.hit.lesson_id for c in rank(index, request) if c.hit.via in _COVERING]
        action = precise(item.action.files, item.action.command)
        if action is not None and not proposable(action):
            action = None
        line = None
        if action is not None:
            evidence = _evidence_option(item.session)
            rule = fix_rule(_subject(item), item.fix) if item.fix else None
            line = with_rule(capture_line(layout, *action.trigger), rule)
            line = mask_secrets(f"{line} {evidence}")
        made.append(
            Candidate(
                kind=item.kind,
                transcript=name,
                session=item.session,
                time=item.time,
                line=item.line,
                subject=_subject(item),
                evidence=item.evidence,
                fix=item.fix,
                count=item.count,
                trigger=action.trigger if action is not None else None,
                add_line=line,
                covered_by=tuple(dict.fromkeys([*by_trigger, *by_wording.get(number, ())])),
            )
        )
    return made


def _near_rules(layout: Layout, found: list[Found]) -> dict[int, list[str]]:
    """For each correction (by position in ``found``): active lessons whose rule is a
    near-duplicate of its words."""
    lessons = list(load_graph(layout).active())
    corrections = [n for n, item in enumerate(found) if item.kind == CORRECTION]
    sets = [rule_terms(lesson.rule) for lesson in lessons]
    sets += [rule_terms(found[n].evidence) for n in corrections]
    near: dict[int, list[str]] = {}
    for first, second, _score in similar_sets(sets):
        if first < len(lessons) <= second:
            near.setdefault(corrections[second - len(lessons)], []).append(lessons[first].id)
    return near


def _evidence_option(session: str) -> str:
    return "--evidence " + shlex.quote(f"session:{session}")


def _subject(item: Found) -> str:
    text = item.action.command or ", ".join(item.action.files)
    line = " ".join(mask_secrets(text).split())
    return line if len(line) <= SUBJECT_CHARS else line[: SUBJECT_CHARS - 1] + "…"


@dataclass(frozen=True)
class Harvest:
    candidates: tuple[Candidate, ...]
    transcripts: tuple[str, ...]  # the names of the files read
    skipped_lines: int  # lines of them holding nothing a session step is made of

    def to_dict(self) -> dict[str, Any]:
        return {
            "transcripts": list(self.transcripts),
            "candidates": [c.to_dict() for c in self.candidates],
            "uncovered": sum(1 for c in self.candidates if not c.covered),
            "skipped_lines": self.skipped_lines,
        }


def harvest(
    layout: Layout, transcripts: Iterable[Path], action_of: Callable[[Path], ActionOf]
) -> Harvest:
    """The capture candidates in ``transcripts``; ``action_of(path)`` reads that file's calls.

    Each file is streamed once; only what the detector keeps stays in memory.
    """
    found: list[tuple[str, Found]] = []
    names: list[str] = []
    counts = Transcript()
    index, _broken = load_index(layout)
    rules = shown_rules(index.ids, index.rules)  # a refusal's rule lines, to their ids
    for path in transcripts:
        detector = Detector(action_of(path), rules)
        read = stream_rollout if is_rollout(path) else stream_transcript
        found += [(path.name, item) for item in detector.feed_all(read(path, counts))]
        names.append(path.name)
    return Harvest(tuple(candidates(layout, found)), tuple(names), counts.skipped_lines)
