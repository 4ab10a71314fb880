"""Small inline SVG charts: horizontal bars, a column chart over days, a share bar.

Pure strings, no script: each bar carries a <title> so hovering shows the exact figure.
Every label passes through ``escape``; lesson ids and topics are project content.
"""

from __future__ import annotations

import html
from collections.abc import Sequence

from lessons_core.recall.printable import visible
from lessons_core.telemetry.stats import DayCount

BAR_COLOUR = "#3b6ea8"
SOFT_COLOUR = "#b9cde4"
WARN_COLOUR = "#c0504d"
ROW = 22
LABEL_WIDTH = 260
BAR_WIDTH = 360


def escape(text: str) -> str:
    """Project content as HTML text: markup escaped, and every unprintable character
    written as its escape (a bidi override would reorder what the page shows)."""
    return html.escape(visible(text))


def hbar_chart(
    items: Sequence[tuple[str, int]], title: str, colour: str = BAR_COLOUR, unit: str = ""
) -> str:
    """One labelled bar per item, longest first as given."""
    if not items:
        return f'<p class="empty">{escape(title)}: nothing to show.</p>'
    peak = max(value for _, value in items) or 1
    height = ROW * len(items) + 8
    width = LABEL_WIDTH + BAR_WIDTH + 60
    rows = []
    for index, (label, value) in enumerate(items):
        y = 4 + index * ROW
        length = max(2.0, BAR_WIDTH * value / peak)
        shown = label if len(label) <= 38 else label[:37] + "…"
        rows.append(
            f"<g><title>{escape(label)}: {value}{escape(unit)}</title>"
            f'<text x="{LABEL_WIDTH - 8}" y="{y + 15}" text-anchor="end">{escape(shown)}</text>'
            f'<rect x="{LABEL_WIDTH}" y="{y + 3}" width="{length:.1f}" height="{ROW - 6}" '
            f'rx="2" fill="{colour}"/>'
            f'<text x="{LABEL_WIDTH + length + 6:.1f}" y="{y + 15}">{value}</text></g>'
        )
    return (
        f'<svg class="chart" role="img" aria-label="{escape(title)}" width="{width}" '
        f'height="{height}" viewBox="0 0 {width} {height}" xmlns="http://www.w3.org/2000/svg">'
        + "".join(rows)
        + "</svg>"
    )


def day_chart(days: Sequence[DayCount], title: str) -> str:
    """Recalls per day: a pale column for all recalls, a dark one for delivering recalls."""
    if not days:
        return f'<p class="empty">{escape(title)}: nothing to show.</p>'
    width, height, base = 640, 200, 170
    peak = max(day.recalls for day in days) or 1
    step = (width - 60) / len(days)
    column = max(2.0, step * 0.8)
    parts = [
        f'<line x1="50" y1="{base}" x2="{width - 5}" y2="{base}" stroke="#888"/>',
        f'<text x="44" y="{base - 140 + 4}" text-anchor="end">{peak}</text>',
        f'<text x="44" y="{base + 4}" text-anchor="end">0</text>',
    ]
    for index, day in enumerate(days):
        x = 55 + index * step
        total = 140 * day.recalls / peak
        delivering = 140 * day.delivering / peak
        parts.append(
            f"<g><title>{escape(day.day)}: {day.recalls} recalls, "
            f"{day.delivering} delivering</title>"
            f'<rect x="{x:.1f}" y="{base - total:.1f}" width="{column:.1f}" '
            f'height="{total:.1f}" fill="{SOFT_COLOUR}"/>'
            f'<rect x="{x:.1f}" y="{base - delivering:.1f}" width="{column:.1f}" '
            f'height="{delivering:.1f}" fill="{BAR_COLOUR}"/></g>'
        )
    parts.append(f'<text x="55" y="{base + 20}">{escape(days[0].day)}</text>')
    if len(days) > 1:
        parts.append(
            f'<text x="{width - 5}" y="{base + 20}" text-anchor="end">{escape(days[-1].day)}</text>'
        )
    return (
        f'<svg class="chart" role="img" aria-label="{escape(title)}" width="{width}" '
        f'height="{height + 10}" viewBox="0 0 {width} {height + 10}" '
        f'xmlns="http://www.w3.org/2000/svg">' + "".join(parts) + "</svg>"
    )


def share_bar(share: float, label: str) -> str:
    """A 120-pixel bar filled to ``share`` (0..1)."""
    filled = round(120 * min(max(share, 0.0), 1.0), 1)
    colour = BAR_COLOUR if share > 0 else WARN_COLOUR
    return (
        f'<svg class="share" role="img" aria-label="{escape(label)}" width="120" height="12" '
        f'viewBox="0 0 120 12" xmlns="http://www.w3.org/2000/svg">'
        f'<rect width="120" height="12" rx="2" fill="#e8e8e8"/>'
        f'<rect width="{filled}" height="12" rx="2" fill="{colour}"/></svg>'
    )
