"""`build_report`: read and score every input, draw the figures, write the static page."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path

from ..atomic import atomic_open
from ..errors import UserError
from ..eval import get_protocol
from . import summary_figures as sf
from .inputs import FIGURES_DIR, ReportInput, check_out_dir, load_inputs, method_names
from .page import render_page
from .timelines import pick_queries, query_scores, timeline_figure


def figures_for(report: ReportInput) -> list:
    """The figures that `report`'s protocol and inputs allow, in page order (a generator
    would hold fewer figures in memory at once: each is saved before the next is drawn)."""
    makers = [
        lambda: sf.breakdown_bars(report, "attribute"),
        lambda: sf.breakdown_bars(report, "domain"),
        lambda: sf.heatmap(report),
    ]
    for name in get_protocol(report.protocol).report_figures:  # what its metrics allow
        makers.append(lambda draw=sf.PROTOCOL_FIGURES[name]: draw(report))
    worst, best = pick_queries(query_scores(report))
    makers += [
        lambda: timeline_figure(report, worst, "worst"),
        lambda: timeline_figure(report, best, "best"),
        lambda: sf.taxonomy_bars(report),
    ]
    if report.window_recall is not None:
        makers.append(lambda: sf.window_recall_bars(report))
    return makers


def report_json(report: ReportInput) -> dict:
    """`report.json`: each method's `eval --json` object plus its taxonomy, and the window
    recall."""
    methods = {}
    for run in report.methods:
        methods[run.name] = {
            "file": str(run.path),
            **run.result.to_dict(),
            "taxonomy": run.taxonomy,
        }
    out = {"benchmark": str(report.gt_path), "protocol": report.protocol, "methods": methods}
    if report.window_recall is not None:
        out["window_recall"] = report.window_recall
    return out


def build_report(
    gt: Path,
    preds: Sequence[Path],
    out: Path,
    names: Sequence[str] | None = None,
    protocol: str = "comet",
    theta: float = 0.5,
    windows: Path | None = None,
    title: str | None = None,
    overwrite: bool = False,
    **formats,
) -> Path:
    """Write `out/index.html`, `out/report.json` and `out/figures/*.png|pdf`.

    Args:
        gt: the benchmark file.
        preds: one prediction file per method.
        out: the report folder (created; never an input's folder for the files it writes).
        names: one label per method (default: the files' stems).
        protocol, theta: as for `eval`.
        windows: a top-K windows file (`run --topk-windows`) for the window-recall figure.
        title: the page title.
        overwrite: write into `out` even when it holds files that are not a report.
        **formats: gt_format, pred_format, durations.

    Returns:
        The path of `index.html`.
    """
    if not preds:
        raise UserError("give at least one prediction file")
    get_protocol(protocol)  # option errors before any folder is made
    if not 0.0 <= theta <= 1.0:
        raise UserError(f"theta must be in [0, 1], got {theta}")
    labels = method_names(preds, names)
    inputs = [gt, *preds, *([windows] if windows else [])]
    report = load_inputs(gt, preds, labels, protocol, theta, windows, **formats)
    check_out_dir(out, inputs, overwrite)  # before the figures, the long part
    folder = Path(out) / FIGURES_DIR
    figures = [make().save(folder) for make in figures_for(report)]
    with atomic_open(Path(out) / "report.json") as handle:
        json.dump(report_json(report), handle)
    page = Path(out) / "index.html"
    with atomic_open(page) as handle:
        handle.write(render_page(report, figures, title or f"longground report: {Path(gt).name}"))
    return page
