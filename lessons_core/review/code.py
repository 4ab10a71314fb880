"""The code side of ``lessons review``: which active lessons a range's changes bring up,
and which lessons it leaves pointing at a file that is gone.

The lessons are matched the way recall matches them, through the recall index and its
matchers (``lessons_core.recall.rank``): file triggers and keywords against each changed
file's path, command triggers and keywords against each command the range adds to a
script or CI file (``script_commands``). They are listed in recall's order, best match
first: its tier (file, command, keyword), then its specificity
(``lessons_core.matching.specificity``), then fewer lessons sharing the trigger, newer,
id; a broad match (one that fires on routine work) after every specific one.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, NamedTuple

from lessons_core import git
from lessons_core.authoring.repo_files import tracked_files
from lessons_core.index.build import build_index
from lessons_core.index.entries import CommandEntry, GlobEntry, KeywordEntry, RecallIndex
from lessons_core.matching.glob_counts import FileIndex
from lessons_core.matching.glob_match import glob_matches
from lessons_core.matching.globs import has_glob_chars
from lessons_core.matching.trigger_checks import TriggerProblem, judge_glob
from lessons_core.matching.words import tokens
from lessons_core.recall.rank import (
    TIERS,
    VIA_COMMAND,
    VIA_FILE,
    VIA_KEYWORD,
    command_matches,
    file_matches,
    keyword_matches,
)
from lessons_core.review import diff, script_commands
from lessons_core.review.diff import FileChange
from lessons_core.review.ranges import Range
from lessons_core.store.model import Lesson


@dataclass(frozen=True)
class Match:
    """One trigger of a lesson matching the change: a changed file (``via`` file, or
    keyword in its path) or a command added to one (command, or keyword in it)."""

    via: str
    trigger: str
    file: str
    line: int | None  # the first added line of the hunk (or of the command) it matched
    command: str | None = None
    part: str | None = None  # the simple command a command pattern fired on
    broad: bool = False

    def to_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "via": self.via,
            "trigger": self.trigger,
            "file": self.file,
            "line": self.line,
            "broad": self.broad,
        }
        if self.command is not None:
            data["command"] = self.command
            data["part"] = self.part
        return data


@dataclass(frozen=True)
class LessonMatch:
    lesson: Lesson
    matches: tuple[Match, ...]  # best first

    @property
    def best(self) -> Match:
        return self.matches[0]

    @property
    def broad(self) -> bool:
        return self.best.broad

    def files(self) -> list[str]:
        return list(dict.fromkeys(match.file for match in self.matches))

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.lesson.id,
            "rule": self.lesson.rule,
            "enforce": self.lesson.enforce,
            "forbid": self.lesson.forbid,
            "broad": self.broad,
            "matches": [match.to_dict() for match in self.matches],
        }


class AddedCommand(NamedTuple):
    file: str
    line: int
    command: str
    lessons: tuple[str, ...]  # the ids of the lessons it brings up, best first

    def to_dict(self) -> dict[str, Any]:
        return {
            "file": self.file,
            "line": self.line,
            "command": self.command,
            "lessons": list(self.lessons),
        }


@dataclass(frozen=True)
class MovedTrigger:
    """A file trigger that matched a file the range deletes or renames away from it."""

    lesson: Lesson
    file: str  # the lesson's file
    glob: str
    change: str  # "deleted" or "renamed"
    old: str
    new: str | None
    still_matches: int  # files at the head it still matches
    needs_fix: bool
    fix: str

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.lesson.id,
            "rule": self.lesson.rule,
            "file": self.file,
            "glob": self.glob,
            "change": self.change,
            "old": self.old,
            "new": self.new,
            "still_matches": self.still_matches,
            "needs_fix": self.needs_fix,
            "fix": self.fix,
        }


@dataclass(frozen=True)
class CodeChanges:
    files: tuple[FileChange, ...]
    lessons: tuple[LessonMatch, ...]  # best first
    commands: tuple[AddedCommand, ...]  # in file and line order
    moved: tuple[MovedTrigger, ...]  # those needing a fix first

    def to_dict(self) -> dict[str, Any]:
        return {
            "files": [
                {"status": change.status, "old": change.old, "new": change.new}
                for change in self.files
            ],
            "lessons": [match.to_dict() for match in self.lessons],
            "commands": [command.to_dict() for command in self.commands],
            "moved": [moved.to_dict() for moved in self.moved],
        }


def code_changes(
    root: Path, span: Range, lessons: list[Lesson], store_folder: str, lesson_folder: str
) -> CodeChanges:
    """What ``span`` changes outside ``store_folder`` (``.lessons``: the lessons, and the
    launcher and config lessons writes), against the active ``lessons``, whose files are
    in ``lesson_folder``."""
    active = {lesson.id: lesson for lesson in lessons if lesson.is_active}
    index = build_index(active.values())
    files = [
        change
        for change in diff.changed_files(root, span)
        if not (_inside(change.old, store_folder) and _inside(change.new, store_folder))
    ]
    present = [change.new for change in files if change.status != "D"]
    # A file the range deletes is matched below for the lessons it leaves (``_moved``).
    by_file = {path: (file_matches(index, path), _keyword_hits(index, path)) for path in present}
    scripts = [
        path
        for path in present
        if script_commands.extractor(path) is not None or script_commands.may_be_script(path)
    ]
    needed = set(scripts).union(path for path in present if any(by_file[path]))
    added_lines = diff.added_lines(root, span, [c for c in files if c.new in needed])
    found = _Found(index)
    for path in present:
        # The first added line: that of the file's first hunk that adds any.
        line = added_lines[path][0] if path in added_lines else None
        globs, keywords = by_file[path]
        for glob in globs:
            found.add(glob, Match(VIA_FILE, glob.glob, path, line, broad=glob.broad))
        for keyword in keywords:
            found.add(keyword, Match(VIA_KEYWORD, keyword.keyword, path, line, broad=keyword.broad))
    added = [
        _lessons_of(found, path, line, command)
        for path, line, command in _added_commands(root, span, scripts, added_lines)
    ]
    ranked = found.ranked(active)
    order = {match.lesson.id: n for n, match in enumerate(ranked)}
    commands = [c._replace(lessons=tuple(sorted(c.lessons, key=order.__getitem__))) for c in added]
    moved = _moved(root, span, index, active, files, lesson_folder)
    return CodeChanges(tuple(files), tuple(ranked), tuple(commands), tuple(moved))


def _added_commands(
    root: Path, span: Range, scripts: list[str], added_lines: dict[str, list[int]]
) -> list[tuple[str, int, str]]:
    """(file, line, command) for each command the range adds to one of ``scripts``."""
    added: list[tuple[str, int, str]] = []
    for path, text in diff.texts_at_head(root, span, scripts).items():
        lines = set(added_lines.get(path, ()))
        if lines:
            found = script_commands.added(script_commands.commands_of(path, text), lines)
            added.extend((path, line, command) for line, command in found)
    return added


def _lessons_of(found: _Found, path: str, line: int, command: str) -> AddedCommand:
    """The added command with the lessons whose command triggers or keywords it matches,
    each match recorded in ``found``."""
    index = found.index
    hits: list[str] = []
    for entry, part in command_matches(index, command):
        found.add(entry, Match(VIA_COMMAND, entry.pattern, path, line, command, part, entry.broad))
        hits.append(index.ids[entry.lesson])
    for word in keyword_matches(index, tokens(command)):
        found.add(word, Match(VIA_KEYWORD, word.keyword, path, line, command, broad=word.broad))
        hits.append(index.ids[word.lesson])
    return AddedCommand(path, line, command, tuple(dict.fromkeys(hits)))


def _inside(path: str, folder: str) -> bool:
    return path == folder or path.startswith(folder.rstrip("/") + "/")


def _keyword_hits(index: RecallIndex, path: str) -> list[KeywordEntry]:
    return list(keyword_matches(index, tokens(path))) if index.keywords else []


class _Found:
    """Every match of every lesson, with recall's rank key for each."""

    def __init__(self, index: RecallIndex) -> None:
        self.index = index
        self.by_lesson: dict[int, list[tuple[tuple[Any, ...], Match]]] = {}

    def add(self, entry: GlobEntry | CommandEntry | KeywordEntry, match: Match) -> None:
        lesson = entry.lesson
        key = (
            match.broad,
            TIERS[match.via],
            tuple(-value for value in entry.specificity),
            entry.share,
            -self.index.created[lesson],
            match.file,
            match.line or 0,
        )
        self.by_lesson.setdefault(lesson, []).append((key, match))

    def ranked(self, active: dict[str, Lesson]) -> list[LessonMatch]:
        rows: list[tuple[tuple[Any, ...], str, LessonMatch]] = []
        for lesson, found in self.by_lesson.items():
            found.sort(key=lambda item: item[0])
            matches = tuple(dict.fromkeys(match for _key, match in found))
            lesson_id = self.index.ids[lesson]
            rows.append((found[0][0][:5], lesson_id, LessonMatch(active[lesson_id], matches)))
        rows.sort(key=lambda row: (row[0], row[1]))
        return [row[2] for row in rows]


def _moved(
    root: Path,
    span: Range,
    index: RecallIndex,
    active: dict[str, Lesson],
    files: list[FileChange],
    lesson_folder: str,
) -> list[MovedTrigger]:
    gone = [change for change in files if change.status in "DR"]
    if not gone:
        return []
    found: list[MovedTrigger] = []
    head_files: FileIndex | None = None
    for change in gone:
        for entry in file_matches(index, change.old):
            if change.status == "R" and glob_matches(entry.matcher, change.new):
                continue  # the trigger follows the file
            if head_files is None:
                head_files = FileIndex(_files_at_head(root, span))
            compiled = judge_glob(entry.glob)
            left = 0 if isinstance(compiled, TriggerProblem) else head_files.count(compiled)
            lesson = active[index.ids[entry.lesson]]
            file = f"{lesson_folder}/{lesson.id}.json"
            found.append(_moved_trigger(lesson, file, entry.glob, change, left))
    found.sort(key=lambda m: (not m.needs_fix, m.lesson.id, m.glob, m.old))
    return found


def _moved_trigger(
    lesson: Lesson, file: str, glob: str, change: FileChange, left: int
) -> MovedTrigger:
    """What became of ``glob`` (of ``lesson``, in ``file``) and the fix, if one is due."""
    only = len(lesson.triggers.files) == 1 and not (
        lesson.triggers.commands or lesson.triggers.keywords
    )
    retire = f'lessons deprecate {lesson.id} --reason "{change.old} was deleted"'
    if change.status == "R":
        kind, new = "renamed", change.new
        if not has_glob_chars(glob):
            fix = f"in {file}, change the file trigger '{glob}' to '{change.new}'"
        else:
            fix = (
                f"'{change.new}' is outside '{glob}': add a file trigger for its new place "
                f"to {file}, if the rule still applies to it"
            )
        needs_fix = True
    else:
        kind, new = "deleted", None
        needs_fix = left == 0
        if needs_fix:
            fix = f"'{glob}' now matches no file: remove it from \"files\" in {file}"
            fix += f", or retire the lesson: '{retire}'" if only else ""
        else:
            fix = (
                f"none needed: '{glob}' still matches {left} file{'s' if left != 1 else ''}; "
                f"check the rule was not about '{change.old}' alone"
            )
    return MovedTrigger(lesson, file, glob, kind, change.old, new, left, needs_fix, fix)


def _files_at_head(root: Path, span: Range) -> list[str]:
    if span.head is None:
        return tracked_files(root)
    out = git.git(root, "ls-tree", "-r", "-z", "--name-only", span.head)
    names = out.decode("utf-8", "surrogateescape").split("\0")
    return [name for name in names if name and not name.startswith(".lessons/")]
