"""What failed, and how: a short error class from a tool's error text, so two failures of
the same action (``session.action``) with the same kind of error compare equal; and the
``lessons add`` line a failure nudge and the stop-time request offer to capture it.

The class keeps the exit code and the *name* of the first error line's error, taken from a
fixed vocabulary, never the output itself: ``exit 1: ModuleNotFoundError``, ``exit 127:
command not found``, ``exit 1: ERR_PNPM_NO_SCRIPT``, ``edit: old_string not found``. A line
in none of its words is ``exit 1: error`` if it says it is an error, else ``exit 1``. So
``No module named 'a'`` and ``No module named 'b'`` are one class, and no word of the run
(a customer's address, a host, a project's module) reaches a session file, the telemetry
log or a lesson's evidence.

The line's trigger is the action's (``ActionId.trigger``): the repo-relative file, or a
pattern anchored to the start of the command that failed, its program and sub-commands
(``^pnpm test:e2e``), never a glob or pattern that would fire everywhere.

Only failure and stop hooks import this module (it needs ``re``); the pre-tool hook
compares the actions it stored (``session.failure_history``) without it.
"""

from __future__ import annotations

import re
import shlex
from typing import TYPE_CHECKING

from lessons_core.feedback.fixes import WRONG_CALL_PHRASES
from lessons_core.store.layout import lessons_command

if TYPE_CHECKING:
    from lessons_core.store.layout import Layout

# A tool's error text can be megabytes of output: only its start is read.
MAX_ERROR_CHARS = 16 * 1024
MAX_LINES = 200
EDIT = "edit"
ERROR = "error"

# "Exit code 1" (Claude Code), "Exit Code: 1" (Qwen Code, Gemini CLI), "exit code 1",
# "exited with code 1", "<exited with exit code 1>" (Copilot CLI).
_EXIT = re.compile(r"\bexit(?:ed with)?(?: exit)? code:? ?(-?\d{1,5})\b", re.I)
# Lines a client adds around a shell result, which say nothing about the error.
_FRAME = re.compile(
    r"^(?:exit code|command|directory|signal|process group pgid|background pids|"
    r"traceback \(most recent call last\)|file \"|at |</?untrusted_context>)",
    re.I,
)
_NOTHING = frozenset({"(empty)", "(none)"})
# Labels a client puts before the output it quotes (Qwen Code's "Output: ...").
_LABEL = re.compile(r"^(?:output|error|stderr|stdout):\s*", re.I)
_ERRORISH = re.compile(
    r"error|fail|fatal|not found|no such|cannot|can't|denied|invalid|unknown|refused|"
    r"missing|exception|panic|abort|no match|not allowed|timed? ?out|unable|conflict",
    re.I,
)
# The names an error class may hold: nothing else of the line is kept.
# ``ModuleNotFoundError: ...``, ``E   AssertionError``, ``java.io.IOException``
_EXCEPTION = re.compile(r"\b((?:[A-Za-z_][\w]*\.)*([A-Z]\w*(?:Error|Exception|Exit)))\b")
# ``error[E0425]`` (rustc), ``ERR_PNPM_NO_SCRIPT`` (pnpm, Node), an errno name (Node, Go).
_ERROR_CODE = re.compile(
    r"\berror\[E\d{4}\]|\bERR_[A-Z0-9_]{2,60}\b|\b(?:ENOENT|EACCES|EPERM|EEXIST|ENOTDIR|"
    r"EISDIR|ENOTEMPTY|ENOSPC|EPIPE|EADDRINUSE|ECONNREFUSED|ECONNRESET|ETIMEDOUT|ENOTFOUND|"
    r"EAI_AGAIN|E404|E403|E401|ERESOLVE)\b"
)
# Phrases that name the error whatever surrounds them, as the class spells them.
ERROR_PHRASES = (
    "command not found",
    *WRONG_CALL_PHRASES,
    "No such file or directory",
    "Permission denied",
    "Operation not permitted",
    "Not a directory",
    "Is a directory",
    "File exists",
    "Directory not empty",
    "No space left on device",
    "Connection refused",
    "Connection reset",
    "Address already in use",
    "Could not resolve host",
    "could not connect",
    "Authentication failed",
    "Segmentation fault",
    "out of memory",
    "timed out",
    "No rule to make target",
    "Missing script",
    "Cannot find module",
    "No module named",
    "did not match any file(s) known to git",
    "not a git repository",
    "merge conflict",
    "syntax error",
    "already exists",
    "not found",
)
_LOWERED_PHRASES = tuple((phrase.lower(), phrase) for phrase in ERROR_PHRASES)
# A line that says it is an error, in none of the words above: ``exit N: error``.
_SAYS_ERROR = re.compile(r"\b(?:errors?|fatal|panic(?:ked)?|failed|failure)\b", re.I)
# What clients say when an edit's old text is not in the file.
_EDIT_NOT_FOUND = (
    "0 occurrences found",
    "no match found",
    "string to replace not found",
    "old_string not found",
    "could not find",
    "was not found",
)


def error_class(error: str, *, edit: bool = False, exit_code: int | None = None) -> str:
    """The class of a failure whose tool reported ``error``; ``edit``: a file tool failed.

    ``exit_code`` is the code when the client gives it apart from the text.
    """
    text = error[:MAX_ERROR_CHARS]
    if exit_code is None:
        found = _EXIT.search(text)
        exit_code = int(found.group(1)) if found else None
    line = first_error_line(text)
    name = edit_name(line) if edit and line else error_name(line) if line else ""
    head = f"exit {exit_code}" if exit_code is not None else EDIT if edit else ERROR
    return f"{head}: {name}" if name else head


def first_error_line(text: str) -> str:
    """The first line that reads like an error, else the first line with content."""
    first = ""
    for raw in text.splitlines()[:MAX_LINES]:
        line = raw.strip()
        if _FRAME.match(line) or _EXIT.fullmatch(line):
            continue
        line = _LABEL.sub("", line)
        if not line or line in _NOTHING:
            continue
        if _ERRORISH.search(line):
            return line
        first = first or line
    return first


def edit_name(line: str) -> str:
    """An edit's error: the text not found, or the error's name."""
    lowered = line.lower()
    if any(phrase in lowered for phrase in _EDIT_NOT_FOUND):
        return "old_string not found"
    return error_name(line)


def error_name(line: str) -> str:
    """The name of the error ``line`` reports, from a fixed vocabulary, or "".

    An exception's or error code's name, a phrase every tool spells the same way, else
    ``error`` when the line says so: never a word of the run's own (a name, a host, a
    module of the project), so the class can be stored and shown.
    """
    exception = _EXCEPTION.search(line)
    if exception:
        return exception.group(2)
    code = _ERROR_CODE.search(line)
    if code:
        return code.group(0)
    lowered = line.lower()
    for phrase, name in _LOWERED_PHRASES:
        if phrase in lowered:
            return name
    return ERROR if _SAYS_ERROR.search(line) else ""


RULE_PLACEHOLDER = "<what to do instead, one imperative sentence>"


def capture_line(layout: Layout, flag: str, value: str, evidence: tuple[str, ...] = ()) -> str:
    """The ``lessons add`` line a failure nudge (or the stop-time request) offers for the
    trigger ``flag value`` (``ActionId.trigger``), the rule and topic left to the agent,
    ``evidence`` filled in."""
    refs = "".join(f" --evidence {shlex.quote(ref)}" for ref in evidence)
    return (
        f'{lessons_command(layout)} add "{RULE_PLACEHOLDER}" '
        f"--topic <topic> {flag} {shlex.quote(value)}{refs}"
    )
