"""A short section in AGENTS.md / CLAUDE.md for harnesses that run no hooks.

The agent is told to ask for lessons itself before it edits or runs something, and to
capture one after a failure. The section sits between two HTML comments, so re-running
replaces it in place and removal takes out exactly what was added.
"""

from __future__ import annotations

from pathlib import Path

from lessons_core.errors import LessonsError
from lessons_core.fsutil import atomic_write, write_target

START = "<!-- lessons:start -->"
END = "<!-- lessons:end -->"
DOC_FILES = ("AGENTS.md", "CLAUDE.md")

SNIPPET = f"""{START}
## Project lessons

This repo keeps one-line rules learned from past mistakes (`.lessons/`).

- Before editing a file, run `lessons query --file PATH --session SESSION`; before a
  shell command, `lessons query --cmd 'CMD' --session SESSION` (SESSION: any id that
  stays the same for this conversation). Follow the rules it prints.
- After a failure or a correction that taught something specific to this project, save
  it: `lessons add "RULE" --topic TOPIC --trigger-file GLOB` (or `--trigger-cmd PATTERN`).
{END}
"""


def add_snippet(path: Path) -> bool:
    """Add the section, or refresh it in place; True if the file changed.

    A file that is a link (``CLAUDE.md -> AGENTS.md``) is edited where it leads.
    """
    path = write_target(path, path.parent)
    text = _read(path) if path.exists() else ""
    span = _span(text)
    if span is not None:
        updated = text[: span[0]] + SNIPPET + text[span[1] :]
    else:
        base = text if not text or text.endswith("\n") else text + "\n"
        updated = base + ("\n" if base.strip() else "") + SNIPPET
    if updated == text:
        return False
    atomic_write(path, updated.encode("utf-8"))
    return True


def remove_snippet(path: Path) -> bool:
    """Take the section out; True if the file changed. A file left holding nothing (only
    whitespace) is deleted, unless it is reached through a link or another doc file links
    to it: then it is kept, empty, so no link is left pointing at nothing."""
    given = path
    path = write_target(path, path.parent)
    if not path.exists():
        return False
    text = _read(path)
    updated = _without(text)
    if updated is None:
        return False
    if not updated.strip() and not given.is_symlink() and not _linked_to(path):
        path.unlink()
        return True
    atomic_write(path, updated.encode("utf-8"))
    return True


def _linked_to(path: Path) -> bool:
    """Whether another doc file beside ``path`` is a link to it (``CLAUDE.md -> AGENTS.md``)."""
    for name in DOC_FILES:
        other = path.parent / name
        if other != path and other.is_symlink() and other.resolve() == path.resolve():
            return True
    return False


def _read(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8")
    except UnicodeDecodeError as err:
        raise LessonsError(
            f"{path}: not UTF-8 text ({err.reason} at byte {err.start}); fix it by hand and "
            "re-run, lessons never rewrites a file it cannot read"
        ) from None


def _span(text: str) -> tuple[int, int] | None:
    start = text.find(START)
    end = text.find(END, start + 1) if start >= 0 else -1
    if start < 0 or end < 0:
        return None
    end += len(END)
    if text[end : end + 1] == "\n":
        end += 1
    return start, end


def _without(text: str) -> str | None:
    span = _span(text)
    if span is None:
        return None
    start, end = span
    before = text[:start].rstrip("\n")
    after = text[end:].lstrip("\n")
    if before and after:
        return f"{before}\n\n{after}"
    return f"{before}\n" if before else after
