"""The labelled projects of the adoption evaluation (``lessons eval --import``).

An index file lists the projects; each has a folder beside it holding what was vendored
from the public repository (``files/<path>.vendored``, a suffix so that no harness loads
another project's instruction files while working here), its tracked file list
(``files.txt``) and its labels (``labels.json``)::

    {"projects": [{"dir": "simonw__llm", "repo": "simonw/llm", "language": "Python",
                   "licence": "Apache-2.0", "held_out": false}]}

Labels say what a careful maintainer keeps. They are keyed on the instruction file and a
distinctive fragment of the source sentence, never on the importer's wording::

    {"rules": [{"file": "AGENTS.md", "quote": "Avoid `make typecheck`",
                "commands": ["make typecheck"], "files": [], "not_on": []}],
     "unscoped": [{"file": "AGENTS.md", "quote": "be fully type-safe"}],
     "not_rules": [{"file": "AGENTS.md", "quote": "supporting Python 3.10", "why": "..."}]}

A quote of one or two words (a heading such as ``**Build**``) must be a lesson's whole
text to match it; a longer one may be any run of its words. A rule names where its
mistake is made: example ``commands`` a trigger should fire on
and ``files`` globs its file triggers should stay within; ``not_on`` lists commands it
must not fire on (the command it tells the agent to use); ``negated: true`` marks a
prohibition (a bullet under a "Do not" heading), which a lesson must still state as
one. ``unscoped`` sentences are
rules that name no place; ``not_rules`` must not become lessons at all (descriptions,
set-up steps, link lists, tables, headings).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from lessons_core.errors import LessonsError

RULE = "rule"
UNSCOPED = "unscoped"
NOT_RULE = "not-rule"
_KINDS = {"rules": RULE, "unscoped": UNSCOPED, "not_rules": NOT_RULE}
_LINK = re.compile(r"!?\[([^\]]*)\]\([^)]*\)")
_NOT_WORD = re.compile(r"[^\w]+|_+")
# Contractions spelled out, so "Don't" in a source matches "Do not" in a lesson and a
# prohibition keeps its "not" whichever way it is written.
_CONTRACTIONS = {"can't": "cannot", "won't": "will not", "n't": " not"}
_CONTRACTED = re.compile(r"can't|won't|n't", re.IGNORECASE)


class LabelError(LessonsError):
    """A labels or index file that does not say what the evaluation needs."""


@dataclass(frozen=True)
class Label:
    kind: str
    file: str  # the instruction file, repo-relative
    quote: str
    words: str  # ``quote`` as ``words`` normalises it
    commands: tuple[str, ...] = ()
    files: tuple[str, ...] = ()
    not_on: tuple[str, ...] = ()
    why: str = ""
    # A prohibition: a lesson carrying it must still say "not" (or never, avoid, ...).
    negated: bool = False

    def to_dict(self) -> dict[str, Any]:
        return {"kind": self.kind, "file": self.file, "quote": self.quote}


@dataclass(frozen=True)
class Project:
    dir: Path
    repo: str
    language: str
    licence: str
    held_out: bool
    labels: tuple[Label, ...]

    @property
    def rules(self) -> tuple[Label, ...]:
        return tuple(label for label in self.labels if label.kind == RULE)


def words(text: str) -> str:
    """``text`` as comparable words: link targets dropped, markdown and punctuation made
    spaces, lower case; so a quote matches a lesson however its markup was cleaned."""
    text = _CONTRACTED.sub(lambda m: _CONTRACTIONS[m.group().lower()], text.replace("\u2019", "'"))
    return " ".join(_NOT_WORD.sub(" ", _LINK.sub(r"\1", text)).lower().split())


def read_index(path: Path) -> list[Project]:
    """The projects the index at ``path`` lists, each with its labels."""
    data = _json(path)
    entries = data.get("projects") if isinstance(data, dict) else None
    if not isinstance(entries, list) or not entries:
        raise LabelError(f"{path}: expected {{'projects': [...]}} with at least one project")
    return [_project(path, n, entry) for n, entry in enumerate(entries)]


def _project(index: Path, n: int, entry: Any) -> Project:
    where = f"{index}: projects[{n}]"
    if not isinstance(entry, dict):
        raise LabelError(f"{where} is not an object")
    folder = index.parent / _text(entry, "dir", where)
    if not (folder / "files.txt").is_file():
        raise LabelError(f"{where}: {folder} has no files.txt (the tracked file list)")
    held_out = entry.get("held_out", False)
    if not isinstance(held_out, bool):
        raise LabelError(f"{where}: 'held_out' must be true or false")
    return Project(
        dir=folder,
        repo=_text(entry, "repo", where),
        language=_text(entry, "language", where),
        licence=_text(entry, "licence", where),
        held_out=held_out,
        labels=read_labels(folder / "labels.json"),
    )


def read_labels(path: Path) -> tuple[Label, ...]:
    data = _json(path)
    if not isinstance(data, dict) or not set(data) <= set(_KINDS):
        raise LabelError(f"{path}: expected an object with keys among {', '.join(_KINDS)}")
    labels: list[Label] = []
    for key, kind in _KINDS.items():
        items = data.get(key, [])
        if not isinstance(items, list):
            raise LabelError(f"{path}: '{key}' must be a list")
        labels.extend(_label(kind, item, f"{path}: {key}[{n}]") for n, item in enumerate(items))
    return tuple(labels)


def _label(kind: str, item: Any, where: str) -> Label:
    if not isinstance(item, dict):
        raise LabelError(f"{where} is not an object")
    quote = _text(item, "quote", where)
    if not words(quote):
        raise LabelError(f"{where}: the quote has no words to find")
    label = Label(
        kind=kind,
        file=_text(item, "file", where),
        quote=quote,
        words=words(quote),
        commands=_texts(item, "commands", where),
        files=_texts(item, "files", where),
        not_on=_texts(item, "not_on", where),
        why=str(item.get("why", "")),
        negated=item.get("negated", False) is True,
    )
    if kind == RULE and not (label.commands or label.files):
        raise LabelError(f"{where}: a rule names where it applies ('commands' or 'files')")
    return label


def _json(path: Path) -> Any:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except OSError as err:
        raise LabelError(f"{path}: cannot read it ({err.strerror})") from None
    except ValueError as err:
        raise LabelError(f"{path}: not JSON ({err})") from None


def _text(item: dict[str, Any], key: str, where: str) -> str:
    value = item.get(key)
    if not isinstance(value, str) or not value.strip():
        raise LabelError(f"{where}: '{key}' must be a non-empty string")
    return value


def _texts(item: dict[str, Any], key: str, where: str) -> tuple[str, ...]:
    value = item.get(key, [])
    if not isinstance(value, list) or not all(isinstance(v, str) and v for v in value):
        raise LabelError(f"{where}: '{key}' must be a list of non-empty strings")
    return tuple(value)
