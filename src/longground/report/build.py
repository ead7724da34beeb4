"""`build_report`: read and score every input, draw the figures, write the static page."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path

from ..atomic import atomic_open
from ..errors import UserError
from ..eval import get_protocol
from . import summary_figures as sf
from .figure import LeftOut
from .inputs import FIGURES_DIR, ReportInput, check_out_dir, load_inputs, method_names
from .page import render_page
from .qvhighlights import qvhighlights_report
from .timelines import pick_queries, query_scores, timeline_figure

# Protocols that read their own files (eval.file_protocols) draw their own report.
FILE_REPORTS = {"qvhighlights": qvhighlights_report}


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
    makers += [lambda: _timelines(report, worst, "worst"), lambda: _timelines(report, best, "best")]
    makers.append(lambda: sf.taxonomy_bars(report))
    if report.window_recall is not None:
        makers.append(lambda: sf.window_recall_bars(report))
    return makers


def _timelines(report: ReportInput, picked, which: str):
    """The timelines of the picked queries, or why there are none."""
    if not len(picked):
        return LeftOut(f"timelines_{which}", f"The {which} queries",
                       "fewer than two positive queries to rank")  # fmt: skip
    return timeline_figure(report, picked, which)


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
    own_report = FILE_REPORTS.get(protocol)
    if own_report is not None:  # a protocol that reads its own files has its own report
        title = title or f"longground report: {Path(gt).name}"
        return own_report(gt, preds, method_names(preds, names), out, title, overwrite)
    get_protocol(protocol)  # option errors before any folder is made
    if not 0.0 <= theta <= 1.0:
        raise UserError(f"theta must be in [0, 1], got {theta}")
    labels = method_names(preds, names)
    inputs = [gt, *preds, *([windows] if windows else [])]
    report = load_inputs(gt, preds, labels, protocol, theta, windows, **formats)
    check_out_dir(out, inputs, overwrite)  # before the figures, the long part
    folder = Path(out) / FIGURES_DIR
    made = [make().save(folder) for make in figures_for(report)]
    figures = [f for f in made if "reason" not in f]
    left_out = [f for f in made if "reason" in f]
    with atomic_open(Path(out) / "report.json") as handle:
        json.dump(report_json(report), handle)
    page = Path(out) / "index.html"
    with atomic_open(page) as handle:
        title = title or f"longground report: {Path(gt).name}"
        handle.write(render_page(report, figures, title, left_out))
    return page
