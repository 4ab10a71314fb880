"""Judging triggers: can one ever fire, and does it fire nearly everywhere?

Capture and ``lessons validate`` ask the same questions; this module answers them once.
Capture turns a problem into a refusal (or a warning for a glob that matches nothing yet),
validate into a finding with a stable code.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from lessons_core.commands import CommandPattern, CommandPatternError, compile_command
from lessons_core.file_index import FileIndex
from lessons_core.glob_match import normalise_glob
from lessons_core.globs import CompiledGlob, GlobError, compile_glob, has_glob_chars
from lessons_core.probes import PROBE_COMMANDS
from lessons_core.thresholds import BROAD_COMMAND_SHARE, BROAD_GLOB_MIN_FILES
from lessons_core.words import is_common_phrase

# Problem kinds, also capture's refusal codes.
GLOB_EVERYTHING = "glob-everything"
GLOB_INVALID = "glob-invalid"
GLOB_DIRECTORY = "glob-directory"
GLOB_BROAD = "glob-broad"
GLOB_DEAD = "glob-dead"
COMMAND_INVALID = "command-invalid"
COMMAND_BROAD = "command-broad"
KEYWORD_COMMON = "keyword-common"

# Kinds of trigger that can never fire: recall skips invalid triggers, and the paths it is
# given are files, never a bare directory.
NEVER_FIRES = frozenset({GLOB_INVALID, GLOB_DIRECTORY, COMMAND_INVALID})

_EVERYTHING = frozenset({"**", "**/*", "*", "**/**"})


@dataclass(frozen=True)
class TriggerProblem:
    kind: str
    trigger: str
    problem: str
    fix: str


def glob_problem(
    glob: str, root: Path, files: FileIndex, broad_share: float
) -> TriggerProblem | None:
    """The first problem of a file trigger, or None; ``broad_share`` is the caller's limit."""
    text = normalise_glob(glob)
    if text in _EVERYTHING:
        return TriggerProblem(
            GLOB_EVERYTHING,
            glob,
            f"file trigger '{glob}' matches every file",
            "name the files the rule is about, e.g. 'src/**/*.py' or 'src/db/models.py'",
        )
    compiled = checked_glob(glob)
    if isinstance(compiled, TriggerProblem):
        return compiled
    if text.endswith("/") or (
        not has_glob_chars(text) and (files.is_folder(text) or (root / text).is_dir())
    ):
        folder = text.rstrip("/")
        return TriggerProblem(
            GLOB_DIRECTORY,
            glob,
            f"file trigger '{glob}' names a directory, not files",
            f"use '{folder}/**' for everything below it",
        )
    matched = files.count(compiled)
    total = len(files)
    if total >= BROAD_GLOB_MIN_FILES and matched / total > broad_share:
        return TriggerProblem(
            GLOB_BROAD,
            glob,
            f"file trigger '{glob}' matches {matched} of {total} files in the repo",
            "narrow it to the folder or file type the rule is about",
        )
    if matched == 0:
        return TriggerProblem(
            GLOB_DEAD,
            glob,
            f"file trigger '{glob}' matches no file in the repo",
            "fix the path if the file moved, or remove the trigger",
        )
    return None


def checked_glob(glob: str) -> CompiledGlob | TriggerProblem:
    """The compiled glob, or the problem that stops it compiling."""
    try:
        return compile_glob(glob)
    except GlobError as err:
        return TriggerProblem(
            GLOB_INVALID,
            glob,
            f"file trigger '{glob}' {err}",
            "use a path relative to the repo root, e.g. 'src/app.py'",
        )


def checked_command(pattern: str) -> CommandPattern | TriggerProblem:
    """The compiled command pattern, or the problem that stops it compiling."""
    try:
        return compile_command(pattern)
    except CommandPatternError as err:
        return TriggerProblem(
            COMMAND_INVALID,
            pattern,
            f"command trigger '{pattern}' {err}",
            "write the command as it is typed, e.g. 'git push' or 'rm -rf'",
        )


def command_problem(pattern: str, hits: list[str] | None = None) -> TriggerProblem | None:
    """The problem of a command trigger, or None; ``hits`` are its probe hits if known."""
    compiled = checked_command(pattern)
    if isinstance(compiled, TriggerProblem):
        return compiled
    if hits is None:
        hits = [command for command in PROBE_COMMANDS if compiled.matches(command)]
    if len(hits) > BROAD_COMMAND_SHARE * len(PROBE_COMMANDS):
        return TriggerProblem(
            COMMAND_BROAD,
            pattern,
            f"command trigger '{pattern}' matches {len(hits)} of {len(PROBE_COMMANDS)} "
            f"ordinary commands (e.g. '{hits[0]}')",
            "anchor it to the command it is about, e.g. 'git push --force'",
        )
    return None


def keyword_problem(keyword: str) -> TriggerProblem | None:
    if is_common_phrase(keyword):
        return TriggerProblem(
            KEYWORD_COMMON,
            keyword,
            f"keyword '{keyword}' is made only of common words and would fire on most prompts",
            "use a term specific to this project, e.g. a module, tool or domain word",
        )
    return None
