"""Validate output for people (text), programs (JSON) and GitHub Actions (annotations).

A finding can quote lesson text (a trigger, another rule) and names a file whose name a
commit chose: text and annotations write every unprintable character in them as its
escape (``lessons_core.recall.printable``), and JSON is printed by ``lessons_cli.output``.
"""

from __future__ import annotations

from typing import Any

from lessons_core.recall.printable import visible
from lessons_core.validate.findings import Finding, Severity
from lessons_core.validate.runner import ValidationReport
from lessons_core.workflow_commands import annotation

FORMATS = ("text", "json", "github")


def summary(report: ValidationReport) -> dict[str, int]:
    return {
        "lessons": report.lessons,
        "errors": report.count(Severity.ERROR),
        "warnings": report.count(Severity.WARNING),
        "notices": report.count(Severity.NOTICE),
    }


def summary_line(report: ValidationReport) -> str:
    counts = summary(report)
    parts = [_plural(counts[key], key[:-1]) for key in ("errors", "warnings", "notices")]
    local = sum(1 for f in report.findings if f.local and f.severity is Severity.WARNING)
    if local:
        parts[1] += (
            f" ({local} from this machine's telemetry: only --strict-telemetry fails on them)"
        )
    return f"{_plural(report.lessons, 'lesson')} checked: {', '.join(parts)}"


def as_text(report: ValidationReport) -> str:
    lines: list[str] = []
    for finding in report.findings:
        where = visible(finding.file) + (f":{finding.line}" if finding.line else "")
        message = visible(finding.message)
        lines.append(f"{where}: {finding.code} {finding.severity.value}: {message}")
        lines.append(f"  fix: {visible(finding.fix)}")
    lines.append(summary_line(report))
    return "\n".join(lines)


def as_json(
    report: ValidationReport, strict: bool = False, strict_telemetry: bool = False
) -> dict[str, Any]:
    return {
        "ok": not report.failed(strict, strict_telemetry),
        "summary": summary(report),
        "findings": [finding.to_dict() for finding in report.findings],
    }


def as_github(report: ValidationReport, prefix: str = "") -> str:
    """Workflow commands; ``prefix`` is the project's folder inside the checkout."""
    lines = [_annotation(finding, prefix) for finding in report.findings]
    lines.append(summary_line(report))
    return "\n".join(lines)


def _annotation(finding: Finding, prefix: str) -> str:
    return annotation(
        finding.severity.value,
        f"{visible(finding.message)}\nfix: {visible(finding.fix)}",
        file=visible(prefix + finding.file),
        line=finding.line or None,
        title=f"{finding.code} {finding.title}",
    )


def _plural(count: int, word: str) -> str:
    return f"{count} {word}{'' if count == 1 else 's'}"
