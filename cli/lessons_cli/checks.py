"""What ``lessons doctor`` reports: one ``Check`` a thing it looked at, and its status.

Its own module because both the doctor and the harness switches
(``lessons_cli.harnesses.switches``) make checks.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

OK = "ok"
WARN = "warn"
FAIL = "fail"


@dataclass(frozen=True)
class Check:
    """One thing looked at. ``status``: ok, warn (works, but worth a look) or fail (a hook
    or command would silently not work); ``fix`` says what to do when not ok."""

    subject: str  # "store", "index", "launcher", or a harness name
    status: str
    detail: str
    fix: str = ""

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)
