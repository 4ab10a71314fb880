"""The report page: inline CSS and SVG, no script, no external asset, nothing fetched."""

from __future__ import annotations

from lessons_core.report.charts import WARN_COLOUR, day_chart, escape, hbar_chart, share_bar
from lessons_core.report.data import ReportData
from lessons_core.telemetry.stats import Stats
from lessons_core.validate import Severity

MAX_FINDINGS = 300
MAX_TOPICS = 25
MAX_FOLDERS = 80

_CSS = """
:root { color-scheme: light; }
body { font: 14px/1.45 system-ui, -apple-system, "Segoe UI", sans-serif; color: #1d232b;
       margin: 0; background: #f6f7f9; }
header { background: #1f3b5a; color: #fff; padding: 18px 32px; }
header h1 { margin: 0 0 4px; font-size: 22px; }
header p { margin: 0; opacity: .85; }
main { padding: 8px 32px 40px; max-width: 1100px; }
section { background: #fff; border: 1px solid #dde1e6; border-radius: 6px; padding: 14px 20px;
          margin: 18px 0; }
h2 { font-size: 17px; margin: 0 0 10px; }
.cards { display: flex; flex-wrap: wrap; gap: 12px; }
.card { border: 1px solid #dde1e6; border-radius: 6px; padding: 8px 14px; min-width: 110px; }
.card b { display: block; font-size: 20px; }
table { border-collapse: collapse; width: 100%; }
th, td { text-align: left; padding: 4px 8px; border-bottom: 1px solid #eceef1;
         vertical-align: top; }
th { font-weight: 600; background: #f2f4f6; }
td.num, th.num { text-align: right; font-variant-numeric: tabular-nums; }
tr.depth2 td:first-child { padding-left: 26px; }
tr.uncovered td:first-child { color: #8a2d2b; }
.sev-error { color: #b3261e; font-weight: 600; }
.sev-warning { color: #9a6700; font-weight: 600; }
.sev-notice { color: #3b6ea8; }
.chart text { font-size: 12px; fill: #1d232b; }
.empty, .note { color: #5b6470; }
code { font: 12px ui-monospace, "SFMono-Regular", Menlo, monospace; }
"""


def render_page(data: ReportData) -> str:
    body = [
        _header(data),
        "<main>",
        _summary(data),
        _topics(data),
        _coverage(data),
        _findings(data),
        _telemetry(data),
        "</main>",
    ]
    return (
        "<!DOCTYPE html>\n"
        '<html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        # No script may run and nothing may be fetched: the page is data, not an app.
        '<meta http-equiv="Content-Security-Policy" content="default-src \'none\'; '
        "style-src 'unsafe-inline'; img-src data:\">"
        f"<title>lessons report: {escape(data.project)}</title>"
        f"<style>{_CSS}</style></head><body>\n" + "\n".join(body) + "\n</body></html>\n"
    )


def _header(data: ReportData) -> str:
    return (
        f"<header><h1>Lessons in {escape(data.project)}</h1>"
        f"<p>Generated {escape(data.generated)} by lessons report</p></header>"
    )


def _card(label: str, value: object) -> str:
    return f'<div class="card"><b>{escape(str(value))}</b>{escape(label)}</div>'


def _summary(data: ReportData) -> str:
    report = data.validation
    share = f"{data.covered / data.files:.0%}" if data.files else "-"
    cards = [
        _card("active lessons", data.statuses.get("active", 0)),
        _card("deprecated", data.statuses.get("deprecated", 0)),
        _card("superseded", data.statuses.get("superseded", 0)),
        _card("files that do not parse", data.broken),
        _card("files covered by a trigger", share),
        _card("errors", report.count(Severity.ERROR)),
        _card("warnings", report.count(Severity.WARNING)),
        _card("notices", report.count(Severity.NOTICE)),
    ]
    return (
        f'<section id="summary"><h2>Summary</h2><div class="cards">{"".join(cards)}</div></section>'
    )


def _topics(data: ReportData) -> str:
    shown = list(data.topics[:MAX_TOPICS])
    rest = sum(count for _, count in data.topics[MAX_TOPICS:])
    if rest:
        shown.append((f"{len(data.topics) - MAX_TOPICS} other topics", rest))
    chart = hbar_chart(shown, "Active lessons per topic")
    return f'<section id="topics"><h2>Active lessons per topic</h2>{chart}</section>'


def _coverage(data: ReportData) -> str:
    rows = []
    for folder in data.folders[:MAX_FOLDERS]:
        classes = [f"depth{max(folder.depth, 1)}"] + (["uncovered"] if not folder.covered else [])
        name = "(top-level files)" if folder.folder == "." else folder.folder + "/"
        label = f"{folder.folder}: {folder.covered} of {folder.files} files covered"
        rows.append(
            f'<tr class="{" ".join(classes)}"><td><code>{escape(name)}</code></td>'
            f'<td class="num">{folder.files}</td><td class="num">{folder.covered}</td>'
            f"<td>{share_bar(folder.share, label)} {folder.share:.0%}</td></tr>"
        )
    more = len(data.folders) - MAX_FOLDERS
    note = f'<p class="note">{more} more folders not shown.</p>' if more > 0 else ""
    return (
        '<section id="coverage"><h2>Which folders file triggers cover</h2>'
        f'<p class="note">{data.covered} of {data.files} tracked files are matched by at least '
        "one active lesson's file trigger. Folders in red have none.</p>"
        '<table><thead><tr><th>folder</th><th class="num">files</th><th class="num">covered</th>'
        "<th>share</th></tr>"
        f"</thead><tbody>{''.join(rows)}</tbody></table>{note}</section>"
    )


def _findings(data: ReportData) -> str:
    findings = data.validation.findings
    if not findings:
        return (
            '<section id="findings"><h2>Validate findings</h2><p class="empty">None.</p></section>'
        )
    rows = []
    for finding in findings[:MAX_FINDINGS]:
        where = finding.file + (f":{finding.line}" if finding.line else "")
        severity = finding.severity.value
        rows.append(
            f"<tr><td><code>{finding.code}</code></td>"
            f'<td class="sev-{severity}">{severity}</td><td><code>{escape(where)}</code></td>'
            f"<td>{escape(finding.message)}<br><small>fix: {escape(finding.fix)}</small></td></tr>"
        )
    more = len(findings) - MAX_FINDINGS
    note = f'<p class="note">{more} more: run lessons validate.</p>' if more > 0 else ""
    return (
        '<section id="findings"><h2>Validate findings</h2><table><thead><tr><th>code</th>'
        "<th>severity</th><th>file</th><th>finding</th></tr></thead>"
        f"<tbody>{''.join(rows)}</tbody></table>{note}</section>"
    )


def _telemetry(data: ReportData) -> str:
    title = "<h2>Recall in use</h2>"
    if not data.telemetry_on:
        return (
            f'<section id="telemetry">{title}<p class="empty">Telemetry is off. Set '
            '<code>"telemetry": true</code> in <code>.lessons/config.json</code> to see '
            "recalls over time and the most and least useful lessons.</p></section>"
        )
    if data.stats is None:
        return (
            f'<section id="telemetry">{title}<p class="empty">No recall logged yet.</p></section>'
        )
    return f'<section id="telemetry">{title}{_usage(data.stats)}</section>'


def _usage(stats: Stats) -> str:
    ratio = "-" if stats.ratio is None else f"{stats.ratio:.2f}×"
    cards = "".join(
        [
            _card("recalls served", stats.recalls),
            _card("silent", f"{stats.silent_share:.0%}"),
            _card("tokens per recall", f"{stats.tokens_per_recall:.1f}"),
            _card("tokens per delivering recall", f"{stats.tokens_per_delivery:.1f}"),
            _card("of preloading every rule", ratio),
            _card("never recalled", len(stats.never_recalled)),
        ]
    )
    most = [(c.lesson_id, c.count) for c in stats.most_recalled]
    failed = [(f"{f.lesson_id} before {f.key}", f.failures) for f in stats.failed_after[:10]]
    return (
        f'<div class="cards">{cards}</div>'
        "<h3>Recalls per day</h3>"
        f"{day_chart(stats.days, 'Recalls per day (dark: delivering)')}"
        '<p class="note">Pale: every recall. Dark: recalls that delivered a lesson.</p>'
        "<h3>Most recalled lessons</h3>"
        f"{hbar_chart(most, 'Most recalled lessons', unit=' deliveries')}"
        "<h3>Least useful: shown, then the call failed anyway</h3>"
        f"{hbar_chart(failed, 'Shown, then failed', colour=WARN_COLOUR, unit=' failures')}"
    )
