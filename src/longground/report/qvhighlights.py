"""The report under `--protocol qvhighlights`: QVHighlights' own moment-retrieval and
highlight metrics (Moment-DETR's evaluator, `eval.qvhighlights`), side by side per method.

Figures: MR mAP by GT-window length (short, middle, long, full), mAP against the tIoU
threshold, and highlight detection (HL-mAP and HIT@1 per saliency level). Every number is a
percentage of what `longground eval --protocol qvhighlights --json` prints.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from ..atomic import atomic_open
from ..eval.qvhighlights import BUCKETS, LEVELS, THRESHOLDS, load_and_score, published
from .figure import ReportFigure, legend_above, new_figure
from .inputs import FIGURES_DIR, check_out_dir
from .summary_figures import bars

HOW = (
    "QVHighlights' own metrics, in percent. MR-mAP ranks each query's first 10 windows by "
    "score and averages AP over tIoU 0.5 to 0.95, so it rewards good scores as well as good "
    "windows; R1 looks at the first window only. The length buckets keep, per query, only the "
    "GT windows of that length (short up to 10 s, middle up to 30 s, long up to 150 s). "
    "HL-mAP and HIT@1 score the per-clip saliency: a clip is positive at a level when an "
    "annotator scored it at least that level (Fair 2, Good 3, VeryGood 4)."
)


def qvhighlights_report(
    gt: Path, preds: Sequence[Path], labels: Sequence[str], out: Path, title: str,
    overwrite: bool = False,
) -> Path:  # fmt: skip
    """Score every prediction file with the QVHighlights evaluator and write the report."""
    scores = {name: load_and_score(gt, pred) for name, pred in zip(labels, preds)}
    metrics = {name: score.metrics() for name, score in scores.items()}
    n_queries = len(next(iter(scores.values())).qids)
    check_out_dir(out, [gt, *preds], overwrite)  # after reading: bad input fails first
    folder = Path(out) / FIGURES_DIR
    figures = [f.save(folder) for f in (mr_by_length(metrics), mr_by_threshold(metrics),
                                        highlights(metrics))]  # fmt: skip
    files = dict(zip(labels, preds))
    methods = {name: {"file": str(files[name]), **published(m)} for name, m in metrics.items()}
    with atomic_open(Path(out) / "report.json") as handle:
        json.dump({"benchmark": str(gt), "protocol": "qvhighlights", "methods": methods}, handle)
    page = Path(out) / "index.html"
    with atomic_open(page) as handle:
        handle.write(_page(gt, n_queries, metrics, figures, title))
    return page


def _grouped_bars(ax, groups: list[str], values: dict[str, list[float]]) -> None:
    width, x = 0.8 / len(values), np.arange(len(groups))
    for m, (name, row) in enumerate(values.items()):
        bars(ax, x + (m - (len(values) - 1) / 2) * width, np.array(row), width, f"C{m}", name)
    ax.set_xticks(x, groups, fontsize=10)
    ax.set_ylim(0, 100)
    ax.tick_params(axis="y", labelsize=10)


def _pct(value: float | None) -> float:
    return np.nan if value is None else 100 * value


def mr_by_length(metrics: dict) -> ReportFigure:
    """MR mAP (average over thresholds) per length bucket, one bar per method."""
    buckets = [name for name, _, _ in BUCKETS]
    values = {m: [_pct(v[b]["MR-mAP"]["average"]) for b in buckets] for m, v in metrics.items()}
    fig, axes = new_figure(6.5, 3.6)
    ax = axes[0][0]
    _grouped_bars(ax, buckets, values)
    ax.set_ylabel("MR mAP (%)", fontsize=10)
    ax.set_xlabel("GT window length", fontsize=10)
    legend_above(fig, ax)
    text = "; ".join(f"{m} " + ", ".join(f"{b} {x:.1f}" for b, x in zip(buckets, row))
                     for m, row in values.items())  # fmt: skip
    return ReportFigure(
        "mr_by_length", "Moment retrieval mAP by GT window length",
        f"Grouped bar chart of MR mAP in percent per GT-window length bucket: {text}.",
        "MR mAP averaged over tIoU 0.5-0.95, for the GT windows of each length (short: up to "
        "10 s, middle: 10-30 s, long: 30-150 s; full: all). A query without windows of a "
        "length is left out of that bucket.", fig,
    )  # fmt: skip


def mr_by_threshold(metrics: dict) -> ReportFigure:
    """mAP and R1 of the full bucket against the tIoU threshold: two panels, shared axes."""
    fig, axes = new_figure(9.0, 3.4, ncols=2)
    for ax, key in zip(axes[0], ("MR-mAP", "MR-R1")):
        for name, v in metrics.items():
            ax.plot(THRESHOLDS, [_pct(v["full"][key][str(t)]) for t in THRESHOLDS], marker="o",
                    label=name)  # fmt: skip
        ax.set_ylim(0, 100)
        ax.set_xlabel("tIoU threshold", fontsize=10)
        ax.set_ylabel(f"{key[3:]} (%)", fontsize=10)
        ax.set_title(f"{key[3:]} (full)", fontsize=11)
    legend_above(fig, axes[0][0])
    return ReportFigure(
        "mr_by_threshold", "Moment retrieval against the tIoU threshold",
        "Two line charts sharing a 0-100% axis: MR mAP and R1 of every method at tIoU "
        "thresholds 0.5 to 0.95.",
        "How fast each method's mAP (left) and R1 (right) fall as the overlap asked for "
        "grows; a steep fall means windows in the right place with loose edges.", fig,
    )  # fmt: skip


def highlights(metrics: dict) -> ReportFigure:
    """HL-mAP and HIT@1 per saliency level, two panels sharing the percent axis."""
    levels = [label for label, _ in LEVELS]
    fig, axes = new_figure(9.0, 3.4, ncols=2)
    for ax, key in zip(axes[0], ("HL-mAP", "HL-Hit1")):
        values = {m: [_pct(v[f"HL-min-{lv}"][key]) for lv in levels] for m, v in metrics.items()}
        _grouped_bars(ax, levels, values)
        ax.set_ylabel(f"{key} (%)", fontsize=10)
        ax.set_title(key, fontsize=11)
    legend_above(fig, axes[0][0])
    return ReportFigure(
        "highlights", "Highlight detection",
        "Two grouped bar charts sharing a 0-100% axis: HL-mAP and HIT@1 of every method at the "
        "saliency levels Fair, Good and VeryGood.",
        "Highlight detection from the predicted per-clip saliency: HL-mAP averages AP over the "
        "three annotators; HIT@1 is the share of queries whose top clip is positive for one.",
        fig,
    )  # fmt: skip


def _page(gt: Path, n_queries: int, metrics: dict, figures: list[dict], title: str) -> str:
    """The page, in the template of the other protocols."""
    from ..errors import require
    from .page import TEMPLATE

    jinja2 = require("jinja2", "report")
    brief = {name: published(m)["brief"] for name, m in metrics.items()}
    keys = list(next(iter(brief.values())))
    tables = []
    for table_id, groups_of in TABLES:
        groups, columns = table_columns(keys, groups_of)
        rows = [{"name": name, "cells": [{"key": k, "value": json.dumps(b[k]),
                                          "text": "" if b[k] is None else f"{b[k]:.2f}"}
                                         for k, _ in columns]}
                for name, b in brief.items()]  # fmt: skip
        headers = [h for _, h in columns]
        tables.append({"id": table_id, "groups": groups, "headers": headers, "rows": rows})
    return jinja2.Environment(autoescape=True).from_string(TEMPLATE).render(
        title=title, gt=str(gt), n_queries=n_queries, protocol="qvhighlights", theta="",
        units="in percent", tables=tables, figures=figures, classes=[], taxonomy=[],
        recall=[], left_out=[], how_methods=HOW,
    )  # fmt: skip


# The methods tables (one screen wide each: moment retrieval, then highlight detection) and
# their column groups: the prefix of the published keys each group gathers, and its label.
TABLES = (
    ("methods", (("MR-full-", "Moment retrieval, all GT windows"),
                 ("MR-", "MR mAP by GT window length"))),
    ("methods-highlights", (("HL-min-", "Highlight detection: a clip is positive at saliency "
                             "Fair (2), Good (3) or VeryGood (4) and up"),)),
)  # fmt: skip
_LENGTHS = ("short", "middle", "long")


def table_columns(
    keys: list[str], table_groups: tuple[tuple[str, str], ...]
) -> tuple[list[dict], list[tuple[str, str]]]:
    """The published keys that `table_groups` (prefix, label) gather, with short headers:
    `(groups, [(key, header)])`; the length buckets go short, middle, long.

    >>> groups, columns = table_columns(["MR-full-R1@0.5", "MR-long-mAP", "MR-short-mAP",
    ...                                  "HL-min-Fair-Hit1"], TABLES[0][1])
    >>> [g["span"] for g in groups], [h for _, h in columns]
    ([1, 2], ['R1@0.5', 'short', 'long'])
    """
    groups, columns, left = [], [], list(keys)
    for prefix, label in table_groups:
        mine = [k for k in left if k.startswith(prefix)]
        if prefix == "MR-":
            mine.sort(key=lambda k: _LENGTHS.index(k.split("-")[1]) if k.split("-")[1] in
                      _LENGTHS else len(_LENGTHS))  # fmt: skip
        left = [k for k in left if k not in mine]
        if mine:
            groups.append({"label": label, "span": len(mine)})
            columns += [(k, _header(k[len(prefix):])) for k in mine]
    return groups, columns


def _header(rest: str) -> str:
    """`long-mAP` -> `long`, `Fair-Hit1` -> `Fair HIT@1`, `R1@0.5` as it is."""
    rest = rest.replace("Hit1", "HIT@1")
    return rest.split("-")[0] if rest.endswith("-mAP") and "-" in rest and rest[0].islower() \
        else rest.replace("-", " ")
