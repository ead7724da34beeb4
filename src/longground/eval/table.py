"""Human-readable output: the papers' kind of table, metrics in percent (a legend names the
plain numbers: MAE in intervals, Pearson's r as a correlation), then the counts."""

from __future__ import annotations

from collections.abc import Sequence

from .protocol import Column, threshold_key
from .registry import get_protocol
from .result import EvalResult

GAP = "  "
BLANK = "-"


def format_value(value, percent: bool) -> str:
    """A metric as printed: percent with 2 decimals, plain numbers with 2; "-" when undefined.

    >>> format_value(0.53935, True), format_value(3.2, False), format_value(None, True)
    ('53.94', '3.20', '-')
    """
    if value is None:
        return BLANK
    return f"{100.0 * value:.2f}" if percent else f"{value:.2f}"


def render(headers: Sequence[str], rows: Sequence[Sequence[str]], groups=None) -> list[str]:
    """A text table: first column left-aligned, the rest right-aligned.

    Args:
        headers: one header per column.
        rows: rows of cells, as strings.
        groups: optional group label per column ("" continues the previous group); a label
            is printed above the first column of its group.

    >>> print("\\n".join(render(["", "a", "b"], [["x", "1.00", "22.00"]])))
          a      b
    x  1.00  22.00
    """
    widths = [max(len(str(c)) for c in column) for column in zip(headers, *rows, strict=True)]
    lines = []
    if groups:
        _fit_groups(widths, groups)
        lines.append(_join(widths, groups, left_all=True).rstrip())
    lines.append(_join(widths, headers))
    lines.extend(_join(widths, row) for row in rows)
    return lines


def _join(widths: list[int], cells: Sequence[str], left_all: bool = False) -> str:
    parts = [
        cell.ljust(width) if i == 0 or left_all else cell.rjust(width)
        for i, (cell, width) in enumerate(zip(cells, widths, strict=True))
    ]
    return GAP.join(parts)


def _fit_groups(widths: list[int], groups: Sequence[str]) -> None:
    """Widen the last column of each group until its label fits above the group."""
    starts = [i for i, label in enumerate(groups) if label] + [len(groups)]
    for first, end in zip(starts, starts[1:], strict=False):
        block = sum(widths[first:end]) + len(GAP) * (end - first - 1)
        widths[end - 1] += max(0, len(groups[first]) - block)


def _grouped(columns: list[Column]) -> list[str]:
    labels, previous = [], None
    for column in columns:
        labels.append(column.group if column.group != previous else "")
        previous = column.group
    return labels


def headline_lines(result: EvalResult, answered: dict | None = None) -> list[str]:
    """The main table: one row of metrics, plus 95% CI rows when bootstrapped, and a row of
    the answered queries alone (`eval.answered.answered_metrics`) when given."""
    columns = get_protocol(result.protocol, **result.settings).columns(result.theta)
    rows = [["all", *(format_value(result.metrics.get(c.key), c.percent) for c in columns)]]
    if answered is not None:
        label = answered_label(answered)
        rows.append([label, *(format_value(answered.get(c.key), c.percent) for c in columns)])
    if result.ci:
        for side, name in ((0, "CI low"), (1, "CI high")):
            bounds = [result.ci.get(c.key) for c in columns]
            cells = [
                format_value(None if b is None else b[side], c.percent)
                for b, c in zip(bounds, columns, strict=True)
            ]
            rows.append([name, *cells])
    return render(["", *(c.label for c in columns)], rows, ["", *_grouped(columns)])


def answered_label(answered: dict) -> str:
    """The label of the answered-only row, with the count of the queries it leaves out.

    >>> answered_label({"answered": 40, "unanswered": 3680})
    'answered only (40; 3680 unanswered left out)'
    """
    return f"answered only ({answered['answered']}; {answered['unanswered']} unanswered left out)"


def legend_line(protocol: str, theta: float) -> str:
    """What the headline numbers are: percent, except the columns printed as plain numbers.

    >>> legend_line("comet", 0.5)
    'in percent, except MAE (intervals) and Pear. r (correlation, -1 to 1)'
    """
    columns = get_protocol(protocol).columns(theta)
    plain = [f"{c.label} ({c.unit})" if c.unit else c.label for c in columns if not c.percent]
    return "in percent" + (f", except {' and '.join(plain)}" if plain else "")


def summary_line(result: EvalResult) -> str:
    """Query counts and what could not be scored as answered."""
    scope = get_protocol(result.protocol).scope(result.metrics)
    return f"protocol {result.protocol}, theta {result.theta:g}, {scope}"


def counts_line(result: EvalResult) -> str:
    """Missing, parse-failed and invalid predictions and unknown qids; repeated answers and
    unusable records only when there were some."""
    m = result.metrics
    parts = [
        f"missing {m['missing']}",
        f"parse-failed {m['parse_failures']}" + parse_modes_note(m),
        f"invalid intervals {m['invalid_intervals']}",
        f"unknown qids {m['unknown_qids']}",
    ]
    if m["duplicate_predictions"]:
        parts.append(f"duplicate predictions {m['duplicate_predictions']}")
    if m["skipped_records"]:
        parts.append(f"skipped records {m['skipped_records']}")
    return ", ".join(parts)


def parse_modes_note(m: dict) -> str:
    """` (strict; lenient 0)` after the parse-failure count when `eval --parse` was given:
    the mode scored, then the count under every other mode.

    >>> parse_modes_note({"parse": "strict", "parse_failures_lenient": 0,
    ...                   "parse_failures_strict": 2})
    ' (strict; lenient 0)'
    """
    if "parse" not in m:
        return ""
    others = [
        f"{key[len('parse_failures_') :]} {value}"
        for key, value in m.items()
        if key.startswith("parse_failures_") and key != f"parse_failures_{m['parse']}"
    ]
    return f" ({'; '.join([m['parse'], *others])})"


def breakdown_lines(result: EvalResult, name: str, table: dict) -> list[str]:
    """One breakdown as a table: query-level, interval-level, or a duration x position grid."""
    if name == "duration_x_position":
        return _grid_lines(result, table)
    first = next(iter(table.values()), {})
    if "n_intervals" in first:
        taus = get_protocol(result.protocol, **result.settings).thresholds(result.theta)
        columns = [Column("miou", "mIoU", "")]
        columns += [Column(threshold_key("recall", t), f"R@{t:g}", "") for t in taus]
        count_key = "n_intervals"
    else:
        columns = get_protocol(result.protocol, **result.settings).columns(result.theta)
        count_key = "n_queries"
    rows = [
        [label, str(m[count_key]), *(format_value(m.get(c.key), c.percent) for c in columns)]
        for label, m in table.items()
    ]
    return render([name, count_key, *(c.label for c in columns)], rows)


def _grid_lines(result: EvalResult, table: dict) -> list[str]:
    key = threshold_key("recall", result.theta)
    positions = list(dict.fromkeys(p for inner in table.values() for p in inner))
    rows = []
    for duration, inner in table.items():
        cells = [
            f"{format_value(inner[p][key], True)} ({inner[p]['n_intervals']})"
            if p in inner
            else BLANK
            for p in positions
        ]
        rows.append([duration, *cells])
    title = f"R@{result.theta:g} (n intervals) by duration x GT position"
    return [title, *render(["", *positions], rows)]


def format_result(result: EvalResult, answered: dict | None = None) -> str:
    """Everything a person reads after `longground eval`: headline table, CIs, counts,
    warnings, then each breakdown; with `answered` (`eval.answered.answered_metrics`), a
    row of the answered queries' metrics under the full ones.

    >>> from longground import Moments, Prediction, Sample
    >>> from longground.eval import evaluate
    >>> gt = [Sample("a", "v.mp4", 60.0, "a dog", Moments.from_list([[0, 10]]))]
    >>> result = evaluate(gt, [Prediction("a", Moments.from_list([[0, 5]]))], protocol="single")
    >>> print(format_result(result))  # doctest: +NORMALIZE_WHITESPACE
    protocol single, theta 0.5, queries scored: 1
    <BLANKLINE>
         Grounding
          mIoU  R1@0.3  R1@0.5  R1@0.7
    all  50.00  100.00  100.00    0.00
    in percent
    <BLANKLINE>
    missing 0, parse-failed 0, invalid intervals 0, unknown qids 0
    """
    lines = [summary_line(result), "", *headline_lines(result, answered)]
    lines += [legend_line(result.protocol, result.theta)]
    lines += ["", counts_line(result)]
    lines += [f"note: {warning}" for warning in result.warnings]
    for name, table in result.by.items():
        lines += ["", *breakdown_lines(result, name, table)]
    return "\n".join(lines)
