"""Planning the import of rule files: one lesson per rule, matched to lessons already there.

A rule whose wording (case and trailing punctuation aside) equals an existing lesson's is
that lesson: its new triggers, topic and source are merged in, exactly as re-adding a
rule with ``lessons add`` does. That is what makes a second import write nothing.
"""

from __future__ import annotations

import os
from pathlib import Path

from lessons_core.authoring import guards
from lessons_core.containment import leaving_part, outside_reason
from lessons_core.errors import quoted
from lessons_core.importers.globs import translate_glob
from lessons_core.importers.markdown_rules import Body, parse_body
from lessons_core.importers.plan import ImportPlan, Note, NoteKind, import_bound
from lessons_core.importers.rule_files import FORMATS, RuleFile, find_rule_files, read_rule_file
from lessons_core.store.files import load_graph
from lessons_core.store.ids import claim_id, slug
from lessons_core.store.layout import Layout
from lessons_core.store.model import Lesson, Triggers, today
from lessons_core.store.topics import Topic

_EVERYTHING = frozenset({"**", "**/*", "*", "**/**"})
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
    existing = list(load_graph(layout).lessons.values())
    plan = _Planner(existing, layout.root)
    for path in find_rule_files(fmt, source):
        subject = _display(path, layout.root)
        leaving = leaving_part(path, bound) if bound is not None else None
        if leaving is not None:
            why = f"not read: {outside_reason(*leaving)}"
            plan.note(NoteKind.NOT_CARRIED, "outside-repo", subject, why)
            continue
        rule_file = read_rule_file(fmt, path, source, subject, plan.notes)
        if rule_file is not None:
            plan.add_file(rule_file, subject)
    return ImportPlan(
        str(source),
        fmt.name,
        tuple(plan.lessons.values()),
        tuple(sorted(plan.topics.values(), key=lambda topic: topic.id)),
        tuple(plan.notes),
    )


class _Planner:
    def __init__(self, existing: list[Lesson], root: Path) -> None:
        self.root = root
        self.by_rule = {guards.normalised_rule(x.rule): x for x in existing}
        self.taken = {x.id for x in existing}
        self.lessons: dict[str, Lesson] = {}
        self.topics: dict[str, Topic] = {}
        self.notes: list[Note] = []

    def note(self, kind: NoteKind, code: str, subject: str, detail: str) -> None:
        self.notes.append(Note(kind, code, subject, detail))

    def add_file(self, rule_file: RuleFile, subject: str) -> None:
        scope = rule_file.scope
        topic = slug(rule_file.topic_name) or "imported"
        if scope.summary:
            self.topics[topic] = Topic(topic, " ".join(scope.summary.split()))
        for key in scope.ignored:
            self.note(NoteKind.NOT_CARRIED, "frontmatter", subject, f"'{key}' has no equivalent")
        unscoped = scope.unscoped
        globs: list[str] = []
        for glob in scope.globs:
            if glob.strip().lstrip("./") in _EVERYTHING:
                unscoped = f"'{glob}' applies to every file"
                continue
            translation = translate_glob(glob, self.root)
            globs.extend(translation.globs)
            if translation.lost:
                self.note(
                    NoteKind.NOT_CARRIED, "glob", subject, f"glob {quoted(glob)} {translation.lost}"
                )
            elif translation.changed:
                self.note(
                    NoteKind.TRANSLATED, "glob", subject, f"glob '{glob}': {translation.changed}"
                )
        if unscoped and not globs:
            self.note(
                NoteKind.NOT_CARRIED,
                "no-file-scope",
                subject,
                f"{unscoped}; imported without file triggers (a prompt sharing their words "
                "can still recall them)",
            )
        triggers = Triggers(files=tuple(dict.fromkeys(globs)))
        for rule, rationale in self._rules(parse_body(rule_file.body), subject):
            self._add_lesson(rule, rationale, topic, triggers, subject)

    def _rules(self, body: Body, subject: str) -> list[tuple[str, str | None]]:
        if body.code_blocks:
            self.note(
                NoteKind.NOT_CARRIED,
                "code-block",
                subject,
                f"{body.code_blocks} code block(s) left out: a rule is one line of text",
            )
        if body.items:
            for paragraph in body.paragraphs:
                self.note(
                    NoteKind.NOT_CARRIED,
                    "paragraph",
                    subject,
                    f"prose beside the list left out: '{_excerpt(paragraph)}'",
                )
            return [(item.rule, item.rationale) for item in body.items if item.rule]
        if body.paragraphs:
            self.note(
                NoteKind.WARNING,
                "prose",
                subject,
                "no bullet list: the whole text became one lesson; split it into rules",
            )
            return [(" ".join(body.paragraphs), None)]
        self.note(NoteKind.NOT_CARRIED, "empty", subject, "no rule text found")
        return []

    def _add_lesson(
        self, rule: str, rationale: str | None, topic: str, triggers: Triggers, subject: str
    ) -> None:
        key = guards.normalised_rule(rule)
        twin = self.by_rule.get(key)
        if twin is not None and not twin.is_active:
            self.note(
                NoteKind.WARNING,
                "matches-inactive",
                twin.id,
                f"the rule is already here as a {twin.status.value} lesson; left as it is",
            )
            return
        again = Lesson(
            id="",
            rule=rule,
            topics=(topic,),
            triggers=triggers,
            created=today(),
            rationale=rationale,
            evidence=(f"import:{subject}",),
        )
        lesson = twin.readded(again) if twin is not None else claim_id(again, topic, self._claim)
        if lesson is None:
            self.note(NoteKind.NOT_CARRIED, "id-exhausted", subject, f"no free id for {rule!r}")
            return
        self.by_rule[key] = lesson
        self.lessons[lesson.id] = lesson

    def _claim(self, lesson: Lesson) -> bool:
        """Reserve ``lesson``'s id in this plan, unless a lesson has it already."""
        if lesson.id in self.taken:
            return False
        self.taken.add(lesson.id)
        return True


def _display(path: Path, root: Path) -> str:
    """``path`` by its name in the repo (a link is named where it is, not where it leads)."""
    for base in (root, root.resolve()):
        try:
            return path.relative_to(base).as_posix()
        except ValueError:
            continue
    return str(path)


def _excerpt(text: str) -> str:
    return text if len(text) <= EXCERPT_CHARS else text[: EXCERPT_CHARS - 1] + "…"
