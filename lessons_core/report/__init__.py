"""``lessons report --html``: one self-contained page for people who would rather look.

``data`` gathers the figures (topics, tree coverage, findings, telemetry), ``charts``
draws small inline SVG charts, ``page`` writes the HTML. No script, no external asset.
"""

from lessons_core.report.data import ReportData, gather
from lessons_core.report.page import render_page

__all__ = ["ReportData", "gather", "render_page"]
