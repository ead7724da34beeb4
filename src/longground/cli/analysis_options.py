"""Options `eval` takes for the analysis sections (failure taxonomy, top-K window recall).

Declared here so that `eval_cmd` grows by one line per option; see docs/analysis.md.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

Taxonomy = Annotated[
    bool,
    typer.Option("--taxonomy", help="Failure taxonomy (single protocol): parse, no answer, "
                 "search or localisation; see docs/analysis.md."),
]  # fmt: skip
FailIou = Annotated[
    float,
    typer.Option("--fail-iou", min=0.0, max=1.0,
                 help="Taxonomy: IoU below this (0 to 1) is a failure."),
]  # fmt: skip
OffsetMin = Annotated[
    float,
    typer.Option("--offset-min", min=0.0, help="Taxonomy: search vs localisation, minutes."),
]
SampleN = Annotated[
    int,
    typer.Option("--sample", min=0, help="Taxonomy: also classify N random failures drawn "
                 "with --seed (EWB: 100, seed 42)."),
]  # fmt: skip
Windows = Annotated[
    Path | None,
    typer.Option("--windows", help="Top-K window recall (K = 1, 3, 10) of this windows "
                 "file (written by run --topk-windows)."),
]  # fmt: skip
Classifier = Annotated[
    str,
    typer.Option("--classifier", help="Taxonomy: rules (distance rules) or llm (a model sorts "
                 "each failure into EWB's five categories, beside the rules; needs --model)."),
]  # fmt: skip
