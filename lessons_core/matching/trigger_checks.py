"""Judging triggers: can one ever fire, and does it fire nearly everywhere?

One judgement serves every place a trigger enters or is read: ``lessons add``, every
importer, the recall index (so every hook and query), ``lessons validate``, ``review`` and
``report``. ``judge_glob``, ``judge_command`` and ``judge_keyword`` answer "can this ever
fire?" with the compiled trigger or a ``TriggerProblem`` saying why not and what to write
instead; they never raise, whatever the text (a hand edit, a bad merge, an import).
Capture turns a problem into a refusal, an importer into a trigger not carried, validate
into a finding with a stable code, the index into a trigger left out: the lesson's other
triggers, and every other lesson, are still served.

The other questions need the repo: is a glob a folder, does it match nearly every file or
none (``glob_problem``), does a pattern fire on ordinary commands or name only an
interpreter (``command_problem``), is a keyword made of common words
(``keyword_problem``). ``repo_glob`` turns a file trigger given as an absolute path into
the repo-relative form capture stores.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from lessons_core.errors import quoted
from lessons_core.matching.command_words import names_only_an_interpreter
from lessons_core.matching.commands import CommandPattern, CommandPatternError, compile_command
from lessons_core.matching.glob_match import normalise_glob
from lessons_core.matching.globs import CompiledGlob, GlobError, compile_glob, has_glob_chars
from lessons_core.matching.runners import runner_problem
from lessons_core.matching.thresholds import (
    BROAD_COMMAND_SHARE,
    BROAD_GLOB_MIN_FILES,
    BROAD_PROJECT_SHARE,
    MAX_TRIGGER_CHARS,
    PROJECT_COMMANDS_MIN,
)
from lessons_core.matching.words import is_common_phrase, tokens

if TYPE_CHECKING:
    from collections.abc import Sequence

    from lessons_core.matching.glob_counts import FileIndex

# Problem kinds, also capture's refusal codes.
GLOB_EVERYTHING = "glob-everything"
GLOB_INVALID = "glob-invalid"
GLOB_OUTSIDE = "glob-outside"
GLOB_ABSOLUTE = "glob-absolute"
GLOB_DIRECTORY = "glob-directory"
GLOB_BROAD = "glob-broad"
GLOB_DEAD = "glob-dead"
COMMAND_INVALID = "command-invalid"
COMMAND_BROAD = "command-broad"
COMMAND_INTERPRETER = "command-interpreter"
KEYWORD_INVALID = "keyword-invalid"
KEYWORD_COMMON = "keyword-common"

# Kinds of trigger that can never fire: recall leaves them out, and the paths it is given
# are files, never a bare directory.
NEVER_FIRES = frozenset(
    {GLOB_INVALID, GLOB_OUTSIDE, GLOB_ABSOLUTE, GLOB_DIRECTORY, COMMAND_INVALID, KEYWORD_INVALID}
)

_EVERYTHING = frozenset({"**", "**/*", "*", "**/**"})
_LABELS = {"glob": "file trigger", "command": "command trigger", "keyword": "keyword"}
_INVALID = {"glob": GLOB_INVALID, "command": COMMAND_INVALID, "keyword": KEYWORD_INVALID}
_RETYPE = "retype it as plain text"


@dataclass(frozen=True)
class TriggerProblem:
    """Why ``trigger`` (as written) cannot stay as it is, and what to write instead."""

    kind: str
    trigger: str
    reason: str  # completes "file trigger 'x' ..."
    fix: str

    @property
    def problem(self) -> str:
        """The whole sentence: ``file trigger '[z-a]' is not a valid glob (...)``."""
        return f"{_LABELS[self.kind.split('-')[0]]} {quoted(self.trigger)} {self.reason}"


def judge_glob(glob: str, root: Path | None = None) -> CompiledGlob | TriggerProblem:
    """The compiled file trigger, or why it can never fire.

    With ``root``, a glob written as an absolute path is judged against the repo as well:
    stored that way it never matches (recall reads every glob from the repo root).
    """
    problem = _text_problem("glob", glob)
    if problem is not None:
        return problem
    if root is not None:
        placed = repo_glob(glob, root)
        if isinstance(placed, TriggerProblem):
            return placed
        if placed != normalise_glob(glob):
            return TriggerProblem(
                GLOB_ABSOLUTE,
                glob,
                "is an absolute path; globs are read from the repo root, so it never matches",
                f"write it from the repo root: '{placed}'",
            )
    try:
        return compile_glob(glob)
    except GlobError as err:
        return TriggerProblem(GLOB_INVALID, glob, str(err), err.fix)
    except Exception as err:  # a parser's unforeseen complaint is a refusal too
        return TriggerProblem(GLOB_INVALID, glob, _unreadable(err), _RETYPE)


def judge_command(pattern: str) -> CommandPattern | TriggerProblem:
    """The compiled command pattern, or why it can never fire (or fires on everything)."""
    problem = _text_problem("command", pattern)
    if problem is not None:
        return problem
    try:
        return compile_command(pattern)
    except CommandPatternError as err:
        fix = "write the command as it is typed, e.g. 'git push' or 'rm -rf'"
        return TriggerProblem(COMMAND_INVALID, pattern, str(err), fix)
    except Exception as err:  # RE2's unforeseen complaint is a refusal too
        return TriggerProblem(COMMAND_INVALID, pattern, _unreadable(err), _RETYPE)


def judge_keyword(keyword: str) -> tuple[str, ...] | TriggerProblem:
    """The keyword's words (what recall matches), or why it can never fire."""
    problem = _text_problem("keyword", keyword)
    if problem is not None:
        return problem
    if any(char < " " or "\x7f" <= char <= "\x9f" for char in keyword):
        return TriggerProblem(
            KEYWORD_INVALID,
            keyword,
            "contains a control character",
            f"{_RETYPE}, e.g. 'alembic' or 'read only'",
        )
    words = tuple(tokens(keyword))
    if not words:
        return TriggerProblem(
            KEYWORD_INVALID,
            keyword,
            "has no letters or digits, so no text can contain it as a word",
            "use a word or phrase, e.g. 'alembic' or 'read only'",
        )
    return words


def _text_problem(kind: str, text: str) -> TriggerProblem | None:
    """What makes ``text`` no trigger of any kind: not UTF-8, or far too long."""
    invalid = _INVALID[kind]
    if not text.isascii():
        try:
            text.encode("utf-8")
        except UnicodeEncodeError:  # a lone surrogate: from bytes that were not UTF-8
            return TriggerProblem(
                invalid, text, "is not valid UTF-8 text, so it cannot be saved", _RETYPE
            )
    if len(text) > MAX_TRIGGER_CHARS:
        return TriggerProblem(
            invalid,
            text,
            f"is {len(text):,} characters long; a trigger is at most {MAX_TRIGGER_CHARS:,}",
            "name the files, command or words the rule is about, e.g. 'src/db/**', "
            "'git push' or 'alembic'",
        )
    return None


def _unreadable(err: Exception) -> str:
    return f"cannot be read ({type(err).__name__}: {err})"


def repo_glob(glob: str, root: Path) -> str | TriggerProblem:
    """A file trigger as capture stores it: repo-relative, POSIX, no ``./``.

    An absolute path inside the repo becomes relative to its root; one outside is refused
    (it could never fire), unless its first folder is one of the repo's, when the leading
    slash only anchors the glob at the root as in gitignore (``/src/**``).
    """
    text = glob.strip().replace("\\", "/")
    if not _is_absolute(text):
        return normalise_glob(text)
    inside = _inside(text, os.fspath(root))
    if inside is not None:
        return normalise_glob(inside)
    first = text.lstrip("/").split("/", 1)[0]
    if not first or has_glob_chars(first) or _exists(os.path.join(root, first)):
        return normalise_glob(text)  # "/" alone: the judgement says it names the root
    return TriggerProblem(
        GLOB_OUTSIDE,
        glob,
        f"is a path outside the repo ({root}), so it never matches",
        "name files inside the repo, from its root, e.g. 'src/app.py'",
    )


def _is_absolute(text: str) -> bool:
    """``/x`` or a Windows drive path (``C:/x``, backslashes already turned into slashes)."""
    return text.startswith("/") or (text[1:3] == ":/" and text[:1].isalpha())


def _inside(text: str, root: str) -> str | None:
    """``text`` relative to ``root`` when the absolute path lies in it ("" for the root
    itself), else None. Compared as written and with links resolved (``/tmp`` may be a
    link, so may be the checkout)."""
    path = os.path.normpath(text)
    candidates = [path]
    try:
        candidates.append(os.path.realpath(path))
        bases = dict.fromkeys((os.path.normpath(root), os.path.realpath(root)))
    except (OSError, ValueError):
        bases = dict.fromkeys((os.path.normpath(root),))
    for candidate in candidates:
        for base in bases:
            if candidate == base:
                return ""
            prefix = base.rstrip("/") + "/"
            if candidate.startswith(prefix):
                return candidate[len(prefix) :]
    return None


def _exists(path: str) -> bool:
    try:
        return os.path.lexists(path)
    except (OSError, ValueError):
        return False


def _is_dir(path: Path) -> bool:
    """Whether ``path`` is a folder; a name the file system cannot even look up is not."""
    try:
        return path.is_dir()
    except (OSError, ValueError):  # a name too long, a NUL byte
        return False


def glob_problem(
    glob: str, root: Path, files: FileIndex, broad_share: float
) -> TriggerProblem | None:
    """The first problem of a file trigger, or None; ``broad_share`` is the caller's limit."""
    text = normalise_glob(glob)
    if text in _EVERYTHING:
        return TriggerProblem(
            GLOB_EVERYTHING,
            glob,
            "matches every file",
            "name the files the rule is about, e.g. 'src/**/*.py' or 'src/db/models.py'",
        )
    compiled = judge_glob(glob, root)
    if isinstance(compiled, TriggerProblem):
        return compiled
    if text.endswith("/") or (
        not has_glob_chars(text) and (files.is_folder(text) or _is_dir(root / text))
    ):
        folder = text.rstrip("/")
        return TriggerProblem(
            GLOB_DIRECTORY,
            glob,
            "names a directory, not files",
            f"use '{folder}/**' for everything below it",
        )
    matched = files.count(compiled)
    total = len(files)
    if total >= BROAD_GLOB_MIN_FILES and matched / total > broad_share:
        return TriggerProblem(
            GLOB_BROAD,
            glob,
            f"matches {matched} of {total} files in the repo",
            "narrow it to the folder or file type the rule is about; if it is meant to be this "
            "broad, record why: re-add the exact rule with --broad-reason 'WHY' (or set "
            '"broad_reason" in the lesson file)',
        )
    if matched == 0:
        return TriggerProblem(
            GLOB_DEAD,
            glob,
            "matches no file in the repo",
            "fix the path if the file moved, or remove the trigger",
        )
    return None


def command_problem(
    pattern: str,
    hits: list[str] | None = None,
    project: Sequence[str] = (),
    project_hits: list[str] | None = None,
) -> TriggerProblem | None:
    """The problem of a command trigger, or None; ``hits`` are its probe hits if known.

    ``project`` are the project's everyday commands (``lessons_core.project_commands``),
    ``project_hits`` those the pattern fires on if known: a pattern firing on more than
    ``BROAD_PROJECT_SHARE`` of them is broad, and a refusal names the ones it fires on.
    """
    from lessons_core.matching.probes import PROBE_COMMANDS  # noqa: PLC0415 (heavy: RE2)

    compiled = judge_command(pattern)
    if isinstance(compiled, TriggerProblem):
        return compiled
    if hits is None:
        hits = [command for command in PROBE_COMMANDS if compiled.matches(command)]
    if project and project_hits is None:
        project_hits = [command for command in project if compiled.matches(command)]
    if len(hits) > BROAD_COMMAND_SHARE * len(PROBE_COMMANDS):
        return TriggerProblem(
            COMMAND_BROAD,
            pattern,
            f"matches {len(hits)} of {len(PROBE_COMMANDS)} ordinary commands (e.g. '{hits[0]}')",
            "anchor it to the command it is about, e.g. 'git push --force'",
        )
    from lessons_core.matching.probes import swept_program  # noqa: PLC0415 (heavy: RE2)

    swept = swept_program(hits)
    if swept is not None:
        program, hit, family = swept
        shown = ", ".join(f"'{command}'" for command in hit[:3]) + (", ..." if len(hit) > 3 else "")
        return TriggerProblem(
            COMMAND_BROAD,
            pattern,
            f"matches {len(hit)} of the {family} everyday '{program}' commands ({shown}), "
            f"so it fires on nearly every use of {program}",
            f"name the sub-command it is about, e.g. '{program} {hit[-1].split()[1]}', or use "
            f"--always if the rule truly applies to every use of {program}",
        )

    runner = runner_problem(pattern)
    if runner is not None:
        return TriggerProblem(
            COMMAND_BROAD,
            pattern,
            f"{runner} ({_fires_on(project_hits or [], len(project), hits)})",
            "name the command it is about, with its sub-command, script or option (e.g. "
            "'^uv run alembic upgrade', '^gh pr create'), or use --always if the rule truly "
            "applies to every such command",
        )
    own = _project_breadth(pattern, project_hits or [], len(project))
    if own is not None:
        return own

    if names_only_an_interpreter(pattern):
        return TriggerProblem(
            COMMAND_INTERPRETER,
            pattern,
            "names only an interpreter, so it fires on every script it runs",
            "name the script too, e.g. '^bash scripts/release\\.sh' or "
            "'^python3 manage\\.py migrate'",
        )
    return None


def _project_breadth(pattern: str, hits: list[str], total: int) -> TriggerProblem | None:
    """The refusal of a pattern firing on a large share of the project's ``total``
    everyday commands (``hits`` are those it fires on), or None."""
    if total < PROJECT_COMMANDS_MIN or len(hits) <= BROAD_PROJECT_SHARE * total:
        return None
    return TriggerProblem(
        COMMAND_BROAD,
        pattern,
        f"fires on {_fires_on(hits, total, [])}, so it speaks on the project's routine, not "
        "on one command",
        "name the command it is about, with its sub-command, script or option (e.g. "
        "'^uv run pytest tests/db', '^make deploy')",
    )


def _fires_on(project_hits: list[str], total: int, probe_hits: list[str]) -> str:
    """Which commands a pattern fires on, for a refusal: the project's, else the probes'."""
    shown_from = project_hits or probe_hits
    shown = ", ".join(quoted(command) for command in shown_from[:3])
    more = ", ..." if len(shown_from) > 3 else ""
    if project_hits:
        return f"{len(project_hits)} of the project's {total} everyday commands: {shown}{more}"
    return f"e.g. {shown}{more}" if probe_hits else "whatever follows it"


def keyword_problem(keyword: str) -> TriggerProblem | None:
    judged = judge_keyword(keyword)
    if isinstance(judged, TriggerProblem):
        return judged
    if is_common_phrase(keyword):
        return TriggerProblem(
            KEYWORD_COMMON,
            keyword,
            "is made only of common words and would fire on most prompts",
            "use a term specific to this project, e.g. a module, tool or domain word",
        )
    return None
