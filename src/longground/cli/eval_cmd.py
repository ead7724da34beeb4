"""`longground eval GT PRED`: score a system's predictions against a benchmark."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer

from ..atomic import atomic_open
from ..errors import UserError
from .checks import check_output_file
from .main import app


def split_names(values: list[str] | None) -> list[str]:
    """`--by a,b --by c` as `["a", "b", "c"]`.

    >>> split_names(["attribute,domain", " position "])
    ['attribute', 'domain', 'position']
    """
    return [name.strip() for value in values or [] for name in value.split(",") if name.strip()]


@app.command("eval")
def eval_command(
    gt: Annotated[
        Path,
        typer.Argument(metavar="GT", help="Benchmark file (canonical JSONL or a known format)."),
    ],
    pred: Annotated[
        Path, typer.Argument(metavar="PRED", help="Predictions file (canonical JSONL or known).")
    ],
    protocol: Annotated[
        str, typer.Option("--protocol", help="comet (CoMET-Bench) or single (first interval).")
    ] = "comet",
    theta: Annotated[float, typer.Option("--theta", help="tIoU threshold for R@ and F1@.")] = 0.5,
    by: Annotated[
        list[str] | None,
        typer.Option(
            "--by",
            help="Breakdowns, comma-separated: attribute, domain, duration, "
            "count, position, duration_x_position.",
        ),
    ] = None,
    bootstrap: Annotated[
        int, typer.Option("--bootstrap", help="Resamples for 95% confidence intervals.")
    ] = 0,
    seed: Annotated[int, typer.Option("--seed", help="Seed of the bootstrap.")] = 0,
    as_json: Annotated[
        bool, typer.Option("--json", help="Print one JSON object (fractions in [0, 1]).")
    ] = False,
    gt_format: Annotated[
        str | None, typer.Option("--gt-format", help="Benchmark format (default: guessed).")
    ] = None,
    pred_format: Annotated[
        str | None, typer.Option("--pred-format", help="Predictions format (default: guessed).")
    ] = None,
    durations: Annotated[
        Path | None,
        typer.Option(
            "--durations",
            help="Video durations (JSON or CSV) for benchmark formats "
            "that lack them, such as Charades-STA.",
        ),
    ] = None,
    per_query: Annotated[
        Path | None,
        typer.Option("--per-query", help="Also write one JSON line per query to this file."),
    ] = None,
) -> None:
    """Score PRED against GT and print the papers' metrics.

    Exit code 0 when scored, 2 when an input file or an option is unusable.
    """
    from ..eval import evaluate_files
    from ..eval.table import format_result

    if per_query is not None:
        check_output_file(per_query, "--per-query", inputs=[gt, pred, durations])
    result = evaluate_files(
        gt,
        pred,
        gt_format=gt_format,
        pred_format=pred_format,
        durations=durations,
        protocol=protocol,
        theta=theta,
        by=split_names(by),
        bootstrap=bootstrap,
        seed=seed,
    )
    typer.echo(json.dumps(result.to_dict()) if as_json else format_result(result))
    if per_query is not None:
        write_rows(per_query, result.rows())


def write_rows(path: Path, rows: list[dict]) -> None:
    """One JSON line per query, or a `UserError` naming the file."""
    try:
        with atomic_open(path) as out:
            out.writelines(json.dumps(row) + "\n" for row in rows)
    except OSError as exc:
        raise UserError(f"{path}: cannot write ({exc.strerror})") from None
