"""Running every check family over a project and collecting the findings in order."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from dataclasses import dataclass, replace
from pathlib import Path

import orjson

from lessons_core.authoring.repo_files import tracked_files
from lessons_core.errors import InvalidLessonFile
from lessons_core.matching.glob_counts import FileIndex
from lessons_core.store.config import read_config
from lessons_core.store.files import Graph, load_graph
from lessons_core.store.layout import Layout
from lessons_core.telemetry.log import read_log
from lessons_core.validate import (
    always,
    contradictions,
    drift,
    duplicates,
    forbid_today,
    instruction_conflicts,
    schema,
    secrets,
    triggers,
    usage,
)
from lessons_core.validate.context import Context
from lessons_core.validate.findings import Finding, Severity

CHECKS: tuple[Callable[[Context], Iterator[Finding]], ...] = (
    schema.check,
    triggers.check,
    duplicates.check,
    contradictions.check,
    instruction_conflicts.check,
    usage.check,
    drift.check,
    forbid_today.check,
    always.check,
    secrets.check,
)


@dataclass(frozen=True)
class ValidationReport:
    findings: tuple[Finding, ...]
    lessons: int

    def count(self, severity: Severity) -> int:
        return sum(1 for finding in self.findings if finding.severity is severity)

    def failed(self, strict: bool = False, strict_telemetry: bool = False) -> bool:
        """Errors fail; with ``strict`` warnings do too, but those from this machine's
        telemetry only with ``strict_telemetry`` (``Code.local``); notices never."""
        if self.count(Severity.ERROR) > 0:
            return True
        return any(
            finding.severity is Severity.WARNING and (strict_telemetry if finding.local else strict)
            for finding in self.findings
        )


def load_context(
    layout: Layout, graph: Graph | None = None, files: FileIndex | None = None
) -> Context:
    """Read the graph, the config, the repo's files and (if on) the telemetry log."""
    config, problems = read_config(layout.config_path)
    config_errors = tuple(
        InvalidLessonFile(layout.config_path, problem, key, kind=kind)
        for key, problem, kind in problems
    )
    return Context(
        layout=layout,
        graph=graph if graph is not None else load_graph(layout),
        files=files if files is not None else FileIndex(tracked_files(layout.root)),
        config=config,
        config_errors=config_errors,
        telemetry=read_log(layout) if config.telemetry else None,
    )


def validate(layout: Layout, context: Context | None = None) -> ValidationReport:
    """Every finding for the project at ``layout``, sorted by file, line and code."""
    ctx = context or load_context(layout)
    found = [finding for check in CHECKS for finding in check(ctx)]
    lines = _LineFinder(layout.root)
    located = [replace(f, line=lines.find(f.file, f.anchor)) for f in found]
    located.sort(key=lambda f: (f.file, f.line or 0, f.code, f.message))
    return ValidationReport(findings=tuple(located), lessons=len(ctx.graph.lessons))


class _LineFinder:
    """First line of a file holding a finding's anchor (files read once, and only if asked)."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self._lines: dict[str, list[str]] = {}

    def find(self, file: str, anchor: str | None) -> int | None:
        if anchor is None:
            return None
        if file not in self._lines:
            try:
                text = (self.root / file).read_text(encoding="utf-8", errors="replace")
            except OSError:
                text = ""
            self._lines[file] = text.splitlines()
        needle = anchor if anchor.startswith('"') else _json_string(anchor)
        for number, line in enumerate(self._lines[file], 1):
            if needle in line:
                return number
        return None


def _json_string(text: str) -> str:
    """``text`` as a JSON string, as it stands in a file lessons wrote: UTF-8 as is, and a
    lone surrogate (only a hand-written escape can put one in config.json) escaped."""
    try:
        return orjson.dumps(text).decode()
    except TypeError:
        return json.dumps(text)
