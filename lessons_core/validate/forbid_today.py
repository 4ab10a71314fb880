"""L360: the files a lesson's ``forbid`` pattern covers already hold text it forbids.

A forbid pattern is checked in what a change adds (the hook, ``lessons check``), so a
rule can hold from now on in code that still breaks it. This names those places, so a
person knows what the rule means today and can fix them.

Bounded: tracked files only (``git ls-files``: untracked ones are nobody's code yet);
each path checked to stay inside the repo, every part of it; each file read as a plain
file (no link, FIFO or device) of at most ``FORBID_SCAN_MAX_FILE_BYTES``, and the scan
stops after ``FORBID_SCAN_MAX_BYTES`` in all (the finding says so). A file with a NUL
byte is binary and skipped. Outside git it says nothing.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from lessons_core.check.diff_lines import AddedLine
from lessons_core.check.forbidden import Breach, ForbidRule, breaches, forbid_rules
from lessons_core.containment import leaving_part
from lessons_core.fsutil import read_regular
from lessons_core.git import GitError, git
from lessons_core.matching.forbid import first_forbidden
from lessons_core.matching.glob_counts import FileIndex
from lessons_core.matching.thresholds import (
    FORBID_PLACES_SHOWN,
    FORBID_SCAN_MAX_BYTES,
    FORBID_SCAN_MAX_FILE_BYTES,
)
from lessons_core.validate.context import Context
from lessons_core.validate.findings import Finding


def check(ctx: Context) -> Iterator[Finding]:
    rules = forbid_rules(ctx.graph)
    if not rules:
        return
    root = ctx.layout.root
    try:
        listing = git(root, "ls-files", "-z", "--cached")  # below root, named from it
    except GitError:
        return
    tracked = FileIndex(filter(None, listing.decode("utf-8", "surrogateescape").split("\0")))
    covering: dict[str, list[ForbidRule]] = {}
    for rule in rules:
        for path in sorted({p for glob in rule.globs for p in tracked.matching(glob)}):
            covering.setdefault(path, []).append(rule)
    found: dict[str, list[Breach]] = {}
    budget = FORBID_SCAN_MAX_BYTES
    stopped = False
    for path in sorted(covering):
        if budget <= 0:
            stopped = True
            break
        text = _read(root, path)
        if text is None:
            continue
        budget -= len(text)
        # One search of the whole text first: most files hold no match, and then cost one
        # RE2 call each rather than one a line.
        breaking = [rule for rule in covering[path] if first_forbidden(rule.pattern, text)]
        if not breaking:
            continue
        lines = (AddedLine(path, n, line) for n, line in enumerate(text.split("\n"), 1))
        for breach in breaches(breaking, lines):
            found.setdefault(breach.lesson.id, []).append(breach)
    for lesson_id, places in sorted(found.items()):
        yield _finding(ctx, lesson_id, places, stopped)


def _read(root: Path, path: str) -> str | None:
    """The text of a tracked file, or None when it leaves the repo, is not a plain file,
    is over the size cap, cannot be read, or is binary."""
    if leaving_part(path, root) is not None:
        return None
    try:
        data = read_regular(root / path, FORBID_SCAN_MAX_FILE_BYTES)
    except (OSError, ValueError):  # TooLarge, NotRegularFile, gone; ValueError: a NUL
        return None
    if b"\0" in data:
        return None
    return data.decode("utf-8", "replace").replace("\r\n", "\n")


def _finding(ctx: Context, lesson_id: str, places: list[Breach], stopped: bool) -> Finding:
    shown = ", ".join(f"{b.path}:{b.line} ('{b.matched}')" for b in places[:FORBID_PLACES_SHOWN])
    more = len(places) - FORBID_PLACES_SHOWN
    rest = f" and {more} more" if more > 0 else ""
    cut = f" (the scan stopped after {FORBID_SCAN_MAX_BYTES >> 20} MiB)" if stopped else ""
    count = f"{len(places)} place{'' if len(places) == 1 else 's'}"
    return Finding(
        "L360",
        ctx.lesson_file(lesson_id),
        f"the tracked files it covers already break its forbid pattern in {count}: "
        f"{shown}{rest}{cut}",
        "the pattern holds for changes from now on (the hook and 'lessons check' read only "
        "what a change adds); fix these places, or narrow the file triggers if the rule is "
        "not meant for them",
        lesson_id,
        '"forbid"',
    )
