"""Path-scoped rule files of other agents (Cursor, Copilot, Kiro, Claude Code) as lessons.

Each format keeps Markdown files whose frontmatter names the files a rule applies to:

- Cursor ``.cursor/rules/**/*.mdc``: ``globs`` (comma-separated or a list),
  ``alwaysApply``, ``description``;
- GitHub Copilot ``.github/instructions/**/*.instructions.md``: ``applyTo``
  (comma-separated), ``description``;
- Kiro ``.kiro/steering/**/*.md``: ``inclusion: fileMatch`` with ``fileMatchPattern``
  (one glob or a list); ``always`` (the default), ``manual`` and ``auto`` otherwise;
- Claude Code ``.claude/rules/**/*.md``: ``paths`` (a list or comma-separated).

A bullet becomes a lesson with the file's globs as triggers and the file (named after
its path) as topic; the description becomes the topic's summary. A rule that the other
tool loads on every request or on demand has no file scope: ``rule_import`` gives it the
triggers its words name, or makes it always-on when the tool applied it always
(``Scope.always``), or reports it as not carried.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from lessons_core.errors import LessonsError
from lessons_core.importers.frontmatter import FrontmatterError, Value, split_document
from lessons_core.importers.globs import split_list
from lessons_core.importers.plan import Note, NoteKind


@dataclass(frozen=True)
class Scope:
    """What a rule file's frontmatter says about where its rules apply."""

    globs: tuple[str, ...] = ()
    summary: str | None = None
    unscoped: str | None = None  # why there is no file scope, when there is none
    ignored: tuple[str, ...] = ()  # frontmatter keys with no equivalent
    always: bool = False  # the tool put the rules in every request


@dataclass(frozen=True)
class RuleFormat:
    name: str
    default_dir: str
    suffix: str
    scope: Callable[[dict[str, Value]], Scope]


def _patterns(value: Value | None) -> tuple[str, ...]:
    if isinstance(value, list):
        return tuple(glob for item in value for glob in split_list(item))
    if isinstance(value, str):
        return tuple(split_list(value))
    return ()


def _text(value: Value | None) -> str | None:
    return value.strip() or None if isinstance(value, str) else None


def _cursor(fields: dict[str, Value]) -> Scope:
    globs = _patterns(fields.get("globs"))
    if fields.get("alwaysApply") is True:
        return Scope(globs, _text(fields.get("description")), "alwaysApply: true", always=True)
    if globs:
        why = None
    elif _text(fields.get("description")):
        why = "the agent chose the rules by their description"
    else:
        why = "the rules were attached by hand (@-mention)"
    return Scope(globs, _text(fields.get("description")), why)


def _copilot(fields: dict[str, Value]) -> Scope:
    globs = _patterns(fields.get("applyTo"))
    ignored = ("excludeAgent",) if "excludeAgent" in fields else ()
    why = None if globs else "no applyTo: the instructions were attached by hand"
    return Scope(globs, _text(fields.get("description")), why, ignored)


def _kiro(fields: dict[str, Value]) -> Scope:
    inclusion = fields.get("inclusion", "always")
    summary = _text(fields.get("description"))
    if inclusion == "fileMatch":
        globs = _patterns(fields.get("fileMatchPattern"))
        return Scope(globs, summary, None if globs else "fileMatch without a fileMatchPattern")
    reasons = {
        "always": "inclusion: always, the steering was in every request",
        "manual": "inclusion: manual, the steering was attached by hand (#name)",
        "auto": "inclusion: auto, the agent chose the steering by its description",
    }
    why = reasons.get(str(inclusion), f"inclusion: {inclusion}")
    return Scope((), summary, why, always=inclusion == "always")


def _claude(fields: dict[str, Value]) -> Scope:
    globs = _patterns(fields.get("paths"))
    if globs:
        return Scope(globs)
    return Scope((), None, "no paths: the rules were loaded at startup", always=True)


FORMATS: dict[str, RuleFormat] = {
    "cursor": RuleFormat("cursor", ".cursor/rules", ".mdc", _cursor),
    "copilot": RuleFormat("copilot", ".github/instructions", ".instructions.md", _copilot),
    "kiro": RuleFormat("kiro", ".kiro/steering", ".md", _kiro),
    "claude-rules": RuleFormat("claude-rules", ".claude/rules", ".md", _claude),
}


@dataclass(frozen=True)
class RuleFile:
    path: Path
    topic_name: str  # path below the scanned folder, suffix removed: "frontend/react"
    scope: Scope
    body: str


def find_rule_files(fmt: RuleFormat, source: Path) -> list[Path]:
    """The format's files under ``source`` (a folder, searched recursively, or one file)."""
    if source.is_file():
        return [source]
    if not source.is_dir():
        raise LessonsError(
            f"{source} does not exist; pass the folder or file holding the {fmt.name} rules "
            f"(by default {fmt.default_dir}/ at the repo root)"
        )
    return sorted(
        path
        for path in source.rglob(f"*{fmt.suffix}")
        if path.is_file()
        and not any(part.startswith(".") for part in path.relative_to(source).parts)
    )


def read_rule_file(
    fmt: RuleFormat, path: Path, source: Path, subject: str, notes: list[Note]
) -> RuleFile | None:
    """Parse one file; an unreadable one is noted as not carried and skipped (None)."""
    try:
        document = split_document(path.read_text(encoding="utf-8"))
    except (FrontmatterError, UnicodeDecodeError, OSError) as err:
        notes.append(Note(NoteKind.NOT_CARRIED, "file-unreadable", subject, f"skipped: {err}"))
        return None
    base = source if source.is_dir() else path.parent
    name = path.relative_to(base).as_posix()
    return RuleFile(path, name[: -len(fmt.suffix)], fmt.scope(document.fields), document.body)
