"""Capture guards: each refuses a lesson that would be useless, noisy or unsafe.

Every refusal is a ``CaptureRefused`` carrying a stable code, the problem and the fix.
Warnings (a glob that matches no file yet) are returned, not raised.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from lessons_core.authoring.characters import bad_character
from lessons_core.authoring.rewording import one_rule
from lessons_core.authoring.secrets import SecretFinding, find_secrets, find_secrets_in
from lessons_core.errors import CaptureRefused
from lessons_core.matching.glob_counts import FileIndex
from lessons_core.matching.probes import PROBE_COMMANDS, probe_hits
from lessons_core.matching.thresholds import (
    MAX_RATIONALE_CHARS,
    NEAR_DUPLICATE_SIMILARITY,
    REFUSED_GLOB_SHARE,
)
from lessons_core.matching.trigger_checks import (
    COMMAND_INTERPRETER,
    GLOB_BROAD,
    GLOB_DEAD,
    TriggerProblem,
    command_problem,
    glob_problem,
    keyword_problem,
    repo_glob,
)
from lessons_core.matching.words import fold, meaningful, tokens
from lessons_core.store.model import MAX_RULE_CHARS, Lesson, Triggers

# Re-exported: callers probe commands and read the limits through this module too.
__all__ = [
    "MAX_RATIONALE_CHARS",
    "NEAR_DUPLICATE_SIMILARITY",
    "PROBE_COMMANDS",
    "CaptureDraft",
    "check_broad_reason",
    "check_characters",
    "check_secrets",
    "check_text",
    "check_triggers",
    "check_utf8",
    "draft_fields",
    "find_identical",
    "find_near_duplicate",
    "normalised_rule",
    "probe_hits",
    "repo_triggers",
    "rule_terms",
    "secret_findings",
    "secret_refusal",
    "similarity",
    "term_similarity",
]


@dataclass(frozen=True)
class CaptureDraft:
    """What ``lessons add`` was given, before it becomes a ``Lesson``."""

    rule: str
    topics: tuple[str, ...]
    triggers: Triggers
    rationale: str | None = None
    evidence: tuple[str, ...] = ()
    gate: bool = False
    always: bool = False
    lesson_id: str | None = None  # ``--id``: the id to take instead of a generated one
    # Set by a person only (``lessons add --enforce``/``--forbid``); an agent's capture
    # (the MCP tool, a nudge's command) never sets them.
    enforce: bool = False
    forbid: str | None = None
    # Set by a person only (``lessons add --broad-reason``): why the file triggers are
    # deliberately this broad.
    broad_reason: str | None = None

    @classmethod
    def from_lesson(cls, lesson: Lesson, lesson_id: str | None = None) -> CaptureDraft:
        """``lesson`` captured again (an import's check, ``lessons promote``)."""
        return cls(
            rule=lesson.rule,
            topics=lesson.topics,
            triggers=lesson.triggers,
            rationale=lesson.rationale,
            evidence=lesson.evidence,
            gate=lesson.gate,
            always=lesson.always,
            lesson_id=lesson_id,
            enforce=lesson.enforce,
            forbid=lesson.forbid,
        )


def check_utf8(draft: CaptureDraft) -> None:
    """Refuse a field that is not UTF-8 text (first of the checks: the others read it)."""
    for name, text in draft_fields(draft).items():
        if not _is_utf8(text):
            raise CaptureRefused(
                f"the {name.split(' #')[0]} is not valid UTF-8 text, so it cannot be saved",
                "retype it as plain text",
                "not-utf8",
            )


def check_text(draft: CaptureDraft) -> None:
    """Refuse an empty, overlong or multi-line rule, an overlong rationale, no topic.
    Run after ``check_utf8`` and ``check_characters``."""
    rule = draft.rule.strip()
    if not rule:
        raise CaptureRefused("the rule is empty", "write one imperative sentence", "rule-empty")
    if len(rule) > MAX_RULE_CHARS:
        raise CaptureRefused(
            f"the rule is {len(rule)} characters; the limit is {MAX_RULE_CHARS}",
            "keep the rule to one sentence and move the explanation to --rationale",
            "rule-too-long",
        )
    if "\n" in rule or "\r" in rule:
        raise CaptureRefused(
            "the rule spans several lines", "write it as one sentence", "rule-multiline"
        )
    if draft.rationale is not None and len(draft.rationale) > MAX_RATIONALE_CHARS:
        raise CaptureRefused(
            f"the rationale is over {MAX_RATIONALE_CHARS} characters",
            "shorten it, or link to the details with --evidence",
            "rationale-too-long",
        )
    if not draft.topics or not any(t.strip() for t in draft.topics):
        raise CaptureRefused(
            "no topic given", "pass --topic NAME, e.g. --topic build", "topic-missing"
        )


def _is_utf8(text: str) -> bool:
    """False for text holding a lone surrogate: what bytes that were not UTF-8 become on a
    command line."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def repo_triggers(triggers: Triggers, root: Path) -> Triggers:
    """``triggers`` without blanks and repeats, file triggers repo-relative: an absolute
    path inside the repo is made relative to its root, one outside is refused."""
    files: list[str] = []
    for glob in triggers.files:
        if not glob.strip():
            continue
        placed = repo_glob(glob, root)
        if isinstance(placed, TriggerProblem):
            raise CaptureRefused(placed.problem, placed.fix, placed.kind)
        files.append(placed)
    return Triggers(
        files=tuple(dict.fromkeys(files)),
        commands=tuple(dict.fromkeys(c for c in triggers.commands if c.strip())),
        keywords=tuple(dict.fromkeys(k.strip() for k in triggers.keywords if k.strip())),
    )


def draft_fields(draft: CaptureDraft) -> dict[str, str]:
    """Every text of a draft a person or the hook will read back, by the name an error
    gives it: rule, rationale, topics, evidence and each trigger (the hook quotes
    triggers in the label of every rule it shows)."""
    fields = {"rule": draft.rule}
    if draft.rationale:
        fields["rationale"] = draft.rationale
    if draft.broad_reason is not None:
        fields["broad reason"] = draft.broad_reason
    for what, texts in (
        ("topic", draft.topics),
        ("file trigger", draft.triggers.files),
        ("command trigger", draft.triggers.commands),
        ("keyword trigger", draft.triggers.keywords),
        ("evidence", draft.evidence),
    ):
        for number, text in enumerate(texts, 1):
            fields[f"{what} #{number}"] = text
    return fields


def check_characters(draft: CaptureDraft) -> None:
    """Refuse a control character, line separator or bidirectional control in any field
    (tab and line breaks are fine in the rationale). A rule over several lines is left
    to ``check_text``, which says so."""
    for name, text in draft_fields(draft).items():
        multiline = name == "rationale" or (name == "rule" and ("\n" in text or "\r" in text))
        bad = bad_character(text, multiline)
        if bad is None:
            continue
        breaks = " (line breaks are fine)" if name == "rationale" else ""
        raise CaptureRefused(
            f"the {name} holds {bad.kind}, {bad.escape}, at character {bad.position}",
            f"retype the {name} without it{breaks}: such characters can hide or rewrite "
            "what a terminal or an editor shows",
            "control-character",
        )


def secret_findings(drafts: Sequence[CaptureDraft]) -> list[list[SecretFinding]]:
    """What looks like a credential in any field of each draft, by field and kind."""
    return find_secrets_in([_readable(draft_fields(draft)) for draft in drafts])


def check_secrets(draft: CaptureDraft) -> None:
    (findings,) = secret_findings([draft])
    refusal = secret_refusal(findings)
    if refusal is not None:
        raise refusal


def secret_refusal(findings: Sequence[SecretFinding]) -> CaptureRefused | None:
    """The refusal ``lessons add`` gives for ``findings``; None when there are none."""
    if not findings:
        return None
    what = "; ".join(f"{f.field}: {f.kind}" for f in findings)
    return CaptureRefused(
        f"what looks like a secret would be committed ({what})",
        "remove the credential and describe it instead (e.g. 'the staging API key')",
        "secret",
    )


def _readable(fields: dict[str, str]) -> dict[str, str]:
    """Command patterns also as the text they match: ``db\\.internal`` reads
    ``db.internal``, so an escaped credential is still seen."""
    readable = dict(fields)
    for name, text in fields.items():
        if name.startswith("command trigger"):
            plain = _ESCAPED.sub(r"\1", text)
            if plain != text:
                readable[name] = f"{text}\n{plain}"
    return readable


_ESCAPED = re.compile(r"\\([^A-Za-z0-9])")


def check_broad_reason(draft: CaptureDraft) -> None:
    """Refuse a ``--broad-reason`` that is blank or says nothing a file trigger needs."""
    if draft.broad_reason is None:
        return
    if not draft.broad_reason.strip():
        raise CaptureRefused(
            "the broad reason is empty",
            "say in one sentence why the file triggers are meant to be this broad",
            "broad-reason-invalid",
        )
    if not draft.triggers.files:
        raise CaptureRefused(
            "--broad-reason accepts the breadth of file triggers, and the lesson has none",
            "add --trigger-file GLOB, or leave out --broad-reason",
            "broad-reason-without-file",
        )
    if len(draft.broad_reason) > MAX_RULE_CHARS:
        raise CaptureRefused(
            f"the broad reason is {len(draft.broad_reason)} characters; the limit is "
            f"{MAX_RULE_CHARS}",
            "say it in one sentence",
            "broad-reason-too-long",
        )


def check_reason(reason: str) -> str:
    """The reason a lesson was retired (``lessons deprecate --reason``), stripped: one line
    of plain text within the rule's limit, and no secret, since it is committed."""
    text = reason.strip()
    if not text or not _is_utf8(text) or not text.isprintable():
        raise CaptureRefused(
            "the reason is empty or holds a line break or control character",
            "say in one line why the rule no longer applies",
            "reason-invalid",
        )
    if len(text) > MAX_RULE_CHARS:
        raise CaptureRefused(
            f"the reason is {len(text)} characters; the limit is {MAX_RULE_CHARS}",
            "say it in one sentence and link the rest (a commit, a pull request)",
            "reason-too-long",
        )
    if find_secrets({"reason": text}):
        raise CaptureRefused(
            "what looks like a secret would be committed (reason)",
            "remove the credential and describe it instead (e.g. 'the staging API key')",
            "secret",
        )
    return text


def check_triggers(
    triggers: Triggers,
    root: Path,
    tracked: Sequence[str] | FileIndex,
    always: bool = False,
    project: Sequence[str] | None = None,
    broad_ok: bool = False,
) -> list[str]:
    """Refuse triggers that can never fire or fire everywhere; return warnings.

    ``tracked`` may be a prebuilt ``FileIndex`` when checking many lessons at once. An
    ``always`` lesson reaches every session without a trigger, so it may have none.
    ``project`` are the project's everyday commands (``lessons_core.project_commands``,
    read by the caller): a command trigger firing on a large share of them is refused.
    ``broad_ok``: a person recorded why the file triggers are this broad (``broad_reason``),
    so a glob over most of the repo is no refusal; one matching every file still is.
    """
    if triggers.is_empty() and not always:
        raise CaptureRefused(
            "the lesson has no trigger, so it could never be recalled",
            "add --trigger-file GLOB, --trigger-cmd PATTERN or --trigger-keyword PHRASE, "
            "or --always for a rule that applies to every task",
            "no-trigger",
        )
    files = tracked if isinstance(tracked, FileIndex) else FileIndex(tracked)
    problems = [glob_problem(g, root, files, REFUSED_GLOB_SHARE) for g in triggers.files]
    problems += [command_problem(p, project=project or ()) for p in triggers.commands]
    problems += [keyword_problem(keyword) for keyword in triggers.keywords]
    warnings: list[str] = []
    for problem in problems:
        if problem is None:
            continue
        if problem.kind == GLOB_BROAD and broad_ok:
            continue
        if problem.kind == GLOB_DEAD:
            warnings.append(
                f"file trigger '{problem.trigger}' matches no file yet "
                "(fine if you are about to create it)"
            )
        elif problem.kind == COMMAND_INTERPRETER:  # a script runner may be the whole point
            warnings.append(f"{problem.problem}; {problem.fix}")
        else:
            raise CaptureRefused(problem.problem, problem.fix, problem.kind)
    return warnings


def normalised_rule(rule: str) -> str:
    return " ".join(fold(rule).split()).rstrip(".!;: ")


def find_identical(rule: str, lessons: Iterable[Lesson]) -> Lesson | None:
    key = normalised_rule(rule)
    return next((x for x in lessons if x.is_active and normalised_rule(x.rule) == key), None)


def similarity(first: str, second: str) -> float:
    """Jaccard similarity of the meaningful words of two rules."""
    return term_similarity(rule_terms(first), rule_terms(second))


def rule_terms(rule: str) -> frozenset[str]:
    """The meaningful words of a rule, the unit ``similarity`` compares: a negation
    written short ("don't") is the common word it stands for, and a plural is its
    singular ("tokens" is "token", "URLs" is "URL"), so a rewording that only changes
    those is one rule."""
    text = _CONTRACTION.sub(lambda found: _CONTRACTED.get(fold(found.group()), " not"), rule)
    text = _ACRONYM_PLURAL.sub(r"\1", text)  # "URLs" would split into "UR", "Ls"
    return frozenset(_singular(term) for term in meaningful(tokens(text)))


_CONTRACTION = re.compile(r"\b(?:can|won)['’]t\b|n['’]t\b", re.IGNORECASE)
_ACRONYM_PLURAL = re.compile(r"\b([A-Z]{2,})s\b")
_CONTRACTED = {"can't": "cannot", "can’t": "cannot", "won't": "will not", "won’t": "will not"}


def _singular(term: str) -> str:
    """``term`` without a plural ``s`` (not ``ss``, ``us``, ``is``: class, status, analysis)."""
    if len(term) > 3 and term.endswith("s") and not term.endswith(("ss", "us", "is")):
        return term[:-1]
    return term


def term_similarity(a: frozenset[str], b: frozenset[str]) -> float:
    """Jaccard similarity of two ``rule_terms`` sets (precomputed when comparing many)."""
    if not a or not b:
        return 0.0
    return len(a & b) / len(a | b)


def find_near_duplicate(rule: str, lessons: Iterable[Lesson]) -> tuple[Lesson, float] | None:
    """The active lesson most like ``rule``, if it is a near-duplicate the way validate's
    L202 judges one (a rule saying the opposite is no duplicate: L204 names it)."""
    best: tuple[Lesson, float] | None = None
    for lesson in lessons:
        if not lesson.is_active:
            continue
        score = similarity(rule, lesson.rule)
        better = score >= NEAR_DUPLICATE_SIMILARITY and (best is None or score > best[1])
        if better and one_rule(lesson.rule, rule):
            best = (lesson, score)
    return best
