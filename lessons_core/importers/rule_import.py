"""Planning the import of rule files: one lesson per rule, matched to lessons already there.

A rule file's bullets and prose are judged as an instruction file's are
(``instruction_rules.section_rules``, each under the heading above it): descriptions,
examples, lead-ins and set-up steps stay in the file, reported with why. A glob of the
file that matches no tracked file is reported and not written: it could never fire.

A rule whose wording (case and trailing punctuation aside) equals an existing lesson's is
that lesson: its new triggers, topic and source are merged in, exactly as re-adding a
rule with ``lessons add`` does. That is what makes a second import write nothing.

A rule without file scope gets the triggers its own words name where its mistake is made
(``importers.rule_triggers``); one naming nothing becomes an always-on lesson when its
source applied it to every request, within ``always_max_tokens``; any other is not
carried, with the reason, since a lesson without a trigger could never be recalled
(``lessons validate`` L106). A rule file in a folder's own tool folder
(``docs/.cursor/rules/x.mdc``) applies to that folder: its globs are read from there, and
one without globs is scoped to the folder, never to every request of the repo.
"""

from __future__ import annotations

import os
import posixpath
import re
from collections import Counter
from pathlib import Path

from lessons_core.authoring import guards
from lessons_core.authoring.repo_files import tracked_files
from lessons_core.authoring.secrets import find_secrets
from lessons_core.containment import leaving_part, outside_reason
from lessons_core.delivery.always import VIA, fit_hits
from lessons_core.errors import quoted
from lessons_core.importers.described_places import about_components, content_kinds, home_below
from lessons_core.importers.globs import translate_glob
from lessons_core.importers.instruction_rules import Found, section_rules
from lessons_core.importers.markdown_rules import parse_body, sections
from lessons_core.importers.mentions import Mentions
from lessons_core.importers.normative import Left
from lessons_core.importers.plan import ImportPlan, Note, NoteKind, import_bound
from lessons_core.importers.rule_files import FORMATS, RuleFile, find_rule_files, read_rule_file
from lessons_core.importers.rule_triggers import about_git_work, rule_triggers
from lessons_core.matching.glob_counts import FileIndex
from lessons_core.matching.globs import compile_glob
from lessons_core.matching.thresholds import BROAD_GLOB_SHARE
from lessons_core.matching.trigger_checks import glob_problem
from lessons_core.recall.types import Hit
from lessons_core.store.config import read_config
from lessons_core.store.files import load_graph
from lessons_core.store.ids import claim_id, slug
from lessons_core.store.layout import Layout
from lessons_core.store.model import Lesson, Triggers, today
from lessons_core.store.topics import Topic

_EVERYTHING = frozenset({"**", "**/*", "*", "**/**"})
_GIT_WORK_LEFT = (
    "it speaks of git or pull-request work, which no edit of the file's globs shows, and "
    "names no command to fire on; it stays in the file"
)
# Pages of prose: a file's globs may add them to its code's ("**/*.ts, **/*.md") so that
# its rules come with the code samples of the docs too.
_PROSE = (".md", ".mdx", ".markdown", ".rst", ".txt", ".adoc")
# A rule that speaks of prose, and so of those pages.
_ABOUT_PROSE = re.compile(
    r"\b(?:docs?|documentation|markdown|mdx|readme|prose|pages?|comments?|docstrings?)\b", re.I
)
_TOOL_FOLDERS = frozenset({".cursor", ".github", ".kiro", ".claude"})
EXCERPT_CHARS = 80


def plan_rule_files(layout: Layout, format_name: str, source: Path | None = None) -> ImportPlan:
    """Plan the import of ``format_name``'s files under ``source`` (default: the format's
    folder at the repo root).

    A source in the repo must stay in it (a link out is refused by name, ``LeavesRepo``);
    so must each file found below it, and one that leads out is not read, but reported
    as not carried. A folder named outside the repo keeps its files to itself the same way.
    """
    fmt = FORMATS[format_name]
    source = Path(os.path.abspath(source or layout.root / fmt.default_dir))
    bound = import_bound(source, layout.root, "folder or file")
    plan = Planner(layout)
    for path in find_rule_files(fmt, source):
        subject = display(path, layout.root)
        leaving = leaving_part(path, bound) if bound is not None else None
        if leaving is not None:
            why = f"not read: {outside_reason(*leaving)}"
            plan.note(NoteKind.NOT_CARRIED, "outside-repo", subject, why)
            continue
        rule_file = read_rule_file(fmt, path, source, subject, plan.notes)
        if rule_file is not None:
            plan.add_file(rule_file, subject)
    return plan.finish(str(source), fmt.name)


class Planner:
    """The lessons, topics and notes of one import, as they are being planned."""

    def __init__(self, layout: Layout) -> None:
        self.layout = layout
        self.root = layout.root
        self.existing = list(load_graph(layout).lessons.values())
        self.by_rule = {guards.normalised_rule(x.rule): x for x in self.existing}
        self.taken = {x.id for x in self.existing}
        self.lessons: dict[str, Lesson] = {}
        self.topics: dict[str, Topic] = {}
        self.notes: list[Note] = []
        self.sources: dict[str, str] = {}  # lesson id -> the file its rule came from
        self.carried: dict[str, Note] = {}  # lesson id -> how a rule without scope came in
        self.mentions = Mentions(layout.root, FileIndex(tracked_files(layout.root)))

    def finish(self, source: str, format_name: str) -> ImportPlan:
        """The plan, once the always-on lessons that would not fit are taken out."""
        self._fit_always()
        self.notes += [note for key, note in self.carried.items() if key in self.lessons]
        return ImportPlan(
            source,
            format_name,
            tuple(self.lessons.values()),
            tuple(sorted(self.topics.values(), key=lambda topic: topic.id)),
            tuple(self.notes),
        )

    def note(self, kind: NoteKind, code: str, subject: str, detail: str) -> None:
        self.notes.append(Note(kind, code, subject, detail))

    def folder_scope(self, folder: str) -> tuple[str, ...] | Note:
        """The file triggers of ``folder``, where a nested instruction or rule file applies:
        its source files, or its documentation pages, when they are most of what it holds
        (``content_kinds``: its rules are about its code or its pages, not its fonts,
        fixtures and images; its test data not counted), in the folder below it holding
        nearly all of them if one does (``home_below``), else ``folder/**``, or, when that
        would match most of the repo, its files of the commonest kind that does not; a
        note saying why when none will do."""
        files = self.mentions.files
        inside = [path for path in files.paths if path.startswith(folder + "/")]
        # its test data (pnpr's 418 fixture files beside 61 Rust sources) is not its own
        own = [path for path in inside if not _TEST_DATA.intersection(path.split("/"))]
        kinds = Counter(posixpath.splitext(path)[1] for path in own)
        exts = content_kinds(kinds)
        code_files = [path for path in own if posixpath.splitext(path)[1] in exts]
        home = f"{folder}/{home_below(code_files, folder + '/')}".rstrip("/")
        # the kinds its code home holds ("pnpr/client/"'s few TypeScript files stay out)
        globs = [f"{home}/**/*{ext}" for ext in exts]
        code = tuple(glob for glob in globs if self.files_matching(glob))
        if code and all(self._fits(glob) for glob in code):
            return code
        ordered = [f"{folder}/**/*{ext}" for ext, _ in kinds.most_common() if ext]
        for glob in [f"{folder}/**", *ordered]:
            if self._fits(glob):
                return (glob,)
        why = f"no file trigger for {folder}/ passes 'lessons validate' ({len(inside)} files)"
        return Note(NoteKind.NOT_CARRIED, "folder-scope", folder, why)

    def files_matching(self, glob: str) -> int:
        """How many of the repo's tracked files ``glob`` matches."""
        return self.mentions.files.count(compile_glob(glob))

    def _fits(self, glob: str) -> bool:
        return glob_problem(glob, self.root, self.mentions.files, BROAD_GLOB_SHARE) is None

    def add_file(self, rule_file: RuleFile, subject: str) -> None:
        scope = rule_file.scope
        topic = slug(rule_file.topic_name) or "imported"
        if scope.summary:
            self.topics[topic] = Topic(topic, " ".join(scope.summary.split()))
        for key in scope.ignored:
            self.note(NoteKind.NOT_CARRIED, "frontmatter", subject, f"'{key}' has no equivalent")
        unscoped, always = scope.unscoped, scope.always
        globs: list[str] = []
        folder = nested_folder(subject)
        if folder and not scope.globs:
            nested = self.folder_scope(folder)
            if isinstance(nested, tuple):  # its folder, not every request of the repo
                shown = ", ".join(nested)
                why = f"{subject} applies to {folder}/, so its rules are scoped to it: {shown}"
                self.note(NoteKind.TRANSLATED, "folder-trigger", subject, why)
                globs, unscoped, always = list(nested), None, False
        # A nested tool folder's globs are read from the folder it sits in.
        written = [f"{folder}/{g.strip().lstrip('./')}" for g in scope.globs] if folder else []
        for glob in written or scope.globs:
            if glob.strip().lstrip("./") in _EVERYTHING:
                unscoped, always = f"'{glob}' applied the rules to every file", True
                continue
            translation = translate_glob(glob, self.root)
            # (one holding a credential is left to the guards, which refuse it unshown)
            dead = [
                g
                for g in translation.globs
                if not self.files_matching(g) and not find_secrets({"glob": g})
            ]
            globs.extend(g for g in translation.globs if g not in dead)
            if dead:
                # a trigger on files the repo does not have could never fire (L101)
                why = f"glob {quoted(glob)} matches no file git tracks: {', '.join(dead)}"
                self.note(NoteKind.NOT_CARRIED, "glob", subject, why)
            elif translation.lost:
                self.note(
                    NoteKind.NOT_CARRIED, "glob", subject, f"glob {quoted(glob)} {translation.lost}"
                )
            elif translation.changed:
                self.note(
                    NoteKind.TRANSLATED, "glob", subject, f"glob '{glob}': {translation.changed}"
                )
        if scope.globs and not globs and not unscoped:
            # Every glob the source named was lost: the rules keep no scope of their own, so
            # they are triggered by what they name or not carried, never written without a
            # trigger (validate would report them as L106).
            unscoped = "none of its globs can select a file"
        rules = self._rules(rule_file.body, subject)
        if globs or not unscoped:
            for rule, rationale in rules:
                # A command is run from anywhere: a rule naming one ("Write descriptive
                # commit messages", "Never run `x`") fires on it, not on the file's globs.
                own = rule_triggers(self.mentions, rule, folder)
                if not own.commands and about_git_work(rule):
                    why = f"'{excerpt(rule)}': {_GIT_WORK_LEFT}"
                    self.note(NoteKind.NOT_CARRIED, "no-trigger", subject, why)
                    continue
                files = globs_for_rule(globs, rule)
                triggers = own if own.commands else Triggers(files=tuple(dict.fromkeys(files)))
                self.add_lesson(rule, rationale, topic, triggers, subject)
            return
        for rule, rationale in rules:
            self.add_unscoped(rule, rationale, topic, subject, always, unscoped)

    def add_unscoped(
        self,
        rule: str,
        rationale: str | None,
        topic: str,
        subject: str,
        always: bool,
        why: str,
        hint: str = "or add it with 'lessons add RULE --trigger-file GLOB'",
        folder: str = "",
    ) -> bool:
        """A rule with no file scope from its source: triggered by what it names (its
        paths read in ``folder``, "" for the root), else always-on when ``always``, else
        not carried (``why`` says what the source did); True when it became a lesson."""
        triggers = rule_triggers(self.mentions, rule, folder)
        if triggers.is_empty() and not always:
            self.note(
                NoteKind.NOT_CARRIED,
                "no-trigger",
                subject,
                f"'{excerpt(rule)}': {why}, and it names no file or command of the repo "
                f"to recall it by; it stays where it is ({hint})",
            )
            return False
        lesson = self.add_lesson(rule, rationale, topic, triggers, subject, triggers.is_empty())
        if lesson is None:
            return False
        named = ", ".join((*triggers.files, *triggers.commands))
        carried = (
            f"imported with the triggers it names: {named}"
            if named
            else "imported as an always-on lesson (shown at session start)"
        )
        self.carried[lesson.id] = Note(
            NoteKind.TRANSLATED, "no-file-scope", subject, f"'{excerpt(rule)}': {why}; {carried}"
        )
        return True

    def _fit_always(self) -> None:
        """Take out the new always-on lessons that ``always_max_tokens`` leaves out:
        ``lessons validate`` would flag them (L401), and the agent would never see them."""
        budget = read_config(self.layout.config_path)[0].always_max_tokens
        already = {x.id for x in self.existing if x.always and x.is_active}
        final = {x.id: x for x in self.existing}
        final.update(self.lessons)
        always = sorted(
            (x for x in final.values() if x.always and x.is_active), key=lambda x: (x.created, x.id)
        )
        hits = [Hit(x.id, x.rule, VIA, "", (), x.gate) for x in always]
        shown = set(fit_hits(hits, budget).shown) if budget > 0 else set()
        for lesson in always:
            if lesson.id in shown or lesson.id in already or lesson.id not in self.lessons:
                continue
            del self.lessons[lesson.id]
            self.note(
                NoteKind.NOT_CARRIED,
                "always-budget",
                self.sources.get(lesson.id, lesson.id),
                f"'{excerpt(lesson.rule)}': its source applied it to every request, but "
                f"always-on lessons are limited to always_max_tokens ({budget}) and it does "
                "not fit; it stays where it is (raise always_max_tokens in "
                ".lessons/config.json and import again, or add it with a trigger)",
            )

    def judged(self, text: str, first: str, subject: str) -> list[tuple[str, Found]]:
        """Each rule of the Markdown ``text`` with the heading above it (``first`` above
        the text before any), judged in its section (``instruction_rules``); every
        heading, code block and piece that is no rule is noted with why."""
        rules: list[tuple[str, Found]] = []
        found_sections = sections(text, first)
        if len(found_sections) > 1:
            headings = f"{len(found_sections) - 1} heading(s): {Left.HEADING.reason}"
            self.note(NoteKind.NOT_CARRIED, Left.HEADING.code, subject, headings)
        for heading, section in found_sections:
            if not section.strip():
                continue
            body = parse_body(section)
            if body.code_blocks:
                why = f"{body.code_blocks} code block(s) under '{heading}': {Left.CODE.reason}"
                self.note(NoteKind.NOT_CARRIED, Left.CODE.code, subject, why)
            for found in section_rules(heading, body):
                if found.left is None:
                    rules.append((heading, found))
                    continue
                detail = f"'{excerpt(found.text)}' (under '{heading}'): {found.left.reason}"
                self.note(NoteKind.NOT_CARRIED, found.left.code, subject, detail)
        return rules

    def _rules(self, text: str, subject: str) -> list[tuple[str, str | None]]:
        """The rules of a rule file's body, judged as an instruction file's are."""
        if not text.strip():
            self.note(NoteKind.NOT_CARRIED, "empty", subject, "no rule text found")
        judged = self.judged(text, posixpath.basename(subject), subject)
        return [(found.text, found.rationale) for _heading, found in judged]

    def add_lesson(
        self,
        rule: str,
        rationale: str | None,
        topic: str,
        triggers: Triggers,
        subject: str,
        always: bool = False,
    ) -> Lesson | None:
        """Plan the lesson of ``rule`` (merged into its twin if there is one), or note why
        not (None)."""
        key = guards.normalised_rule(rule)
        twin = self.by_rule.get(key) or self._near_twin(rule, subject)
        if twin is not None and not twin.is_active:
            self.note(
                NoteKind.WARNING,
                "matches-inactive",
                twin.id,
                f"the rule is already here as a {twin.status.value} lesson; left as it is",
            )
            return None
        again = Lesson(
            id="",
            rule=rule,
            topics=(topic,),
            triggers=triggers,
            created=today(),
            rationale=rationale,
            evidence=(f"import:{subject}",),
            always=always,
        )
        lesson = twin.readded(again) if twin is not None else claim_id(again, topic, self._claim)
        if lesson is None:
            self.note(NoteKind.NOT_CARRIED, "id-exhausted", subject, f"no free id for {rule!r}")
            return None
        self.by_rule[key] = lesson
        self.lessons[lesson.id] = lesson
        self.sources.setdefault(lesson.id, subject)
        return lesson

    def _near_twin(self, rule: str, subject: str) -> Lesson | None:
        """The lesson planned in this import, or already in the store, that ``rule``
        rewords, as validate's L202 judges one ("Commit using Conventional Commits." and,
        further down the same file, "Use Conventional Commits."; "Import `x` for
        rendering" in one rule file and "... for rendering utilities" in another): one
        rule, so one lesson, with a note; its triggers join the twin's."""
        planned = self.lessons.values()
        kept = [x for x in self.existing if x.id not in self.lessons]
        found = guards.find_near_duplicate(rule, [*planned, *kept])
        if found is None:
            return None
        twin, score = found
        detail = f"{excerpt(rule)!r} is {score:.0%} like the rule of {twin.id}: merged into it"
        self.note(NoteKind.TRANSLATED, "near-duplicate-merged", subject, detail)
        return twin

    def _claim(self, lesson: Lesson) -> bool:
        """Reserve ``lesson``'s id in this plan, unless a lesson has it already."""
        if lesson.id in self.taken:
            return False
        self.taken.add(lesson.id)
        return True


def nested_folder(subject: str) -> str:
    """The folder a rule file (repo-relative ``subject``) in a nested tool folder applies
    to: ``docs`` for ``docs/.cursor/rules/x.mdc``; "" at the root or outside the repo."""
    parts = subject.split("/")
    tool = next((i for i, part in enumerate(parts) if part in _TOOL_FOLDERS), 0)
    return "/".join(parts[:tool]) if not subject.startswith("/") else ""


def display(path: Path, root: Path) -> str:
    """``path`` by its name in the repo (a link is named where it is, not where it leads)."""
    for base in (root, root.resolve()):
        try:
            return path.relative_to(base).as_posix()
        except ValueError:
            continue
    return str(path)


def excerpt(text: str) -> str:
    return text if len(text) <= EXCERPT_CHARS else text[: EXCERPT_CHARS - 1] + "…"


def globs_for_rule(globs: list[str], rule: str) -> list[str]:
    """The globs of a rule file, or of a nested instruction file's folder, that ``rule``
    is about: a rule on code ("AVOID
    destructuring nullish properties") is about the file's code, not the prose pages its
    globs add to it, unless it speaks of prose; a rule on React components ("Prefer
    function components") is about its JSX files, where it has some."""
    code = [glob for glob in globs if not glob.endswith(_PROSE)]
    if code and len(code) < len(globs) and not _ABOUT_PROSE.search(rule):
        globs = code
    jsx = [glob for glob in globs if glob.endswith((".tsx", ".jsx"))]
    return jsx if jsx and about_components(rule) else globs


# Folders of test data: the fixtures and recorded outputs a folder's tests read.
_TEST_DATA = frozenset(
    "fixtures .fixtures __fixtures__ testdata test-data __snapshots__ snapshots".split()
)
