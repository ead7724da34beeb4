"""Options of the commands that read benchmark and prediction files (`eval`, `report`,
`stats`): which format each file is in, and where video durations come from."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

GtFormat = Annotated[
    str | None, typer.Option("--gt-format", help="Benchmark format (default: guessed).")
]
PredFormat = Annotated[
    str | None, typer.Option("--pred-format", help="Predictions format (default: guessed).")
]
Durations = Annotated[
    Path | None,
    typer.Option(
        "--durations",
        help="Video durations (JSON or CSV) for benchmark formats that lack them, such as "
        "Charades-STA.",
    ),
]
