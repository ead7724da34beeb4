"""Options of the commands that read benchmark and prediction files (`eval`, `report`,
`stats`): which format each file is in, and where video durations come from."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Annotated

import typer

from ..errors import UserError

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


@contextmanager
def benchmark_first(gt: Path, preds: Iterable[Path]) -> Iterator[None]:
    """Add to an error about the files a hint that GT and PRED were given the other way
    round, when GT is not a benchmark but reads as predictions and one PRED is a benchmark."""
    try:
        yield
    except UserError as exc:
        hint = swapped_hint(gt, preds)
        if hint is None:
            raise
        raise UserError(f"{hint} ({exc})") from None


def swapped_hint(gt: Path, preds: Iterable[Path]) -> str | None:
    """A hint that GT and PRED are swapped, or None when they do not look it.

    >>> import json, tempfile
    >>> folder = Path(tempfile.mkdtemp())
    >>> _ = (folder / "p.jsonl").write_text(json.dumps({"qid": "a", "intervals": [[0, 1]]}))
    >>> _ = (folder / "b.jsonl").write_text(json.dumps({"qid": "a", "video": "v.mp4",
    ...     "duration": 9.0, "query": "a dog", "intervals": [[0, 1]]}))
    >>> swapped_hint(folder / "p.jsonl", [folder / "b.jsonl"]).startswith("GT and PRED look")
    True
    >>> swapped_hint(folder / "b.jsonl", [folder / "p.jsonl"]) is None
    True
    """
    from ..formats.registry import PREDICTION_FORMATS, SAMPLE_FORMATS, Peek

    def reads_as(registry, path: Path) -> bool:
        try:
            peek = Peek.of(path)
        except (UserError, OSError):
            return False
        return any(fmt.detect(peek) for fmt in registry.values())

    if reads_as(SAMPLE_FORMATS, gt) or not reads_as(PREDICTION_FORMATS, gt):
        return None
    benchmark = next((p for p in preds if reads_as(SAMPLE_FORMATS, p)), None)
    if benchmark is None:
        return None
    return (
        f"GT and PRED look swapped: {gt} reads as predictions and {benchmark} as a "
        "benchmark; give the benchmark first"
    )
