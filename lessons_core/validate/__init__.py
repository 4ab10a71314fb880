"""``lessons validate``: find dead, broad, duplicated, broken or useless lessons.

One module per family of checks (schema, triggers, duplicates, usage); each yields
``Finding`` records with a stable code (see ``findings.CODES`` and docs/validate.md).
"""

from lessons_core.validate.findings import CODES, Finding, Severity
from lessons_core.validate.runner import ValidationReport, load_context, validate

__all__ = ["CODES", "Finding", "Severity", "ValidationReport", "load_context", "validate"]
