"""Benchmark and prediction files: read any supported format, write longground's own.

Formats register by name (see `SAMPLE_FORMATS`, `PREDICTION_FORMATS`); a file's format is
detected from its extension and first record unless named with `fmt=`.

>>> import tempfile
>>> from pathlib import Path
>>> from longground import Moments, Prediction, Sample
>>> folder = Path(tempfile.mkdtemp())
>>> gt = [Sample("q1", "v.mp4", 600.0, "a dog jumps", Moments.from_list([[30, 42]]))]
>>> write_samples(folder / "gt.jsonl", gt)
>>> load_samples(folder / "gt.jsonl")[0].gt.to_list()
[[30.0, 42.0]]
>>> write_predictions(folder / "pred.jsonl", [
...     {"qid": "q1", "moments": None, "raw": "It happens from 00:31 to 00:40."}])
>>> preds = load_predictions(folder / "pred.jsonl", samples={s.qid: s for s in gt})
>>> preds[0].moments.to_list(), preds.skipped
([[31.0, 40.0]], [])
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from pathlib import Path

from ..samples import Prediction, Sample
from . import activitynet, canonical, charades, ewb, lmms_eval, queries, qvhighlights  # noqa: F401
from .canonical import prediction_record, sample_record
from .durations import read_durations
from .lines import write_jsonl
from .prediction_file import PredictionList
from .registry import (
    PREDICTION_FORMATS,
    SAMPLE_FORMATS,
    PredictionFormat,
    SampleFormat,
    register_prediction_format,
    register_sample_format,
    resolve,
)

FORMATS = {"samples": SAMPLE_FORMATS, "predictions": PREDICTION_FORMATS}
"""Registered format names by kind, for `--gt-format` (samples) and `--pred-format`."""

__all__ = [
    "FORMATS",
    "PREDICTION_FORMATS",
    "SAMPLE_FORMATS",
    "PredictionFormat",
    "PredictionList",
    "SampleFormat",
    "load_predictions",
    "load_samples",
    "prediction_record",
    "read_durations",
    "register_prediction_format",
    "register_sample_format",
    "sample_record",
    "write_predictions",
    "write_samples",
]


def load_samples(
    path: str | Path,
    fmt: str | None = None,
    durations: Mapping[str, float] | str | Path | None = None,
) -> list[Sample]:
    """Read a benchmark file.

    Args:
        path: the file.
        fmt: one of `SAMPLE_FORMATS` ("canonical", "qvhighlights", "ewb", "charades",
            "activitynet"); None detects it.
        durations: video id -> seconds (or a JSON/CSV file of them), for formats whose files
            carry no durations (Charades-STA); ignored by the others.

    Returns:
        The samples in file order.

    Raises:
        BadInputFile: one line naming the file, line and qid of the first bad record.
    """
    path = Path(path)
    table = read_durations(durations) if isinstance(durations, str | Path) else durations
    return resolve(SAMPLE_FORMATS, "benchmark", path, fmt).load(path, table)


def load_predictions(
    path: str | Path,
    fmt: str | None = None,
    samples: Mapping[str, Sample] | Iterable[Sample] | None = None,
    parse: str | None = None,
) -> PredictionList:
    """Read a prediction file; its content never raises (see `PredictionList`).

    Args:
        path: the file.
        fmt: one of `PREDICTION_FORMATS` ("canonical", "qvhighlights"); None detects it.
        samples: the benchmark, by qid (or as a list); raw responses are parsed with their
            video's duration when it is known.
        parse: "lenient" or "strict" (`longground.answers.PARSE_MODES`) for formats that
            hold raw answers; None reads them as written (lenient).

    Returns:
        A `PredictionList` (a list of `Prediction`, first record per qid) whose `skipped`
        lists unusable records and `duplicates` the repeated qids.

    Raises:
        UserError: only when the file cannot be opened or its format cannot be told (an
            empty file holds no predictions).
    """
    path = Path(path)
    if samples is None:
        samples = {}
    elif not isinstance(samples, Mapping):
        samples = {s.qid: s for s in samples}
    found = resolve(PREDICTION_FORMATS, "prediction", path, fmt, if_empty="canonical")
    if parse is not None:
        from ..answers import answer_parser

        answer_parser(parse)  # an unknown mode is an error even for formats without text
        if found.parses_text:
            return found.load(path, samples, parse=parse)
    return found.load(path, samples)


def write_samples(path: str | Path, samples: Iterable[Sample]) -> None:
    """Write samples as canonical benchmark JSONL (atomically)."""
    write_jsonl(Path(path), (sample_record(s) for s in samples))


def write_predictions(path: str | Path, preds: Iterable[Prediction | Mapping]) -> None:
    """Write predictions as canonical prediction JSONL (atomically); each item is a
    `Prediction` or a mapping accepted by `prediction_record`."""
    write_jsonl(Path(path), (prediction_record(p) for p in preds))
