"""Figures that compare methods on aggregate numbers: breakdown bars, the duration x position
heatmap, count calibration, the negative-query plane, the taxonomy and top-K window recall.

Every number drawn is read from the methods' `EvalResult` (or the taxonomy / window-recall
dicts), so the figures show exactly what `eval --json` prints.
"""

from __future__ import annotations

import textwrap

import numpy as np

from ..eval import get_protocol
from ..eval.breakdown import NO_LABEL
from ..eval.buckets import DURATION_LABELS, POSITION_LABELS, UNKNOWN
from ..eval.taxonomy import CLASSES
from .figure import LeftOut, ReportFigure, legend_above, new_figure
from .inputs import ReportInput

LABELS = {"miou": "mIoU", "rej_f1": "Rej.-F1", "recall@0.5": "R@0.5"}
CLASS_COLOURS = ("#9e9e9e", "#fdae61", "#d7191c", "#2c7bb6")
# The height (percent points) a bar of 0 is drawn at, so that it shows.
ZERO_BAR = 0.8
# Characters per line of a 3.8-inch panel's title.
TITLE_CHARS = 40


def _label(key: str) -> str:
    return LABELS.get(key, key.replace("recall@", "R@"))


def breakdown_keys(report: ReportInput) -> tuple[str, str]:
    """The two metrics a breakdown bar chart shows: CoMET Fig. 5's R@θ and Rej.-F1 for
    `comet`, mIoU and R@0.5 for `single` (the protocol says)."""
    return get_protocol(report.protocol).breakdown_keys(report.theta)


def _value(row: dict, key: str) -> float:
    value = row.get(key)
    return np.nan if value is None else float(value)


def breakdown_bars(report: ReportInput, by: str) -> ReportFigure | LeftOut:
    """Grouped bars: one group per attribute (or domain), one bar per method, two panels
    sharing one percent axis; a 0 is a bar you can see, an undefined value a hatched slot
    marked n/a; the legend sits above the panels. Left out when no query has a label."""
    groups = list(report.methods[0].result.by[by])
    keys = breakdown_keys(report)
    if not [g for g in groups if g != NO_LABEL]:
        return LeftOut(f"by_{by}", f"Metrics per {by}",
                       f"no query of the benchmark has a{'n' if by[0] in 'aeiou' else ''} {by}")
    fig, axes = new_figure(max(6.0, 0.9 * len(groups) * len(keys) + 2), 3.9, ncols=len(keys))
    width = 0.8 / len(report.methods)
    x = np.arange(len(groups))
    for ax, key in zip(axes[0], keys, strict=True):
        for m, run in enumerate(report.methods):
            values = np.array([100 * _value(run.result.by[by][g], key) for g in groups])
            bars(ax, x + (m - (len(report.methods) - 1) / 2) * width, values, width,
                 f"C{m}", run.name)  # fmt: skip
        ax.set_xticks(x, groups, rotation=30, ha="right")
        ax.set_ylim(0, 100)
        ax.set_ylabel(f"{_label(key)} (%)")
        ax.set_title(_label(key))
    legend_above(fig, axes[0][0])
    names = ", ".join(run.name for run in report.methods)
    metrics = " and ".join(_label(k) for k in keys)
    return ReportFigure(
        f"by_{by}",
        f"{metrics} per {by}",
        f"Grouped bar chart of {metrics} in percent for each {by} "
        f"({', '.join(groups)}), one bar per method ({names}); a value of 0 is drawn as a "
        "thin bar with its 0, an undefined one as a hatched slot marked n/a.",
        f"{metrics} of each method, computed over the queries of each {by} (a query with "
        f"several {by}s counts in each). A thin bar labelled 0 is a score of zero; a hatched "
        "slot marked n/a means the metric is undefined for that group (e.g. Rej.-F1 needs "
        "both positive and negative queries).",
        fig,
    )


def bars(ax, x: np.ndarray, values: np.ndarray, width: float, colour: str, name: str) -> None:
    """One method's bars: values in percent; NaN (undefined) as a hatched slot marked n/a,
    and a 0 as a thin bar of its colour with "0" above, so neither reads as the other."""
    defined = np.isfinite(values)
    ax.bar(x[defined], np.maximum(values[defined], ZERO_BAR), width, color=colour, label=name)
    for xi, value in zip(x, values, strict=True):
        if not np.isfinite(value):
            ax.bar(xi, 100, width, fill=False, hatch="///", edgecolor="#c8c8c8", linewidth=0)
            ax.text(xi, 50, "n/a", rotation=90, ha="center", va="center", fontsize=8,
                    color="#777777")  # fmt: skip
        elif value == 0:
            ax.text(xi, ZERO_BAR + 1, "0", ha="center", va="bottom", fontsize=8, color=colour)


def pearson_text(metrics: dict) -> str:
    """Pearson's r as the figures print it: n/a when undefined (eval reports it as 0.0).

    >>> pearson_text({"pearson": 0.0, "pearson_undefined": True}), pearson_text({"pearson": 0.5})
    ('n/a', '0.500')
    """
    return "n/a" if metrics.get("pearson_undefined") else f"{metrics['pearson']:.3f}"


def heatmap(report: ReportInput) -> ReportFigure:
    """mIoU per video-duration bucket (rows) and GT position (columns), one panel per method."""
    rows = [
        label
        for label in (*DURATION_LABELS, UNKNOWN)
        if any(label in run.result.by["duration_x_position"] for run in report.methods)
    ]
    n = len(report.methods)
    fig, axes = new_figure(4.2 * n + 0.8, 0.55 * len(rows) + 1.8, ncols=n)
    for ax, run in zip(axes[0], report.methods, strict=True):
        table = run.result.by["duration_x_position"]
        grid = np.array(
            [
                [100 * _value(table.get(r, {}).get(c, {}), "miou") for c in POSITION_LABELS]
                for r in rows
            ]
        )
        image = ax.imshow(
            np.ma.masked_invalid(grid), vmin=0, vmax=100, cmap="viridis", aspect="auto"
        )
        for (i, j), v in np.ndenumerate(grid):
            if np.isfinite(v):
                ax.text(
                    j,
                    i,
                    f"{v:.1f}",
                    ha="center",
                    va="center",
                    fontsize=9,
                    color="white" if v < 50 else "black",
                )
        ax.set_xticks(range(len(POSITION_LABELS)), POSITION_LABELS, rotation=30)
        ax.set_yticks(range(len(rows)), rows)
        ax.set_xlabel("GT position in the video")
        ax.set_title(run.name)
    axes[0][0].set_ylabel("video duration")
    fig.colorbar(image, ax=axes[0].tolist(), label="mIoU (%)")
    return ReportFigure(
        "duration_x_position",
        "mIoU by video duration and GT position",
        "Heatmap per method of mIoU in percent, rows are video-duration buckets and "
        "columns the fifth of the video holding the GT interval's centre.",
        "Interval-level mIoU (each GT interval counts once) by video duration and by where "
        "the GT interval sits in the video, as in CoMET Fig. 5. Blank cells hold no interval.",
        fig,
    )


def count_scatter(report: ReportInput) -> ReportFigure:
    """Predicted against GT count per query (bubble area = number of queries), Pearson r;
    every panel has the same axes, so the methods compare at a glance."""
    n = len(report.methods)
    fig, axes = new_figure(3.8 * n, 3.8, ncols=n)
    top = max(1, *(int(max(np.max(r.result.queries["n_gt"], initial=0),
                           np.max(r.result.queries["n_pred"], initial=0)))
                   for r in report.methods))  # fmt: skip
    for ax, run in zip(axes[0], report.methods, strict=True):
        q = run.result.queries
        pairs, counts = np.unique(np.stack([q["n_gt"], q["n_pred"]], 1), axis=0, return_counts=True)
        ax.scatter(pairs[:, 0], pairs[:, 1], s=12 + 60 * np.sqrt(counts / counts.max()), alpha=0.6)
        ax.plot([0, top], [0, top], color="grey", linewidth=0.8, linestyle="--")
        ax.set_xlim(-0.5, top + 0.5)
        ax.set_ylim(-0.5, top + 0.5)
        ax.set_xlabel("GT count")
        ax.set_ylabel("predicted count")
        for axis in (ax.xaxis, ax.yaxis):
            axis.get_major_locator().set_params(integer=True)
        ax.set_title(textwrap.fill(f"{run.name}: Pearson {pearson_text(run.result.metrics)}",
                                   TITLE_CHARS))  # fmt: skip
    text = "; ".join(f"{r.name} r = {pearson_text(r.result.metrics)}" for r in report.methods)
    return ReportFigure(
        "count_calibration",
        "Count calibration",
        f"Scatter plots of predicted against ground-truth event count per query; {text}.",
        "Each bubble is a (GT count, predicted count) pair; its area grows with the number of "
        "queries that have it. Points on the dashed diagonal are counted exactly; the title "
        "gives the Pearson correlation that eval reports (n/a when one of the counts does not "
        "vary, e.g. a method that always answers one interval).",
        fig,
    )


def negative_plane(report: ReportInput) -> ReportFigure:
    """PosCov (x) against FPR (y), one point per method (CoMET Fig. 11)."""
    fig, axes = new_figure(4.6, 4.2)
    ax = axes[0][0]
    for run in report.methods:
        x, y = _value(run.result.metrics, "pos_cov"), _value(run.result.metrics, "fpr")
        ax.scatter([x], [y], s=50)
        ax.annotate(run.name, (x, y), textcoords="offset points", xytext=(6, 4))
    ax.set_xlim(-0.02, 1.02)
    ax.set_ylim(-0.02, 1.02)
    ax.set_xlabel("PosCov (positives answered)")
    ax.set_ylabel("FPR (negatives answered)")
    ax.axline((0, 0), (1, 1), color="grey", linewidth=0.8, linestyle="--")
    points = "; ".join(
        f"{r.name} PosCov {_value(r.result.metrics, 'pos_cov'):.3f} FPR "
        f"{_value(r.result.metrics, 'fpr'):.3f}"
        for r in report.methods
    )
    return ReportFigure(
        "negative_plane",
        "Answering positives against hallucinating on negatives",
        f"Scatter plot with one point per method: {points}.",
        "Top right: the method answers everything (hallucinates on negative queries); "
        "bottom left: it rejects everything. The ideal is the bottom-right corner.",
        fig,
    )


def taxonomy_bars(report: ReportInput) -> ReportFigure | LeftOut:
    """Stacked bars: each method's failures split into the four classes; left out when no
    method failed a query."""
    if not any(run.taxonomy["n_failures"] for run in report.methods):
        return LeftOut("taxonomy", "Why queries fail", "no method failed a query")
    fig, axes = new_figure(7.0, 0.5 * len(report.methods) + 1.6)
    ax, left = axes[0][0], np.zeros(len(report.methods))
    for c, name in enumerate(CLASSES):
        values = np.array([100 * run.taxonomy["fractions"][name] for run in report.methods])
        ax.barh(
            [run.name for run in report.methods],
            values,
            left=left,
            label=name,
            color=CLASS_COLOURS[c],
        )
        left += values
    ax.set_xlim(0, 100)
    ax.set_xlabel("share of failures (%)")
    ax.legend(ncols=4, fontsize="small", loc="upper center", bbox_to_anchor=(0.5, -0.3))
    t = report.methods[0].taxonomy
    return ReportFigure(
        "taxonomy",
        "Why queries fail",
        "Stacked horizontal bars per method of the share of failed queries that are parse "
        "failures, missing answers, search failures and localisation failures.",
        f"Single-protocol failures (IoU < {t['fail_iou']:g}) split by cause: a search failure's "
        f"first interval is more than {t['offset_min']:g} min from the nearest GT midpoint, a "
        "localisation failure's is within it (ExtremeWhenBench's taxonomy).",
        fig,
    )


def window_recall_bars(report: ReportInput) -> ReportFigure:
    """Top-K window recall: fully inside and overlapping, per K."""
    recall = report.window_recall
    ks = [key.split("@")[1] for key in recall if key.startswith("inside@")]
    fig, axes = new_figure(5.0, 3.4)
    ax, x = axes[0][0], np.arange(len(ks))
    for i, name in enumerate(("inside", "overlap")):
        values = np.array([100 * _value(recall, f"{name}@{k}") for k in ks])
        bars(ax, x + (i - 0.5) * 0.38, values, 0.38, f"C{i}", name)
    ax.set_xticks(x, [f"K={k}" for k in ks])
    ax.set_ylim(0, 100)
    ax.set_ylabel("queries (%)")
    legend_above(fig, ax)
    return ReportFigure(
        "window_recall",
        "Top-K retrieval window recall",
        "Bar chart of the percentage of queries whose GT interval lies inside (and overlaps) "
        f"one of the top K retrieval windows, for K = {', '.join(ks)}.",
        f"Over {recall['n_queries']} positive queries: 'inside' counts a GT interval lying "
        "fully inside one of the K best windows, 'overlap' one sharing any length with it "
        "(ExtremeWhenBench Table 6).",
        fig,
    )


# The figures a protocol may ask for by name (`Protocol.report_figures`).
PROTOCOL_FIGURES = {"count_scatter": count_scatter, "negative_plane": negative_plane}
