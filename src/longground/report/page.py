"""The report page: tables of the methods' numbers and the figures, rendered with Jinja2.

Every number cell carries its exact value in `data-value` (the JSON of what `eval --json`
prints), so a test can hold the page against `eval`.
"""

from __future__ import annotations

import json

from ..errors import require
from ..eval.registry import get_protocol
from ..eval.table import format_value, legend_line
from ..eval.taxonomy import CLASSES
from .inputs import ReportInput

COUNT_KEYS = ("n_queries", "missing", "parse_failures")

TEMPLATE = """<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<link rel="icon" href="data:,">
<title>{{ title }}</title>
<style>
body { font-family: system-ui, sans-serif; max-width: 1100px; margin: 2em auto; padding: 0 1em;
       color: #222; }
table { border-collapse: collapse; margin: 1em 0; font-variant-numeric: tabular-nums;
        font-size: 0.92em; max-width: 100%; }
th, td { border-bottom: 1px solid #ddd; padding: 0.3em 0.45em; text-align: right; }
th:first-child, td:first-child { text-align: left; white-space: nowrap; }
thead tr:first-child th { border-bottom: 1px solid #bbb; color: #666; font-weight: normal;
                          text-align: center; padding-bottom: 0.15em; }
thead tr:first-child th:first-child { border-bottom: none; }
figure { margin: 2em 0; }
figure img { max-width: 100%; height: auto; border: 1px solid #eee; }
figcaption { color: #444; font-size: 0.92em; margin-top: 0.4em; }
.small { color: #666; font-size: 0.9em; }
.how { background: #f6f6f6; padding: 0.6em 0.9em; font-size: 0.95em; }
</style>
</head>
<body>
<h1>{{ title }}</h1>
<p class="small">Benchmark <code>{{ gt }}</code> ({{ n_queries }} queries), protocol
<code>{{ protocol }}</code>{% if theta %}, θ = {{ theta }}{% endif %}. Metrics {{ units }}.</p>
<h2>Methods</h2>
{% for t in tables %}<table id="{{ t.id }}">
<thead>
<tr><th></th>{% for g in t.groups %}<th colspan="{{ g.span }}">{{ g.label }}</th>{% endfor %}</tr>
<tr><th>method</th>{% for h in t.headers %}<th>{{ h }}</th>{% endfor %}</tr>
</thead>
<tbody>
{% for row in t.rows %}<tr data-method="{{ row.name }}"><td>{{ row.name }}</td>
{% for c in row.cells %}<td data-key="{{ c.key }}" data-value="{{ c.value }}">{{ c.text }}</td>
{% endfor %}</tr>
{% endfor %}</tbody>
</table>
{% endfor %}
<p class="how" id="how-methods"><b>How to read this.</b> {{ how_methods }}</p>
<h2>Figures</h2>
<p class="how" id="how-figures"><b>How to read this.</b> Every number drawn is one of the
table's, in percent. Panels that are compared side by side share their axes. Each caption says
what one figure shows.</p>
{% if left_out %}<ul id="left-out">
{% for f in left_out %}<li data-name="{{ f.name }}">{{ f.title }}: left out, {{ f.reason }}.</li>
{% endfor %}</ul>{% endif %}
{% for fig in figures %}<figure id="fig-{{ fig.name }}">
<h2>{{ fig.title }}</h2>
<img src="{{ fig.png }}" alt="{{ fig.alt }}">
<figcaption>{{ fig.caption }} <a href="{{ fig.pdf }}">PDF</a></figcaption>
</figure>
{% if fig.name == "taxonomy" %}<table id="taxonomy">
<thead><tr><th>method</th><th>failures</th>{% for c in classes %}<th>{{ c }}</th>{% endfor %}
</tr></thead><tbody>
{% for row in taxonomy %}<tr data-method="{{ row.name }}"><td>{{ row.name }}</td>
<td data-key="n_failures" data-value="{{ row.n }}">{{ row.n }} / {{ row.scored }}</td>
{% for c in row.cells %}<td data-key="{{ c.key }}" data-value="{{ c.value }}">{{ c.text }}</td>
{% endfor %}</tr>
{% endfor %}</tbody></table>
{% endif %}{% if fig.name == "window_recall" %}<table id="window-recall">
<thead><tr>{% for c in recall %}<th>{{ c.key }}</th>{% endfor %}</tr></thead>
<tbody><tr>{% for c in recall %}<td data-key="{{ c.key }}" data-value="{{ c.value }}">
{{ c.text }}</td>{% endfor %}</tr></tbody></table>
{% endif %}{% endfor %}
<p class="small">Written by <code>longground report</code>; numbers: <a href="report.json">
report.json</a>.</p>
</body>
</html>
"""


def _cell(key: str, value, percent: bool = True, undefined: bool = False) -> dict:
    """A table cell: its key, the exact value as JSON, and the printed text ("n/a" for a
    value the protocol flags as undefined, such as a Pearson's r reported as 0.0)."""
    text = str(value) if isinstance(value, int) else format_value(value, percent)
    return {"key": key, "value": json.dumps(value), "text": "n/a" if undefined else text}


def method_rows(report: ReportInput) -> tuple[list[dict], list[str], list[dict]]:
    """The method table: `(group headers, column headers, rows)` in the papers' layout."""
    columns = get_protocol(report.protocol).columns(report.theta)
    groups: list[dict] = []
    for column in columns:
        if groups and groups[-1]["label"] == column.group:
            groups[-1]["span"] += 1
        else:
            groups.append({"label": column.group, "span": 1})
    groups.append({"label": "Answers", "span": len(COUNT_KEYS)})
    headers = [c.label for c in columns] + ["queries", "missing", "parse fail."]
    rows = []
    for run in report.methods:
        m = run.result.metrics
        cells = [_cell(c.key, m.get(c.key), c.percent, bool(m.get(f"{c.key}_undefined")))
                 for c in columns]  # fmt: skip
        cells += [_cell(key, m.get(key)) for key in COUNT_KEYS]
        rows.append({"name": run.name, "cells": cells})
    return groups, headers, rows


def taxonomy_rows(report: ReportInput) -> list[dict]:
    """One row per method: failures, then count (share) per class."""
    rows = []
    for run in report.methods:
        t = run.taxonomy
        cells = [
            {
                "key": c,
                "value": json.dumps(t["counts"][c]),
                "text": f"{t['counts'][c]} ({100 * t['fractions'][c]:.1f}%)",
            }
            for c in CLASSES
        ]
        rows.append(
            {"name": run.name, "n": t["n_failures"], "scored": t["n_scored"], "cells": cells}
        )
    return rows


HOW_METHODS = {
    "comet": "mIoU and R@θ are computed over the positive queries only, each GT interval "
    "against its best-matching prediction: extra predicted intervals and answers to negative "
    "queries cost them nothing, so a method that predicts many long intervals can lead on "
    "them. F1@θ also counts every extra interval against precision, and Rej.-F1 scores "
    "whether negative queries are rejected; a method that over-predicts loses there. When "
    "the two groups disagree, the method is trading precision and rejection for coverage. "
    "MAE and Pearson compare the predicted count of moments with the true count; Pearson is "
    "n/a when one of the counts does not vary (eval reports it as 0.0 with a note).",
    "single": "Only each method's first interval is scored, against the best-matching GT "
    "interval of the query: IoU averaged over the positive queries (mIoU) and the share of "
    "queries whose first interval reaches each IoU threshold (R1@τ). Further intervals are "
    "ignored, and negative queries are not scored.",
}


def render_page(
    report: ReportInput, figures: list[dict], title: str, left_out: list[dict] = ()
) -> str:
    """The whole `index.html`; `left_out` lists the figures without data and why."""
    jinja2 = require("jinja2", "report")
    groups, headers, rows = method_rows(report)
    recall = [_cell(k, v) for k, v in (report.window_recall or {}).items() if "@" in k]
    template = jinja2.Environment(autoescape=True).from_string(TEMPLATE)
    return template.render(
        title=title,
        units=legend_line(report.protocol, report.theta),
        gt=str(report.gt_path),
        n_queries=len(report.samples),
        protocol=report.protocol,
        theta=f"{report.theta:g}",
        tables=[{"id": "methods", "groups": groups, "headers": headers, "rows": rows}],
        figures=figures,
        classes=CLASSES,
        taxonomy=taxonomy_rows(report),
        recall=recall,
        left_out=list(left_out),
        how_methods=HOW_METHODS.get(report.protocol, ""),
    )
