"""Judging one imported lesson against a project's labels.

A lesson is matched to the labels of the instruction file it came from (its
``import:<path>`` evidence) whose quote its rule holds (with the rationale import split
off it), compared as plain words (``adoption_labels.words``), or rewords as import's
near-duplicate merge judges one (``rewords``). Then:

- **good**: it carries a labelled rule, every file and command trigger lies where that
  rule's mistake is made (a glob matching only files the rule names, a pattern firing on
  a command it names), none is broad and none fires on a command the rule tells the agent
  to use;
- **wrong**: it carries a sentence labelled as no rule (a description, a set-up step, a
  link list, a table row), turns a prohibition into an instruction, or fires on the very
  command its rule asks for;
- **poor**: anything else: a labelled rule with a missing, misplaced or broad trigger, a
  rule that names no place, or a sentence the labels do not know.

Keywords are prompt words, not places: they neither make nor spoil a verdict.

A lesson whose rule holds two labelled rules of its file ("NEVER update all dependencies
in the lockfile and ALWAYS use `cargo update --precise` ...") carries each that its
triggers serve. One rule written in several instruction files (the same bullet in two folders'
``AGENTS.md``) is one lesson, imported from each and scoped to each folder: it is judged
against those labels together, where each file's label allows its own folder, and a good
verdict carries all of them.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

from lessons_core.authoring.guards import similarity
from lessons_core.authoring.rewording import one_rule
from lessons_core.eval.adoption_breadth import fired, is_broad
from lessons_core.eval.adoption_labels import NOT_RULE, RULE, Label, words
from lessons_core.matching.commands import CommandPatternError, compile_command
from lessons_core.matching.glob_counts import FileIndex
from lessons_core.matching.globs import GlobError, compile_glob
from lessons_core.matching.thresholds import NEAR_DUPLICATE_SIMILARITY
from lessons_core.project_commands import ProjectCommand
from lessons_core.store.model import Lesson

GOOD = "good"
POOR = "poor"
WRONG = "wrong"
_RANK = {GOOD: 0, POOR: 1, WRONG: 2}
# A quote shorter than this many words would be found in too many sentences.
SHORT_QUOTE = 3
_NEGATION = frozenset({"not", "never", "avoid", "no", "cannot", "forbidden"})


@dataclass(frozen=True)
class Judged:
    lesson: Lesson
    verdict: str
    reason: str
    label: Label | None
    broad: tuple[str, ...]  # command triggers firing on over a third of the project's commands
    carries: tuple[Label, ...] = ()  # every labelled rule a good verdict carries

    @property
    def carried(self) -> tuple[Label, ...]:
        """The labelled rules this lesson carries: none unless it is good."""
        if self.verdict != GOOD or self.label is None:
            return ()
        return self.carries or (self.label,)

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.lesson.id,
            "rule": self.lesson.rule,
            "triggers": self.lesson.triggers.to_dict(),
            "always": self.lesson.always,
            "sources": list(sources(self.lesson)),
            "verdict": self.verdict,
            "reason": self.reason,
            "label": self.label.to_dict() if self.label else None,
            "broad": list(self.broad),
        }


def holds(text: str, quote: str) -> bool:
    """Whether the words ``text`` carry the quote's words: as a run of whole words, or,
    for a quote of one or two words (a heading), as the whole text."""
    if len(quote.split()) < SHORT_QUOTE:
        return text == quote
    return f" {quote} " in f" {text} "


def rewords(rule: str, quote: str) -> bool:
    """Whether ``rule`` says what ``quote`` says in other words, as import judges a rule
    it merges into its near-duplicate (validate's L202): "Import `x` for rendering" for
    "Import `x` for rendering utilities" in another rule file."""
    if len(quote.split()) < SHORT_QUOTE:
        return False
    return similarity(rule, quote) >= NEAR_DUPLICATE_SIMILARITY and one_rule(rule, quote)


def _together(rules: Sequence[Label]) -> Label:
    """The labels of one rule written in several files, as one: the places of each."""
    first = rules[0]
    return replace(
        first,
        files=tuple(dict.fromkeys(g for label in rules for g in label.files)),
        commands=tuple(dict.fromkeys(c for label in rules for c in label.commands)),
        not_on=tuple(dict.fromkeys(c for label in rules for c in label.not_on)),
        negated=any(label.negated for label in rules),
    )


def _context(label: Label) -> bool:
    """Whether ``label`` is a heading or a lead-in: the words a rule below it stands in."""
    return label.kind == NOT_RULE and (label.why or "").startswith(("a heading", "a lead-in"))


def sources(lesson: Lesson) -> tuple[str, ...]:
    return tuple(e.removeprefix("import:") for e in lesson.evidence if e.startswith("import:"))


class Judge:
    """Judges the lessons imported into one project."""

    def __init__(
        self, labels: Sequence[Label], files: FileIndex, commands: Sequence[ProjectCommand]
    ) -> None:
        self.labels = labels
        self.files = files
        self.commands = commands

    def judge(self, lesson: Lesson) -> Judged:
        broad = tuple(p for p in lesson.triggers.commands if self._broad(p))
        # a rule whose reason import split off ("Do NOT use `go install` directly — they
        # create stale binaries") is the sentence of its rule and its rationale together
        text = words(" ".join(filter(None, (lesson.rule, lesson.rationale))))
        origin = set(sources(lesson))
        matched = [
            lb
            for lb in self.labels
            if lb.file in origin and (holds(text, lb.words) or rewords(lesson.rule, lb.quote))
        ]
        if not matched:
            return Judged(lesson, POOR, "a sentence the labels do not know", None, broad)
        # a bullet says the heading or lead-in it completes ("Do not edit `*.pb.go`"
        # under "Do Not Edit"), as import is asked to: that context is no description,
        # and the bullet's own words are what the rest of the lesson holds
        for context in [label for label in matched if _context(label)]:
            rest = f" {text} ".replace(f" {context.words} ", " ", 1).strip()
            matched += [
                lb
                for lb in self.labels
                if lb.file in origin
                and lb.kind == RULE
                and lb not in matched
                and holds(rest, lb.words)
            ]
        if any(label.kind == RULE for label in matched):
            matched = [label for label in matched if not _context(label)]
        verdicts = [self._verdict(lesson, label, broad) for label in matched]
        rules = [label for label in matched if label.kind == RULE]
        if len({label.file for label in rules}) > 1:
            verdicts.append(self._verdict(lesson, _together(rules), broad))
        verdict, reason, label = min(verdicts, key=lambda v: _RANK[v[0]])
        if all(label is not m for m in matched):
            carries = tuple(rules)  # good only against the labels together
        else:  # each labelled rule its text holds and its triggers serve
            carries = tuple(lb for v, _, lb in verdicts if v == GOOD and lb.kind == RULE)
        return Judged(lesson, verdict, reason, label, broad, carries)

    def _verdict(
        self, lesson: Lesson, label: Label, broad: tuple[str, ...]
    ) -> tuple[str, str, Label]:
        if label.kind == NOT_RULE:
            return WRONG, f"not a rule: {label.why or 'a description'}", label
        if label.kind != RULE:
            return POOR, "a rule that names no place", label
        if label.negated and not _NEGATION.intersection(words(lesson.rule).split()):
            return WRONG, "a prohibition imported as an instruction", label
        on_use = [p for p in lesson.triggers.commands if self._fires(p, label.not_on)]
        if on_use:
            return WRONG, f"fires on the command the rule asks for ({on_use[0]})", label
        triggers = lesson.triggers
        if not (triggers.files or triggers.commands):
            return POOR, "no file or command trigger where the mistake is made", label
        off = [g for g in triggers.files if not self._within(g, label.files)]
        off += [p for p in triggers.commands if not self._fires(p, label.commands)]
        if off:
            return POOR, f"trigger not where the mistake is made: {', '.join(off)}", label
        if broad:
            return POOR, f"broad command trigger: {', '.join(broad)}", label
        return GOOD, "", label

    def _within(self, glob: str, scope: Sequence[str]) -> bool:
        """Whether ``glob`` matches some files, all of them among those ``scope`` names."""
        found = self._matching(glob)
        allowed: set[str] = set()
        for wanted in scope:
            allowed.update(self._matching(wanted))
        return bool(found) and set(found) <= allowed

    def _matching(self, glob: str) -> tuple[str, ...]:
        try:
            return self.files.matching(compile_glob(glob))
        except GlobError:
            return ()

    def _fires(self, pattern: str, commands: Sequence[str]) -> bool:
        try:
            compiled = compile_command(pattern)
        except CommandPatternError:
            return False
        return any(compiled.matches(command) for command in commands)

    def _broad(self, pattern: str) -> bool:
        try:
            return is_broad(compile_command(pattern), self.commands)
        except CommandPatternError:
            return False

    def fired_on(self, pattern: str) -> int:
        """How many of the project's commands ``pattern`` fires on."""
        try:
            return len(fired(compile_command(pattern), self.commands))
        except CommandPatternError:
            return 0
