"""``lessons check``: the forbid patterns run over what a change adds, and its output.

Output for people (text), GitHub Actions (``::error`` annotations on the lines) and
programs (JSON). A rule is lesson text from a commit, and a file name and a matched text
come from the change: rules are printed inert (``lessons_core.recall.printable.inert``: an agent
that runs a pre-commit hook reads this output), names and matches with every unprintable
character escaped (``visible``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from lessons_core.check.diff_lines import DiffRange, added_lines, require_repo, resolve_range
from lessons_core.check.forbidden import Breach, breaches, forbid_rules
from lessons_core.git import prefix
from lessons_core.recall.printable import inert, visible
from lessons_core.store.files import load_graph
from lessons_core.store.layout import Layout
from lessons_core.workflow_commands import annotation

FORMATS = ("text", "github")


@dataclass(frozen=True)
class CheckReport:
    breaches: tuple[Breach, ...]
    rules: int  # active lessons with a forbid pattern
    lines: int  # added lines read
    commits: DiffRange | None  # None: the staged changes
    prefix: str  # the project's folder inside the git checkout ("" at its top)

    @property
    def what(self) -> str:
        if self.commits is None:
            return "the staged changes"
        return f"{self.commits.given}, from its merge base {self.commits.base[:12]}"


def check_changes(layout: Layout, given: str | None = None) -> CheckReport:
    """Run every forbid pattern over the lines the staged changes add (``given`` None)
    or the range ``given`` adds. ``GitError`` outside git, or for a range that does not
    resolve."""
    root = layout.root
    require_repo(root)
    commits = None if given is None else resolve_range(root, given)
    rules = forbid_rules(load_graph(layout))
    lines = list(added_lines(root, commits)) if rules else []
    return CheckReport(tuple(breaches(rules, lines)), len(rules), len(lines), commits, prefix(root))


def _message(breach: Breach) -> str:
    return f"{inert(breach.lesson.rule)} (matched: '{visible(breach.matched)}')"


def as_text(report: CheckReport) -> str:
    lines = [
        f"{visible(b.path)}:{b.line}: {_message(b)} [lesson {visible(b.lesson.id)}]"
        for b in report.breaches
    ]
    lines.append(summary_line(report))
    return "\n".join(lines)


def as_github(report: CheckReport) -> str:
    lines = [
        annotation(
            "error",
            _message(b),
            file=visible(report.prefix + b.path),
            line=b.line,
            title=f"lessons {visible(b.lesson.id)}",
        )
        for b in report.breaches
    ]
    lines.append(summary_line(report))
    return "\n".join(lines)


def as_json(report: CheckReport) -> dict[str, Any]:
    commits = report.commits
    return {
        "ok": not report.breaches,
        "checked": "staged" if commits is None else "range",
        "range": None
        if commits is None
        else {"given": commits.given, "base": commits.base, "head": commits.head},
        "rules": report.rules,
        "lines": report.lines,
        "findings": [
            {
                "file": report.prefix + b.path,
                "line": b.line,
                "lesson": b.lesson.id,
                "rule": b.lesson.rule,
                "forbid": b.lesson.forbid,
                "matched": b.matched,
            }
            for b in report.breaches
        ],
    }


def summary_line(report: CheckReport) -> str:
    files = len({b.path for b in report.breaches})
    found = (
        f"{_plural(len(report.breaches), 'finding')} in {_plural(files, 'file')}"
        if report.breaches
        else "no findings"
    )
    return (
        f"lessons check: {found}; {_plural(report.rules, 'forbid rule')} over "
        f"{_plural(report.lines, 'added line')} of {report.what}"
    )


def _plural(count: int, word: str) -> str:
    return f"{count} {word}{'' if count == 1 else 's'}"
