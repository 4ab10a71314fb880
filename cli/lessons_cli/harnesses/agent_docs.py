"""Sections lessons owns in a Markdown file such as AGENTS.md or CLAUDE.md.

``init --agents-md`` writes a short section for harnesses that run no hooks: the agent is
told to ask for lessons itself before it edits or runs something, and to capture one
after a failure. ``lessons export --output`` writes the active lessons in a section of
its own. Each section sits between two HTML comments of its own (a ``Section``), so
re-running replaces that section in place, removal takes out exactly what was added, and
every other line of the file (what its authors wrote, the other section) stays as it was.
A file whose markers do not form one pair is refused, never guessed at.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from lessons_core.errors import LessonsError
from lessons_core.fsutil import atomic_write, write_target
from lessons_core.importers.instructions import SECTION_END, SECTION_START

# The markers `lessons import instructions` knows to skip.
START = SECTION_START
END = SECTION_END

DOC_FILES = ("AGENTS.md", "CLAUDE.md")
# What ``Section.write`` did.
CREATED, ADDED, REPLACED, UNCHANGED = "created", "added", "replaced", "unchanged"


@dataclass(frozen=True)
class Section:
    """The part of a file between ``<!-- NAME:start -->`` and ``<!-- NAME:end -->``."""

    name: str

    @property
    def start(self) -> str:
        return f"<!-- {self.name}:start -->"

    @property
    def end(self) -> str:
        return f"<!-- {self.name}:end -->"

    def wrap(self, body: str) -> str:
        """``body`` (whole lines) between the markers."""
        return f"{self.start}\n{body}{self.end}\n"

    def put(self, path: Path, text: str) -> bool:
        """``write``; True if the file changed."""
        return self.write(path, text) != UNCHANGED

    def write(self, path: Path, text: str) -> str:
        """Write ``text`` (``wrap``'s result) as the section of ``path``, in place of the
        one there, else at the end: ``REPLACED``, ``ADDED``, ``CREATED`` (the file did not
        exist) or ``UNCHANGED``. The rest of the file is kept byte for byte.

        A file that is a link (``CLAUDE.md -> AGENTS.md``) is edited where it leads.
        """
        path = write_target(path, path.parent)
        existed = path.exists()
        current = _read(path) if existed else ""
        span = self._span(current, path)
        if span is not None:
            updated = current[: span[0]] + text + current[span[1] :]
        else:
            base = current if not current or current.endswith("\n") else current + "\n"
            updated = base + ("\n" if base.strip() else "") + text
        if existed and updated == current:
            return UNCHANGED
        atomic_write(path, updated.encode("utf-8"))
        return REPLACED if span is not None else ADDED if existed else CREATED

    def remove(self, path: Path) -> bool:
        """Take the section out; True if the file changed (an emptied file is kept, empty)."""
        path = write_target(path, path.parent)
        if not path.exists():
            return False
        text = _read(path)
        span = self._span(text, path)
        if span is None:
            return False
        atomic_write(path, _without(text, span).encode("utf-8"))
        return True

    def _span(self, text: str, path: Path) -> tuple[int, int] | None:
        """Where the section is in ``text`` (its last line break included); None if it
        has none. Markers that are not exactly one start before one end are refused:
        which lines are ours would be a guess, and a wrong guess deletes someone's text."""
        starts, ends = text.count(self.start), text.count(self.end)
        if starts == ends == 0:
            return None
        start = text.find(self.start)
        end = text.find(self.end, start + len(self.start))
        if starts != 1 or ends != 1 or end < 0:
            raise LessonsError(
                f"{path}: the markers {self.start} and {self.end} should appear once each, "
                f"in that order, around the section lessons writes, but the file has "
                f"{starts} and {ends}; fix them by hand (or delete both and the text between) "
                "and re-run, lessons never guesses which lines it wrote"
            )
        end += len(self.end)
        if text[end : end + 1] == "\n":
            end += 1
        return start, end


# The section ``init --agents-md`` writes.
SECTION = Section("lessons")
START = SECTION.start
END = SECTION.end

SNIPPET = SECTION.wrap(
    """## Project lessons

This repo keeps one-line rules learned from past mistakes (`.lessons/`).

- Before editing a file, run `lessons query --file PATH --session SESSION`; before a
  shell command, `lessons query --cmd 'CMD' --session SESSION` (SESSION: any id that
  stays the same for this conversation). Follow the rules it prints.
- After a failure or a correction that taught something specific to this project, save
  it: `lessons add "RULE" --topic TOPIC --trigger-file GLOB` (or `--trigger-cmd PATTERN`).
"""
)

# The section ``lessons export --format agents-md`` writes.
EXPORT = Section("lessons:export")


def add_snippet(path: Path) -> bool:
    """Add the ``init --agents-md`` section, or refresh it in place; True if it changed."""
    return SECTION.put(path, SNIPPET)


def remove_snippet(path: Path) -> bool:
    """Take the ``init --agents-md`` section out; True if the file changed. A file left
    holding nothing (only whitespace) is deleted, unless it is reached through a link or
    another doc file links to it: then it is kept, empty, so no link is left pointing at
    nothing."""
    if not SECTION.remove(path):
        return False
    target = write_target(path, path.parent)
    if not _read(target).strip() and not path.is_symlink() and not _linked_to(target):
        target.unlink()
    return True


def _without(text: str, span: tuple[int, int]) -> str:
    before = text[: span[0]].rstrip("\n")
    after = text[span[1] :].lstrip("\n")
    if before and after:
        return f"{before}\n\n{after}"
    return f"{before}\n" if before else after


def _linked_to(path: Path) -> bool:
    """Whether another doc file beside ``path`` is a link to it (``CLAUDE.md -> AGENTS.md``)."""
    for name in DOC_FILES:
        other = path.parent / name
        if other != path and other.is_symlink() and other.resolve() == path.resolve():
            return True
    return False


def _read(path: Path) -> str:
    if not path.is_file():  # a FIFO would block the read, a device is not a document
        raise LessonsError(f"{path} is not a regular file; give the path of a Markdown file")
    try:
        return path.read_text(encoding="utf-8")
    except UnicodeDecodeError as err:
        raise LessonsError(
            f"{path}: not UTF-8 text ({err.reason} at byte {err.start}); fix it by hand and "
            "re-run, lessons never rewrites a file it cannot read"
        ) from None
