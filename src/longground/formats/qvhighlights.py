"""QVHighlights / Moment-DETR JSON Lines.

Ground truth: `{"qid", "vid", "query", "duration", "relevant_windows": [[s, e], ...]}`.
Predictions: `{"qid", "pred_relevant_windows": [[s, e, score], ...]}`; the windows keep their
order and their scores (Moment-DETR writes them sorted by score, so the first is the R1 window).
Lines without a qid (lighthouse: `{"query", "vid", "pred_relevant_windows", ...}`) are matched
to the benchmark query with the same video and text.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from ..moments import Moments
from ..samples import Prediction, Sample
from . import fields
from .prediction_file import PredictionList, read_predictions
from .qid_match import QidMatcher
from .records import Where
from .registry import (
    PredictionFormat,
    SampleFormat,
    register_prediction_format,
    register_sample_format,
)


def sample_from_record(record: dict, where: Where) -> Sample:
    """One QVHighlights ground-truth line as a `Sample`."""
    qid = fields.qid_field(record, "qid", where)
    where = where.at(qid)
    return Sample(
        qid=qid,
        video=fields.text_field(record, "vid", where),
        duration_s=fields.duration_field(fields.required(record, "duration", where), where),
        query=fields.text_field(record, "query", where),
        gt=Moments(fields.intervals(fields.required(record, "relevant_windows", where), where)),
    )


def prediction_from_record(record: dict, qid: str, duration_s: float | None) -> Prediction:
    """One Moment-DETR prediction line; a missing or malformed window list is a parse
    failure, a bad window is dropped and counted."""
    from ..answers import ParsedAnswer, moments_from_json  # its patterns take a while to build

    windows = record.get("pred_relevant_windows")
    if isinstance(windows, list):
        parsed = moments_from_json(windows)
    else:
        parsed = ParsedAnswer(None, "no 'pred_relevant_windows' list")
    return Prediction(qid, parsed.moments, None, parsed.error, parsed.invalid_intervals)


def _load_samples(path: Path, durations: Mapping[str, float] | None) -> list[Sample]:
    return fields.load_record_samples(path, sample_from_record)


def _load_predictions(path: Path, samples: Mapping[str, Sample]) -> PredictionList:
    """Lines without a qid (lighthouse's `predict` output) are matched to the benchmark by
    their `vid` and `query` (`qid_match`)."""
    matcher = QidMatcher.from_samples(samples.values())
    return read_predictions(path, samples, prediction_from_record, resolve_qid=matcher.match_record)


register_sample_format(
    SampleFormat(
        "qvhighlights",
        "QVHighlights / Moment-DETR ground truth (relevant_windows)",
        lambda peek: peek.first is not None and "relevant_windows" in peek.first,
        _load_samples,
    )
)
register_prediction_format(
    PredictionFormat(
        "qvhighlights",
        "Moment-DETR predictions (pred_relevant_windows [[s, e, score], ...])",
        lambda peek: peek.first is not None and "pred_relevant_windows" in peek.first,
        _load_predictions,
    )
)
