"""What ``lessons validate`` reports: findings with stable codes, and the code table.

Codes never change meaning once published (docs/validate.md lists them); a retired check
leaves its code unused. Families: L0xx schema, L1xx triggers, L2xx duplicates and
contradictions, L3xx use over time (telemetry, and drift from git history), L4xx always-on
lessons, L5xx secrets.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import Any


class Severity(str, enum.Enum):
    """Errors fail the run; warnings fail it with ``--strict``; notices never do."""

    ERROR = "error"
    WARNING = "warning"
    NOTICE = "notice"


@dataclass(frozen=True)
class Code:
    code: str
    severity: Severity
    title: str
    # Found in this machine's telemetry log (L3xx), which no other checkout has: such a
    # finding never changes the exit code of ``--strict`` (only of ``--strict-telemetry``),
    # so a laptop and CI agree on the same commit.
    local: bool = False


_TABLE: tuple[Code, ...] = (
    Code("L001", Severity.ERROR, "lesson file does not parse"),
    Code("L002", Severity.ERROR, "unknown field"),
    Code("L003", Severity.ERROR, "missing required field"),
    Code("L004", Severity.ERROR, "bad status"),
    Code("L005", Severity.ERROR, "invalid field value"),
    Code("L006", Severity.ERROR, "id does not match the file name"),
    Code("L007", Severity.ERROR, "superseded_by names no lesson"),
    Code("L008", Severity.WARNING, "successor is not active"),
    Code("L009", Severity.ERROR, "invalid file glob"),
    Code("L010", Severity.ERROR, "invalid command pattern"),
    Code("L011", Severity.ERROR, "config.json is invalid"),
    Code("L012", Severity.ERROR, "invalid keyword"),
    Code("L101", Severity.WARNING, "file trigger matches no tracked file"),
    Code("L102", Severity.WARNING, "file trigger names a directory"),
    Code("L103", Severity.WARNING, "file trigger is too broad"),
    Code("L104", Severity.WARNING, "command trigger is too broad"),
    Code("L105", Severity.WARNING, "keyword made of common words"),
    Code("L106", Severity.ERROR, "lesson can never be recalled"),
    Code("L107", Severity.WARNING, "command trigger names only an interpreter"),
    Code("L108", Severity.NOTICE, "trigger is held back as broad at recall"),
    Code("L150", Severity.WARNING, "enforced command trigger is broad"),
    Code("L201", Severity.ERROR, "duplicate active rule"),
    Code("L202", Severity.WARNING, "near-duplicate active rule"),
    Code("L203", Severity.WARNING, "many lessons share one trigger set"),
    Code("L204", Severity.WARNING, "active lessons contradict each other"),
    Code("L205", Severity.WARNING, "lesson contradicts the project's instruction file"),
    Code("L206", Severity.NOTICE, "instruction file not compared"),
    Code("L207", Severity.NOTICE, "a folder's instruction file shares its folder's trigger"),
    Code("L208", Severity.NOTICE, "an instruction file's rules share the place it describes"),
    Code("L301", Severity.NOTICE, "never recalled", local=True),
    Code("L302", Severity.WARNING, "shown, then failed anyway", local=True),
    Code("L303", Severity.WARNING, "never held", local=True),
    Code("L304", Severity.NOTICE, "the code it is about changed since"),
    Code("L350", Severity.NOTICE, "enforce or forbid would make it hold", local=True),
    Code("L360", Severity.NOTICE, "the code already breaks its forbid pattern"),
    Code("L401", Severity.WARNING, "always-on lesson does not fit the budget"),
    Code("L402", Severity.WARNING, "always-on lesson could have a precise trigger"),
    Code("L501", Severity.ERROR, "what looks like a secret is committed"),
)
CODES: dict[str, Code] = {entry.code: entry for entry in _TABLE}


@dataclass(frozen=True)
class Finding:
    """One problem in one file. ``file`` is relative to the directory holding .lessons/."""

    code: str
    file: str
    message: str
    fix: str
    lesson_id: str | None = None
    # Text in the file the finding is about (a trigger, a key); the runner turns it into
    # ``line``.
    anchor: str | None = None
    line: int | None = None

    @property
    def severity(self) -> Severity:
        return CODES[self.code].severity

    @property
    def title(self) -> str:
        return CODES[self.code].title

    @property
    def local(self) -> bool:
        """Whether it comes from this machine's telemetry (``Code.local``)."""
        return CODES[self.code].local

    def to_dict(self) -> dict[str, Any]:
        return {
            "code": self.code,
            "severity": self.severity.value,
            "title": self.title,
            "file": self.file,
            "line": self.line,
            "lesson": self.lesson_id,
            "message": self.message,
            "fix": self.fix,
            "telemetry": self.local,
        }
