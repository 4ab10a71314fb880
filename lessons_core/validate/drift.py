"""L304: the code a lesson is about changed since the lesson was written or re-checked.

One ``git log --name-status`` walk over the last ``drift_max_commits`` commits serves
every lesson (``lessons_core.git.recent_commits``); the paths it names are indexed once
(``FileIndex``) so each file trigger is matched against them once.

A lesson is "written" at the latest of: the commit that added its file, a ``commit:``
reference in its evidence, and its ``checked`` record (``lessons touch``). A marker whose
commit is not in the window (older, or on no branch of HEAD) falls back to its date: the
``created`` day when the add commit is not found, the ``checked`` day likewise; then only
commits of later days count, so a lesson written today is never judged by today's work.
"""

from __future__ import annotations

import datetime as _dt
from collections.abc import Iterator, Sequence

from lessons_core.git import Change, Commit, GitError, recent_commits
from lessons_core.matching.glob_counts import FileIndex
from lessons_core.matching.globs import GlobError, compile_glob, has_glob_chars
from lessons_core.store.model import Lesson
from lessons_core.validate.context import Context
from lessons_core.validate.findings import Finding

MAX_NAMED_COMMITS = 5
EVIDENCE_COMMIT = "commit:"
# The shortest hash a ``commit:`` reference may use (the shortest git accepts).
MIN_HASH_CHARS = 4


def check(ctx: Context) -> Iterator[Finding]:
    config = ctx.config
    lessons = [lesson for lesson in ctx.graph.active() if lesson.triggers.files]
    if not lessons or config.drift_min_commits == 0 or config.drift_max_commits == 0:
        return
    try:
        commits = recent_commits(ctx.layout.root, config.drift_max_commits)
    except GitError:  # outside git, or no commit yet: no history to judge by
        return
    history = _History(commits)
    for lesson in sorted(lessons, key=lambda x: x.id):
        finding = _judge(ctx, history, lesson)
        if finding is not None:
            yield finding


class _History:
    """The window's commits, newest first, with what the checks look up in them."""

    def __init__(self, commits: Sequence[Commit]) -> None:
        self.commits = commits
        self.days = [_day(commit.time) for commit in commits]
        self.position = {commit.sha: at for at, commit in enumerate(commits)}
        self.added: dict[str, int] = {}  # path -> the oldest commit in the window adding it
        # path -> the commits changing it (as old or new name), newest first: each lesson
        # then reads the commits of its own paths, not the whole window.
        self.changed: dict[str, list[int]] = {}
        for at, commit in enumerate(commits):
            for change in commit.changes:
                if change.status in "ARC":
                    self.added[change.new] = at
                for path in {change.old, change.new}:
                    self.changed.setdefault(path, []).append(at)
        self.paths = FileIndex(self.changed)

    def find(self, sha: str) -> int | None:
        """The position of the commit ``sha`` (a full or short hash) names, if in the window."""
        if sha in self.position:
            return self.position[sha]
        if len(sha) < MIN_HASH_CHARS:
            return None
        return next((at for at, c in enumerate(self.commits) if c.sha.startswith(sha)), None)


def _judge(ctx: Context, history: _History, lesson: Lesson) -> Finding | None:
    end, after_day = _since(ctx, history, lesson)
    touched: set[str] = set()
    gone: list[str] = []
    for glob in lesson.triggers.files:
        try:
            compiled = compile_glob(glob)
        except GlobError:  # L009 reports it
            continue
        touched.update(history.paths.matching(compiled))
        # An exact file no longer in the repo (the index answers from its sorted paths).
        if not has_glob_chars(compiled.glob) and not ctx.files.count(compiled):
            gone.append(compiled.glob)
    if not touched:
        return None
    changed: list[tuple[Commit, list[Change]]] = []
    positions = {at for path in touched for at in history.changed[path] if at < end}
    for at in sorted(positions):
        if after_day is not None and history.days[at] <= after_day:
            continue
        commit = history.commits[at]
        hits = [c for c in commit.changes if c.old in touched or c.new in touched]
        if hits:
            changed.append((commit, hits))
    moved = _moved(gone, changed)
    if not moved and len(changed) < ctx.config.drift_min_commits:
        return None
    shas = [commit.sha[:10] for commit, _ in changed[:MAX_NAMED_COMMITS]]
    more = len(changed) - len(shas)
    named = ", ".join(shas) + (f" and {more} more" if more else "")
    what = f"{len(changed)} commit{'s' if len(changed) != 1 else ''} changed the files its "
    what += f"file triggers match since it was written or re-checked ({named})"
    if moved:
        what += "; " + "; ".join(moved)
    return Finding(
        "L304",
        ctx.lesson_file(lesson.id),
        what,
        f"re-read the rule against the code now, then 'lessons touch {lesson.id}' if it "
        f"still holds (or fix its triggers first), or 'lessons deprecate {lesson.id}'",
        lesson.id,
        '"files"',
    )


def _since(ctx: Context, history: _History, lesson: Lesson) -> tuple[int, str | None]:
    """How many of the newest commits came after the lesson was written, and the day
    after which a commit must fall when a marker is known only by its date."""
    positions: list[int] = []
    days: list[str] = []
    added = history.added.get(ctx.lesson_file(lesson.id))
    if added is None:
        days.append(lesson.created)
    else:
        positions.append(added)
    for item in lesson.evidence:
        if item.startswith(EVIDENCE_COMMIT):
            found = history.find(item[len(EVIDENCE_COMMIT) :].strip().lower())
            if found is not None:
                positions.append(found)
    if lesson.checked is not None:
        found = history.find(lesson.checked.commit)
        if found is None:
            days.append(lesson.checked.date)
        else:
            positions.append(found)
    end = min(positions) if positions else len(history.commits)
    return end, max(days) if days else None


def _moved(gone: list[str], changed: list[tuple[Commit, list[Change]]]) -> list[str]:
    """What happened to each exact file a trigger names that is no longer in the repo."""
    said: list[str] = []
    for path in gone:
        for commit, hits in changed:  # newest first: the last thing that happened to it
            hit = next((c for c in hits if c.old == path and c.status in "DR"), None)
            if hit is not None:
                verb = "deleted" if hit.status == "D" else f"renamed to '{hit.new}'"
                said.append(f"'{path}' was {verb} in {commit.sha[:10]}")
                break
    return said


def _day(stamp: int) -> str:
    return _dt.datetime.fromtimestamp(stamp, _dt.timezone.utc).date().isoformat()
