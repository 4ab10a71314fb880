"""Capture guards: each refuses a lesson that would be useless, noisy or unsafe.

Every refusal is a ``CaptureRefused`` carrying a stable code, the problem and the fix.
Warnings (a glob that matches no file yet) are returned, not raised.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path

from lessons_core.commands import CommandPatternError, compile_command
from lessons_core.errors import CaptureRefused
from lessons_core.globs import GlobError, compile_glob, has_glob_chars, normalise_glob
from lessons_core.model import MAX_RULE_CHARS, Lesson, Triggers
from lessons_core.words import fold, is_common_phrase, meaningful, tokens

MAX_RATIONALE_CHARS = 2000
BROAD_GLOB_SHARE = 0.9
BROAD_GLOB_MIN_FILES = 10
BROAD_COMMAND_SHARE = 0.5
NEAR_DUPLICATE_SIMILARITY = 0.75

# Ordinary commands an agent runs all day. A command trigger that fires on most of them
# would gate every call, so capture refuses it and validate reports it.
PROBE_COMMANDS: tuple[str, ...] = (
    "ls",
    "ls -la",
    "cd src",
    "pwd",
    "cat README.md",
    "echo hello",
    "mkdir -p build",
    "cp a.txt b.txt",
    "mv old.txt new.txt",
    "rm notes.txt",
    "touch file.txt",
    "git status",
    "git diff",
    "git log --oneline",
    "git add -A",
    "git commit -m 'wip'",
    "git push origin main",
    "git pull",
    "git checkout -b feature",
    "git rebase main",
    "npm install",
    "npm test",
    "npm run build",
    "pnpm install",
    "pnpm test",
    "yarn build",
    "npx tsc --noEmit",
    "node index.js",
    "python3 script.py",
    "python -m pytest",
    "pytest -q",
    "pip install -r requirements.txt",
    "uv sync",
    "ruff check .",
    "mypy .",
    "make",
    "make test",
    "cargo build",
    "cargo test",
    "go test ./...",
    "go build ./...",
    "docker build -t app .",
    "docker compose up",
    "curl -s http://localhost:8080/health",
    "grep -rn TODO src",
    "rg foo",
    "find . -name '*.py'",
    "sed -n '1,20p' main.py",
    "head -n 50 log.txt",
    "tail -f app.log",
    "wc -l file.txt",
    "chmod +x run.sh",
    "bash scripts/setup.sh",
    "./gradlew build",
    "mvn package",
    "jq . data.json",
    "tar -xzf archive.tar.gz",
    "ssh host uptime",
    "kubectl get pods",
    "terraform plan",
)


@dataclass(frozen=True)
class CaptureDraft:
    """What ``lessons add`` was given, before it becomes a ``Lesson``."""

    rule: str
    topics: tuple[str, ...]
    triggers: Triggers
    rationale: str | None = None
    evidence: tuple[str, ...] = ()
    gate: bool = False


def check_text(draft: CaptureDraft) -> None:
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


def check_secrets(draft: CaptureDraft) -> None:
    from lessons_core.secrets import find_secrets

    fields = {"rule": draft.rule}
    if draft.rationale:
        fields["rationale"] = draft.rationale
    for number, ref in enumerate(draft.evidence, 1):
        fields[f"evidence #{number}"] = ref
    findings = find_secrets(fields)
    if findings:
        what = "; ".join(f"{f.field}: {f.kind}" for f in findings)
        raise CaptureRefused(
            f"what looks like a secret would be committed ({what})",
            "remove the credential and describe it instead (e.g. 'the staging API key')",
            "secret",
        )


def check_triggers(triggers: Triggers, root: Path, tracked: list[str]) -> list[str]:
    """Refuse triggers that can never fire or fire everywhere; return warnings."""
    if triggers.is_empty():
        raise CaptureRefused(
            "the lesson has no trigger, so it could never be recalled",
            "add --trigger-file GLOB, --trigger-cmd PATTERN or --trigger-keyword PHRASE",
            "no-trigger",
        )
    warnings: list[str] = []
    for glob in triggers.files:
        warnings.extend(_check_glob(glob, root, tracked))
    for pattern in triggers.commands:
        _check_command(pattern)
    for keyword in triggers.keywords:
        _check_keyword(keyword)
    return warnings


def _check_glob(glob: str, root: Path, tracked: list[str]) -> list[str]:
    text = normalise_glob(glob)
    if text in {"**", "**/*", "*", "**/**"}:
        raise CaptureRefused(
            f"file trigger '{glob}' matches every file",
            "name the files the rule is about, e.g. 'src/**/*.py' or 'src/db/models.py'",
            "glob-everything",
        )
    try:
        compiled = compile_glob(glob)
    except GlobError as err:
        raise CaptureRefused(
            f"file trigger '{glob}' {err}",
            "use a path relative to the repo root, e.g. 'src/app.py'",
            "glob-invalid",
        ) from None
    if text.endswith("/") or (not has_glob_chars(text) and (root / text).is_dir()):
        folder = text.rstrip("/")
        raise CaptureRefused(
            f"file trigger '{glob}' names a directory, not files",
            f"use '{folder}/**' for everything below it",
            "glob-directory",
        )
    matched = sum(1 for path in tracked if compiled.matches(path))
    if len(tracked) >= BROAD_GLOB_MIN_FILES and matched / len(tracked) > BROAD_GLOB_SHARE:
        raise CaptureRefused(
            f"file trigger '{glob}' matches {matched} of {len(tracked)} files in the repo",
            "narrow it to the folder or file type the rule is about",
            "glob-broad",
        )
    if matched == 0:
        return [f"file trigger '{glob}' matches no file yet (fine if you are about to create it)"]
    return []


def _check_command(pattern: str) -> None:
    try:
        compiled = compile_command(pattern)
    except CommandPatternError as err:
        raise CaptureRefused(
            f"command trigger '{pattern}' {err}",
            "write the command as it is typed, e.g. 'git push' or 'rm -rf'",
            "command-invalid",
        ) from None
    hits = probe_hits(compiled.matches)
    if len(hits) > BROAD_COMMAND_SHARE * len(PROBE_COMMANDS):
        raise CaptureRefused(
            f"command trigger '{pattern}' matches {len(hits)} of {len(PROBE_COMMANDS)} "
            f"ordinary commands (e.g. '{hits[0]}')",
            "anchor it to the command it is about, e.g. 'git push --force'",
            "command-broad",
        )


def probe_hits(matches: Callable[[str], bool]) -> list[str]:
    """The probe commands a matcher fires on."""
    return [command for command in PROBE_COMMANDS if matches(command)]


def _check_keyword(keyword: str) -> None:
    if is_common_phrase(keyword):
        raise CaptureRefused(
            f"keyword '{keyword}' is made only of common words and would fire on most prompts",
            "use a term specific to this project, e.g. a module, tool or domain word",
            "keyword-common",
        )


def normalised_rule(rule: str) -> str:
    return " ".join(fold(rule).split()).rstrip(".!;: ")


def find_identical(rule: str, lessons: Iterable[Lesson]) -> Lesson | None:
    key = normalised_rule(rule)
    return next((x for x in lessons if x.is_active and normalised_rule(x.rule) == key), None)


def similarity(first: str, second: str) -> float:
    """Jaccard similarity of the meaningful words of two rules."""
    return term_similarity(rule_terms(first), rule_terms(second))


def rule_terms(rule: str) -> frozenset[str]:
    """The meaningful words of a rule, the unit ``similarity`` compares."""
    return frozenset(meaningful(tokens(rule)))


def term_similarity(a: frozenset[str], b: frozenset[str]) -> float:
    """Jaccard similarity of two ``rule_terms`` sets (precomputed when comparing many)."""
    if not a or not b:
        return 0.0
    return len(a & b) / len(a | b)


def find_near_duplicate(rule: str, lessons: Iterable[Lesson]) -> tuple[Lesson, float] | None:
    best: tuple[Lesson, float] | None = None
    for lesson in lessons:
        if not lesson.is_active:
            continue
        score = similarity(rule, lesson.rule)
        if score >= NEAR_DUPLICATE_SIMILARITY and (best is None or score > best[1]):
            best = (lesson, score)
    return best
