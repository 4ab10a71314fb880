"""The plain instruction files most projects already have, as lessons.

``CLAUDE.md``, ``AGENTS.md``, ``GEMINI.md`` and ``.github/copilot-instructions.md`` are
read by their harness: the root's into every session, one in a folder when the agent
works there. They say nothing of where each line applies. A line becomes a lesson only
when it is a rule (``instruction_rules``, ``normative``); its triggers are where its
mistake is made (``rule_triggers``): what it forbids and the situation it is about,
never the command it asks for. Every other line stays in its file and is reported,
grouped by the reason it stays (a description, a link, a table, a set-up step, a
lead-in, a rule that names no place).

A file below the root (``pkg/AGENTS.md``) applies to its folder: the paths its rules
name are read from there first (``importers.mentions``), and a rule naming nothing is
scoped to the folder: its source files (``pkg/**/*.ts``, ``pkg/**/*.tsx``) when code is
most of what it holds, else ``pkg/**``, or its files of one kind when the folder is most
of the repo. A rule of a root file naming nothing stays there, which the harness keeps
loading (with ``always``, it becomes an always-on lesson instead, within
``always_max_tokens``). Nothing is dropped without a note.

Each heading names the topic of the rules below it (the file's name before the first
heading). The section ``lessons init --agents-md`` wrote (between its two HTML comments)
is lessons' own and is skipped. With no file named, every instruction file git tracks
is read. A file given as a symbolic link is read where it leads, inside the repo only;
two names of one file (``CLAUDE.md -> AGENTS.md``) are read once.
"""

from __future__ import annotations

import os
import posixpath
from pathlib import Path

from lessons_core.authoring.repo_files import tracked_files
from lessons_core.errors import LessonsError
from lessons_core.fsutil import write_target
from lessons_core.importers.described_places import (
    described_files,
    heading_place,
    stated_test_home,
)
from lessons_core.importers.instruction_rules import Found
from lessons_core.importers.mentions import instruction_folder
from lessons_core.importers.normative import main_clause
from lessons_core.importers.plan import ImportPlan, Note, NoteKind
from lessons_core.importers.rule_import import Planner, display, excerpt, globs_for_rule
from lessons_core.importers.rule_triggers import about_git_work, heading_action, rule_triggers
from lessons_core.store.ids import slug
from lessons_core.store.layout import Layout
from lessons_core.store.model import Triggers

FORMAT = "instructions"
INSTRUCTION_FILES = ("CLAUDE.md", "AGENTS.md", "GEMINI.md", ".github/copilot-instructions.md")
_RUN_VERBS = frozenset({"use", "run", "check", "execute", "invoke", "call"})
_INSISTING = frozenset({"always", "only", "please"})
_NAMES = frozenset(name for name in INSTRUCTION_FILES if "/" not in name)

# The section ``lessons init --agents-md`` writes (lessons_cli.harnesses.agent_docs).
SECTION_START = "<!-- lessons:start -->"
SECTION_END = "<!-- lessons:end -->"
# Folders holding other projects' code: their instruction files are those projects'
# ("vendor/go.opentelemetry.io/otel/AGENTS.md"), not rules of this one.
_THIRD_PARTY = frozenset(
    "vendor node_modules third_party third-party thirdparty bower_components".split()
)
# Folders of examples and templates: a file in one of them ("cookbook/teams/hitl/
# CLAUDE.md", an example agent's own prompt) is for that example's users, not for work
# on this project; one beside them ("examples/AGENTS.md") speaks of them all.
_EXAMPLES = frozenset(
    "examples example cookbook cookbooks samples sample templates template starters demos".split()
)


def default_files(root: Path) -> list[Path]:
    """Every instruction file git tracks: the root's first, in ``INSTRUCTION_FILES``
    order, then those in folders, by path."""
    tracked = set(tracked_files(root))
    top = [name for name in INSTRUCTION_FILES if name in tracked or (root / name).exists()]
    nested = sorted(
        name
        for name in tracked
        if "/" in name and name not in top and posixpath.basename(name) in _NAMES
    )
    return [root / name for name in top + nested]


def plan_instructions(layout: Layout, paths: list[Path], always: bool = False) -> ImportPlan:
    """The lessons of the instruction files ``paths`` (``default_files`` when empty, less
    those of the dependencies a repo vendors and those of its examples)."""
    plan = Planner(layout)
    if not paths:
        found = default_files(layout.root)
        paths = []
        for path in found:
            name = _name(path, layout.root)
            if _vendored(name):
                why = "not read: it is a vendored dependency's own, not this project's"
                plan.note(NoteKind.NOT_CARRIED, "vendored", name, why)
            elif _in_one_example(name):
                why = (
                    "not read: it is one example's or template's own, for its users, not "
                    f"for work on this project; to import it: lessons import instructions {name}"
                )
                plan.note(NoteKind.NOT_CARRIED, "example", name, why)
            else:
                paths.append(path)
    if not paths:
        raise LessonsError(
            f"no instruction file in {layout.root} ({', '.join(INSTRUCTION_FILES)}, in any "
            "folder); pass the files to import: lessons import instructions FILE..."
        )
    seen: set[str] = set()
    names: list[str] = []
    for path in paths:
        target = write_target(path.absolute(), layout.root)  # a link must stay in the repo
        real = os.path.realpath(target)
        subject = _name(path.absolute(), layout.root)
        names.append(subject)
        if real in seen:
            continue
        seen.add(real)
        try:
            text = target.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as err:
            plan.note(NoteKind.NOT_CARRIED, "file-unreadable", subject, f"skipped: {err}")
            continue
        folder = _folder(path, layout.root)
        _plan_file(plan, _without_own_section(text), subject, folder, always)
    return plan.finish(", ".join(names), FORMAT)


def _plan_file(plan: Planner, text: str, subject: str, folder: str, always: bool) -> None:
    """The rules of one file as lessons; the paths they name are read in ``folder``,
    the one the file applies to (``mentions.instruction_folder``)."""
    scope = plan.folder_scope(folder) if folder else None
    tests_home = stated_test_home(plan.mentions, text, folder)
    for heading, found in plan.judged(text, _file_topic(subject), subject):
        _rule(plan, found, heading, subject, folder, scope, tests_home, always)


def _rule(
    plan: Planner,
    found: Found,
    heading: str,
    subject: str,
    folder: str,
    scope: tuple[str, ...] | Note | None,
    tests_home: str | None,
    always: bool,
) -> None:
    """Plan the lesson of one rule: triggered where its mistake is made (named, or
    described: "snapshot files"), else by the folder its file applies to, else always-on
    (``always``), else left with why."""
    topic = slug(heading) or "instructions"
    triggers = _not_itself(rule_triggers(plan.mentions, found.text, folder), subject)
    described: tuple[str, ...] = ()
    # "When the rules for testing change, update this file AGENTS.md": about the
    # instruction file itself, whose edit is no mistake to catch; its words describe no
    # other place.
    named = plan.mentions.triggers(found.text, folder)
    if triggers.is_empty() and _not_itself(named, subject) == named:
        # Under a heading naming one git or pull-request step ("PR messages"), a rule that
        # names no place is about that step: its "testing summaries" are words of the
        # message, not test files.
        action = heading_action(heading, found.text)
        described = (
            ()
            if action
            else described_files(plan.mentions, found.text, heading, folder, tests_home)
        )
        if not (action or named.commands or about_git_work(found.text)):
            # "### `tests/unit`" over "Must not require a running server"; a title
            # naming the file itself ("# AGENTS.md") is no place
            place = Triggers(files=heading_place(plan.mentions, heading, described, folder))
            described = _not_itself(place, subject).files or described
        triggers = Triggers(files=described, commands=action)
    how = "named"
    # A place the rule describes is the folder's own ("its tests": the repo's test
    # folder, when the folder's tests are kept there).
    inside = described or any(glob.startswith(f"{folder}/") for glob in triggers.files)
    # A command is run from anywhere: "Do not use `go install`" in `docs/CLAUDE.md` is
    # about that command, not about editing the folder's files; so is the work done with
    # git and pull requests ("NEVER stop before pushing").
    workflow = about_git_work(found.text)
    # So is a rule on how to run a command ("Always use `make install`", "Check for
    # duplicates: `bd duplicates`"); "Format CSS files with `prettier`" is about the files.
    verb = [word for word in main_clause(found.text) if word not in _INSISTING][:1]
    runs = triggers.is_empty() and bool(named.commands) and bool(verb) and verb[0] in _RUN_VERBS
    if isinstance(scope, tuple) and not (inside or triggers.commands or workflow or runs):
        folder_files = tuple(globs_for_rule(list(scope), found.text))
        triggers, how = Triggers(files=folder_files).merged(triggers), "folder"
    if triggers.is_empty() and (not always or not named.is_empty()):
        code, detail = _why_no_trigger(found, named, subject, scope)
        plan.note(NoteKind.NOT_CARRIED, code, subject, detail)
        return
    lesson = plan.add_lesson(
        found.text, found.rationale, topic, triggers, subject, triggers.is_empty()
    )
    if lesson is None:
        return
    shown = ", ".join((*triggers.files, *triggers.commands))
    carried = {
        "named": f"triggered where its mistake is made: {shown}",
        "folder": f"{subject} applies to {folder}/, so the rule is scoped to it: {shown}",
    }[how]
    code = f"{how}-trigger"
    if triggers.is_empty():
        code, carried = "always-on", "imported as an always-on lesson (shown at session start)"
    note = Note(NoteKind.TRANSLATED, code, subject, f"'{excerpt(found.text)}': {carried}")
    plan.carried[lesson.id] = note


def _not_itself(triggers: Triggers, subject: str) -> Triggers:
    """``triggers`` less the instruction file the rule is read from (or its linked twin
    beside it): "check the changes against the conventions in this `AGENTS.md`" points
    at itself, and editing it is not where the rule's mistake is made."""
    here = posixpath.dirname(subject)
    files = tuple(
        glob
        for glob in triggers.files
        if not (posixpath.dirname(glob) == here and posixpath.basename(glob) in _NAMES)
    )
    return Triggers(files=files, commands=triggers.commands, keywords=triggers.keywords)


def _why_no_trigger(
    found: Found, named: Triggers, subject: str, scope: tuple[str, ...] | Note | None
) -> tuple[str, str]:
    """(code, detail) of a rule left for want of a trigger; ``named``, all it names."""
    said = f"'{excerpt(found.text)}': "
    code = "no-trigger"
    if not named.is_empty():
        code = "asks-for-it"
        names = (*named.files, *(c.replace("\\", "") for c in named.commands))
        shown = ", ".join(f"'{name}'" for name in names)
        said += (
            f"it names only what it asks for or points at ({shown}), and a lesson there "
            "would fire on the very thing it asks for; "
        )
    said += "it names no file or command where its mistake is made"
    if isinstance(scope, Note):
        return code, f"{said}, and {scope.detail}; it stays in {subject}"
    hint = "" if code == "asks-for-it" else " (--always imports it as an always-on lesson)"
    return code, f"{said}; it stays in {subject}, which is loaded whole into every session{hint}"


def _vendored(name: str) -> bool:
    """Whether the repo-relative ``name`` lies in a folder of vendored code."""
    return bool(_THIRD_PARTY.intersection(name.split("/")[:-1]))


def _in_one_example(name: str) -> bool:
    """Whether the repo-relative ``name`` lies inside one example or template: in a
    folder below an examples folder (``cookbook/teams/hitl/``), not beside them."""
    folders = name.split("/")[:-1]
    return any(folder in _EXAMPLES for folder in folders[:-1])


def _name(path: Path, root: Path) -> str:
    """``path`` as the user named it, from the repo root (a link keeps its own name)."""
    try:
        return path.relative_to(root).as_posix()
    except ValueError:
        return display(path, root)


def _folder(path: Path, root: Path) -> str:
    """The repo-relative folder the file at ``path`` (as named) applies to; the root for
    a file given from outside the repo."""
    try:
        name = path.absolute().relative_to(root).as_posix()
    except ValueError:
        return ""
    return instruction_folder(name)


def _file_topic(subject: str) -> str:
    name = subject.rsplit("/", 1)[-1]
    return name.removesuffix(".md")


def _without_own_section(text: str) -> str:
    """``text`` less every section lessons wrote there itself."""
    while True:
        start = text.find(SECTION_START)
        end = text.find(SECTION_END, start + 1) if start >= 0 else -1
        if start < 0 or end < 0:
            return text
        text = text[:start] + text[end + len(SECTION_END) :]
