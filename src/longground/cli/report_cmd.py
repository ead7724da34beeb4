"""`longground report GT PRED... --out DIR`: a static HTML report comparing methods."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from . import file_options as fo
from .checks import check_output_folder
from .main import app

# What a report writes into its folder: none of these may be one of the inputs.
REPORT_FILES = ("index.html", "report.json", "figures/*")


@app.command("report")
def report_command(
    gt: Annotated[Path, typer.Argument(metavar="GT", help="Benchmark file (any known format).")],
    preds: Annotated[
        list[Path], typer.Argument(metavar="PRED...", help="One predictions file per method.")
    ],
    out: Annotated[Path, typer.Option("--out", "-o", help="Folder to write the report into.")],
    names: Annotated[
        list[str] | None,
        typer.Option("--name", help="Label of each method, in PRED order (default: file stem)."),
    ] = None,
    protocol: Annotated[
        str,
        typer.Option(
            "--protocol",
            help="comet (CoMET-Bench), single (first interval) or qvhighlights (QVHighlights "
            "files: MR mAP by length, highlight detection).",
        ),
    ] = "comet",
    theta: Annotated[float, typer.Option("--theta", help="tIoU threshold for R@ and F1@.")] = 0.5,
    windows: Annotated[
        Path | None,
        typer.Option("--windows", help="Top-K windows file (run --topk-windows) to chart."),
    ] = None,
    title: Annotated[str | None, typer.Option("--title", help="Page title.")] = None,
    gt_format: fo.GtFormat = None,
    pred_format: fo.PredFormat = None,
    durations: fo.Durations = None,
    overwrite: Annotated[
        bool,
        typer.Option(
            "--overwrite", help="Write into DIR even if it holds files that are not a report."
        ),
    ] = False,
) -> None:
    """Write DIR/index.html (opens offline), DIR/report.json and every figure as PNG and PDF:
    the methods side by side, per-attribute and per-domain bars, the duration x position
    heatmap, count calibration and the negative-query plane (comet), timelines of the 10
    worst and best queries, the failure taxonomy, and top-K window recall with --windows.

    DIR must be new, empty or an earlier report (whose files are replaced), unless
    --overwrite. Exit code 0, or 2 when an input is unusable or DIR cannot be written.
    """
    from ..report import build_report

    inputs = [gt, *preds, windows, durations]
    check_output_folder(out, "--out", inputs=inputs, files=REPORT_FILES)
    with fo.benchmark_first(gt, preds):
        page = build_report(
            gt,
            preds,
            out,
            names=names,
            protocol=protocol,
            theta=theta,
            windows=windows,
            title=title,
            gt_format=gt_format,
            pred_format=pred_format,
            durations=durations,
            overwrite=overwrite,
        )
    typer.echo(str(page))
