"""Optional topic summaries: one small JSON file each under ``.lessons/topics/``.

A topic needs no file to exist (a lesson naming it is enough); the file only says what
the topic is about, for ``lessons topics`` and exported documents.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from lessons_core.errors import InvalidLessonFile
from lessons_core.jsonio import load_object
from lessons_core.store.layout import Layout
from lessons_core.store.model import ID_PATTERN


@dataclass(frozen=True)
class Topic:
    id: str
    summary: str

    def to_dict(self) -> dict[str, Any]:
        return {"id": self.id, "summary": self.summary}

    @classmethod
    def from_dict(cls, data: dict[str, Any], source: Path) -> Topic:
        unknown = sorted(set(data) - {"id", "summary"})
        if unknown:
            raise InvalidLessonFile(source, f"unknown field(s) {', '.join(unknown)}", unknown[0])
        topic_id, summary = data.get("id"), data.get("summary")
        if not isinstance(topic_id, str) or not ID_PATTERN.match(topic_id):
            raise InvalidLessonFile(source, "must be a lowercase, dash-separated id", "id")
        if topic_id != source.stem:
            raise InvalidLessonFile(source, f"id '{topic_id}' does not match the file name", "id")
        if not isinstance(summary, str) or not summary.strip():
            raise InvalidLessonFile(source, "must be a non-empty string", "summary")
        return cls(id=topic_id, summary=summary)


def topic_path(layout: Layout, topic_id: str) -> Path:
    return layout.topics_dir / f"{topic_id}.json"


def read_topic(path: Path) -> Topic:
    return Topic.from_dict(load_object(path), path)


def load_topics(layout: Layout) -> dict[str, Topic]:
    """Every topic file that parses, by id (a broken one is skipped, never rewritten)."""
    try:
        names = sorted(os.listdir(layout.topics_dir))
    except FileNotFoundError:
        return {}
    topics: dict[str, Topic] = {}
    for name in names:
        if not name.endswith(".json") or name.startswith("."):
            continue
        try:
            topic = read_topic(layout.topics_dir / name)
        except (InvalidLessonFile, OSError):
            continue
        topics[topic.id] = topic
    return topics
