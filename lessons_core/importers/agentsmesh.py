"""``lessons import agentsmesh``: that tool's single-file graph as our one-file-per-lesson store.

The source keeps lessons, topics and triggers in three maps, lessons pointing at trigger
and topic ids. Each lesson keeps its id, rule, rationale, topics, evidence, status,
successor and creation date; its triggers are inlined by kind. Command patterns are
JavaScript regular expressions searched anywhere in the command; ours are RE2 patterns
that get word boundaries at word-character ends, so a translated pattern that would gain
a boundary is wrapped in ``(?:...)`` to keep matching exactly what it matched before.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from lessons_core.errors import InvalidLessonFile, quoted
from lessons_core.importers.command_breadth import runner_or_program
from lessons_core.importers.globs import translate_glob
from lessons_core.importers.jsregex import UntranslatableRegex, translate_js_regex
from lessons_core.importers.plan import ImportPlan, Note, NoteKind, import_bound
from lessons_core.jsonio import load_object
from lessons_core.matching.commands import bounded_regex
from lessons_core.matching.trigger_checks import TriggerProblem, judge_command, judge_keyword
from lessons_core.store.ids import slug
from lessons_core.store.model import DATE_PATTERN, ID_PATTERN, Lesson, Status, Triggers
from lessons_core.store.topics import Topic

FORMAT = "agentsmesh"
VERSIONS = (1, 2)
_KINDS = {"file_glob": "files", "command_pattern": "commands", "keyword": "keywords"}


def plan_agentsmesh(path: Path, root: Path) -> ImportPlan:
    """Read ``path`` (an agentsmesh ``lessons.json``) into a plan for the repo at ``root``;
    nothing is written. A ``path`` in the repo must resolve inside it (``LeavesRepo``)."""
    import_bound(Path(os.path.abspath(path)), root, "file")
    data = load_object(path, limit=None)  # the export the user named, whatever its size
    version = data.get("version")
    if version not in VERSIONS:
        raise InvalidLessonFile(
            path, f"format version {version!r} is not one this import reads (1 or 2)", "version"
        )
    lessons = _section(data, "lessons", path)
    topics = _section(data, "topics", path)
    triggers = _section(data, "triggers", path)
    notes: list[Note] = []
    lesson_ids = _id_map(lessons, "lesson", notes)
    topic_ids = _id_map(topics, "topic", notes)
    planned_topics = tuple(
        Topic(topic_ids[key], value["summary"])
        for key, value in sorted(topics.items())
        if isinstance(value, dict)
        and isinstance(value.get("summary"), str)
        and value["summary"].strip()
    )
    planned = []
    for key, raw in sorted(lessons.items()):
        new_id = lesson_ids[key]
        if not isinstance(raw, dict):
            raise InvalidLessonFile(path, "must be an object", f"lessons.{key}")
        planned.append(
            _lesson(new_id, raw, triggers, lesson_ids, topic_ids, path, key, root, notes)
        )
    planned.sort(key=lambda lesson: lesson.id)
    return ImportPlan(
        str(path),
        FORMAT,
        tuple(planned),
        tuple(sorted(planned_topics, key=lambda topic: topic.id)),
        tuple(notes),
    )


def _section(data: dict[str, Any], key: str, path: Path) -> dict[str, Any]:
    value = data.get(key, {})
    if not isinstance(value, dict):
        raise InvalidLessonFile(path, "must be an object keyed by id", key)
    return value


def _id_map(items: dict[str, Any], what: str, notes: list[Note]) -> dict[str, str]:
    """Source id -> our id: kept when valid, else slugged and made unique (and noted)."""
    taken = {key for key in items if ID_PATTERN.match(key)}
    mapping: dict[str, str] = {}
    for key in sorted(items):
        if ID_PATTERN.match(key):
            mapping[key] = key
            continue
        stem = (slug(key) or what)[:76].rstrip("-") or what
        new, number = stem, 2
        while new in taken:
            new, number = f"{stem}-{number}", number + 1
        taken.add(new)
        mapping[key] = new
        notes.append(
            Note(NoteKind.TRANSLATED, f"{what}-id", new, f"{what} id '{key}' became '{new}'")
        )
    return mapping


def _lesson(
    lesson_id: str,
    raw: dict[str, Any],
    triggers: dict[str, Any],
    lesson_ids: dict[str, str],
    topic_ids: dict[str, str],
    path: Path,
    key: str,
    root: Path,
    notes: list[Note],
) -> Lesson:
    def field(name: str) -> str:
        return f"lessons.{key}.{name}"

    rule = raw.get("rule")
    if not isinstance(rule, str) or not rule.strip():
        raise InvalidLessonFile(path, "must be a non-empty string", field("rule"))
    try:
        status = Status(raw.get("status"))
    except ValueError:
        raise InvalidLessonFile(
            path, "must be active, deprecated or superseded", field("status")
        ) from None
    created = raw.get("createdAt")
    if not isinstance(created, str) or not DATE_PATTERN.match(created[:10]):
        raise InvalidLessonFile(path, "must be an ISO-8601 date", field("createdAt"))
    if len(created) > 10:
        notes.append(
            Note(
                NoteKind.NOT_CARRIED,
                "created-time",
                lesson_id,
                f"createdAt '{created}' kept as the date {created[:10]}; the time is dropped",
            )
        )
    successor = raw.get("supersededBy")
    if successor is not None and not isinstance(successor, str):
        raise InvalidLessonFile(path, "must be a lesson id", field("supersededBy"))
    if successor is not None:
        successor = lesson_ids.get(successor, successor)
        if successor not in lesson_ids.values():
            notes.append(
                Note(
                    NoteKind.WARNING,
                    "successor-missing",
                    lesson_id,
                    f"supersededBy names '{successor}', which is not in the source graph",
                )
            )
    if status is Status.SUPERSEDED and not successor:
        status = Status.DEPRECATED
        notes.append(
            Note(
                NoteKind.NOT_CARRIED,
                "successor-none",
                lesson_id,
                "superseded without naming a successor; imported as deprecated",
            )
        )
    rationale = raw.get("rationale")
    return Lesson(
        id=lesson_id,
        rule=rule.strip(),
        topics=tuple(dict.fromkeys(topic_ids.get(t, slug(t)) for t in _strings(raw, "topics"))),
        triggers=_triggers(lesson_id, _strings(raw, "triggers"), triggers, root, notes),
        created=created[:10],
        status=status,
        rationale=rationale if isinstance(rationale, str) and rationale.strip() else None,
        evidence=tuple(_strings(raw, "evidence")),
        superseded_by=successor,
        # scope 'always' (shown on every task) is an always-on lesson here
        always=raw.get("scope") == "always",
    )


def _strings(raw: dict[str, Any], key: str) -> list[str]:
    value = raw.get(key, [])
    return [item for item in value if isinstance(item, str)] if isinstance(value, list) else []


def _triggers(
    lesson_id: str, refs: list[str], triggers: dict[str, Any], root: Path, notes: list[Note]
) -> Triggers:
    """The lesson's triggers by kind; each one the judgement rejects is noted, not carried."""
    found: dict[str, list[str]] = {"files": [], "commands": [], "keywords": []}
    for ref in refs:
        trigger = triggers.get(ref)
        kind = _KINDS.get(str(trigger.get("kind"))) if isinstance(trigger, dict) else None
        pattern = trigger.get("pattern") if isinstance(trigger, dict) else None
        if kind is None or not isinstance(pattern, str) or not pattern.strip():
            notes.append(
                Note(
                    NoteKind.NOT_CARRIED,
                    "trigger-unknown",
                    lesson_id,
                    f"trigger '{ref}' is missing from the source or has no known kind",
                )
            )
            continue
        if kind == "files":
            found[kind].extend(_glob(lesson_id, pattern, root, notes))
        elif kind == "commands":
            found[kind].extend(_command(lesson_id, pattern, notes))
        else:
            found[kind].extend(_keyword(lesson_id, pattern.strip(), notes))
    return Triggers(**{kind: tuple(dict.fromkeys(values)) for kind, values in found.items()})


def _glob(lesson_id: str, glob: str, root: Path, notes: list[Note]) -> tuple[str, ...]:
    translation = translate_glob(glob, root)
    if translation.lost:
        detail = f"file glob {quoted(glob)} {translation.lost}"
        notes.append(Note(NoteKind.NOT_CARRIED, "glob", lesson_id, detail))
    elif translation.changed:
        notes.append(
            Note(
                NoteKind.TRANSLATED, "glob", lesson_id, f"file glob '{glob}': {translation.changed}"
            )
        )
    return translation.globs


def _keyword(lesson_id: str, keyword: str, notes: list[Note]) -> tuple[str, ...]:
    judged = judge_keyword(keyword)
    if isinstance(judged, TriggerProblem):
        detail = f"keyword {quoted(keyword)} {judged.reason}; {judged.fix}"
        notes.append(Note(NoteKind.NOT_CARRIED, "keyword", lesson_id, detail))
        return ()
    return (keyword,)


def _command(lesson_id: str, pattern: str, notes: list[Note]) -> tuple[str, ...]:
    try:
        translated = translate_js_regex(pattern)
    except UntranslatableRegex as err:
        notes.append(
            Note(NoteKind.NOT_CARRIED, "command", lesson_id, f"command pattern '{pattern}' {err}")
        )
        return ()
    if bounded_regex(translated) != translated:
        translated = f"(?:{translated})"
    judged = judge_command(translated)
    if isinstance(judged, TriggerProblem):
        detail = f"command pattern {quoted(pattern)} {judged.reason}; {judged.fix}"
        notes.append(Note(NoteKind.NOT_CARRIED, "command", lesson_id, detail))
        return ()
    broad = runner_or_program(pattern)
    if broad is not None:  # it would fire on most of the project's commands
        notes.append(Note(NoteKind.NOT_CARRIED, "command-broad", lesson_id, broad))
        return ()
    if translated == f"(?:{pattern})":
        notes.append(
            Note(
                NoteKind.TRANSLATED,
                "command-substring",
                lesson_id,
                f"command pattern '{pattern}' wrapped as '{translated}' so it still matches "
                "inside words, as it did in JavaScript",
            )
        )
    elif translated != pattern:
        notes.append(
            Note(
                NoteKind.TRANSLATED,
                "command-syntax",
                lesson_id,
                f"command pattern '{pattern}' rewritten for RE2 as '{translated}'",
            )
        )
    return (translated,)
