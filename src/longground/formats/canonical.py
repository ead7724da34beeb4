"""longground's own formats, read and written.

Benchmark, one JSON object per line::

    {"qid": "q1", "video": "v.mp4", "duration": 3600.0, "query": "...",
     "intervals": [[12.0, 20.5]], "attributes": ["causal"], "domain": "sports"}

`"intervals": []` is a negative query. Predictions, one JSON object per line::

    {"qid": "q1", "intervals": [[12.0, 20.5]]}          # or "intervals": null on failure
    {"qid": "q1", "response": "raw model text"}          # parsed with parse_answer
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from ..moments import Moments
from ..samples import Prediction, Sample
from . import fields
from .fast_json import clean_pairs
from .plain_batch import plain_predictions, plain_samples
from .prediction_file import PredictionList, read_predictions
from .records import Where
from .registry import (
    Peek,
    PredictionFormat,
    SampleFormat,
    register_prediction_format,
    register_sample_format,
)

if TYPE_CHECKING:
    from ..answers import ParsedAnswer

# Fields of a prediction line that longground reads; any others travel in `Prediction.extra`.
PREDICTION_KEYS = ("qid", "intervals", "scores", "response", "parse_error", "invalid_intervals")


def sample_from_record(record: dict, where: Where, spans: np.ndarray | None = None) -> Sample:
    """One canonical benchmark line as a `Sample` (strict: errors name file, line, qid);
    `spans`: its `intervals` when already checked (`fast_json.clean_pair_lists`)."""
    qid = fields.qid_field(record, "qid", where)
    where = where.at(qid)
    duration_s = fields.duration_field(fields.required(record, "duration", where), where)
    if spans is None:
        spans = fields.intervals(fields.required(record, "intervals", where), where)
    attributes = fields.attributes(record.get("attributes"), where)
    if "negative" in attributes and len(spans):
        raise where.error("attribute 'negative' given to a query with intervals")
    return Sample(
        qid=qid,
        video=fields.text_field(record, "video", where),
        duration_s=duration_s,
        query=fields.text_field(record, "query", where),
        gt=Moments.of_checked(spans),
        attributes=attributes,
        domain=str(record.get("domain") or ""),
    )


def sample_record(
    sample: Sample,
    extra: Mapping | None = None,
    attribute_order: Sequence[str] | None = None,
) -> dict:
    """The canonical benchmark line for one sample: the one place a benchmark line is made
    (synth, the construction pipelines, adjudication and the annotation export call it).

    Args:
        sample: the query and its ground truth.
        extra: fields written after the canonical ones (evidence, notes, scores); they may
            not replace a canonical field.
        attribute_order: the order attributes are listed in (default: sorted by name).

    >>> s = Sample("q1", "v.mp4", 60.0, "a dog", Moments.from_list([[1, 2]]), frozenset({"static"}))
    >>> sample_record(s)["intervals"], sample_record(s)["attributes"]
    ([[1.0, 2.0]], ['static'])
    >>> sample_record(s, extra={"note": "x"})["note"]
    'x'
    """
    attributes = sorted(sample.attributes)
    if attribute_order is not None:
        rank = {name: i for i, name in enumerate(attribute_order)}
        attributes.sort(key=lambda a: rank.get(a, len(rank)))
    record = {
        "qid": sample.qid,
        "video": sample.video,
        "duration": sample.duration_s,
        "query": sample.query,
        "intervals": sample.gt.to_list(),
        "attributes": attributes,
        "domain": sample.domain,
    }
    clash = sorted(set(extra or {}) & set(record))
    if clash:
        raise ValueError(f"{sample.qid}: extra fields may not replace {clash}")
    return {**record, **(extra or {})}


def _interval_answer(record: dict, spans: np.ndarray | None = None) -> ParsedAnswer:
    """The answer held in a line's `intervals` (with optional parallel `scores`); `spans`:
    those intervals when already checked (`fast_json.clean_pair_lists`)."""
    from ..answers import ParsedAnswer, moments_from_json  # its patterns take a while

    items = record["intervals"]
    if not isinstance(items, list):
        return ParsedAnswer(None, f"'intervals' is not a list: {items!r:.60}")
    scores = record.get("scores")
    if scores is not None:
        spans = None
    elif spans is None:
        spans = clean_pairs(items)
    if spans is not None:  # plain pairs: what moments_from_json gives, without its loop
        return ParsedAnswer(Moments.of_checked(spans), None, 0)
    if isinstance(scores, list) and len(scores) == len(items):
        items = [
            [*i, s] if isinstance(i, list) and len(i) == 2 else i
            for i, s in zip(items, scores, strict=True)
        ]
    return moments_from_json(items)


def prediction_from_record(
    record: dict,
    qid: str,
    duration_s: float | None,
    parse: str | None = None,
    spans: np.ndarray | None = None,
) -> Prediction:
    """One canonical prediction line. `intervals` wins over `response`; a line with neither
    is a parse failure carrying its `parse_error` or `error` text.

    With `parse="strict"` a line's `response` is read again under the JSON-only rule and
    wins over its `intervals` (which a lenient reader may have recovered from prose).
    `spans`: the line's `intervals` when already checked (`fast_json.clean_pair_lists`)."""
    from ..answers import ParsedAnswer, answer_parser, parse_answer

    raw = record.get("response") if isinstance(record.get("response"), str) else None
    if parse == "strict" and raw is not None:
        parsed = answer_parser(parse)(raw, duration_s)
    elif record.get("intervals") is not None:
        parsed = _interval_answer(record, spans)
    elif raw is not None:
        parsed = parse_answer(raw, duration_s)
    else:
        reason = record.get("parse_error") or record.get("error") or "no intervals and no response"
        parsed = ParsedAnswer(None, str(reason))
    stored = record.get("invalid_intervals")
    stored = (
        stored if isinstance(stored, int) and not isinstance(stored, bool) and stored > 0 else 0
    )
    return Prediction(
        qid=qid,
        moments=parsed.moments,
        raw=raw,
        parse_error=parsed.error,
        invalid_intervals=parsed.invalid_intervals + stored,
        extra={k: v for k, v in record.items() if k not in PREDICTION_KEYS},
    )


def prediction_record(pred: Prediction | Mapping) -> dict:
    """The canonical prediction line for one prediction.

    Args:
        pred: a `Prediction`, or a mapping of fields: `qid`; `moments` (`Moments`) or
            `intervals` (a list of `[s, e]`, or None on failure) with optional `scores`;
            `raw` or `response`; `parse_error`; `invalid_intervals`; `extra`. Any other key
            (e.g. `timings`, `method`, `error`) joins `extra`.

    Returns:
        `{"qid", "intervals": [[s, e], ...] | None}` plus `scores`, `response`,
        `parse_error` and `invalid_intervals` when set, then the `extra` fields.

    >>> prediction_record(Prediction("q1", Moments.from_list([[1, 2]]), raw="1-2 s"))
    {'qid': 'q1', 'intervals': [[1.0, 2.0]], 'response': '1-2 s'}
    >>> prediction_record({"qid": "q2", "intervals": None, "parse_error": "no interval", "ms": 3})
    {'qid': 'q2', 'intervals': None, 'parse_error': 'no interval', 'ms': 3}
    """
    if isinstance(pred, Mapping):
        pred = _as_prediction(pred)
    moments = pred.moments
    row: dict = {"qid": pred.qid, "intervals": None if moments is None else moments.to_list()}
    if moments is not None and moments.scores is not None:
        row["scores"] = moments.scores.tolist()
    optional = {"response": pred.raw, "parse_error": pred.parse_error}
    row.update({k: v for k, v in optional.items() if v is not None})
    if pred.invalid_intervals:
        row["invalid_intervals"] = pred.invalid_intervals
    row.update({k: v for k, v in pred.extra.items() if k not in row})
    return row


def _as_prediction(fields_: Mapping) -> Prediction:
    """A `Prediction` from a mapping that uses `Prediction` or canonical-line field names."""
    rest = dict(fields_)
    moments = rest.pop("moments", None)
    intervals, scores = rest.pop("intervals", None), rest.pop("scores", None)
    if moments is None and intervals is not None:
        moments = Moments.from_list(intervals, scores)
    elif moments is not None and not isinstance(moments, Moments):
        moments = Moments.from_list(moments, scores)
    raw, response = rest.pop("raw", None), rest.pop("response", None)
    return Prediction(
        qid=rest.pop("qid"),
        moments=moments,
        raw=raw if raw is not None else response,
        parse_error=rest.pop("parse_error", None),
        invalid_intervals=int(rest.pop("invalid_intervals", 0) or 0),
        extra={**rest.pop("extra", {}), **rest},
    )


def _load_samples(path: Path, durations: Mapping[str, float] | None) -> list[Sample]:
    return fields.load_record_samples(
        path, sample_from_record, spans_key="intervals", from_batch=plain_samples
    )


def _load_predictions(
    path: Path, samples: Mapping[str, Sample], parse: str | None = None
) -> PredictionList:
    return read_predictions(
        path,
        samples,
        partial(prediction_from_record, parse=parse),
        spans_key="intervals",
        from_batch=partial(plain_predictions, known_keys=frozenset(PREDICTION_KEYS), parse=parse),
    )


def _is_canonical_sample(peek: Peek) -> bool:
    return peek.first is not None and {"qid", "query", "intervals"} <= peek.first.keys()


def _is_canonical_prediction(peek: Peek) -> bool:
    first = peek.first
    return first is not None and "qid" in first and ("intervals" in first or "response" in first)


register_sample_format(
    SampleFormat("canonical", "longground benchmark JSONL", _is_canonical_sample, _load_samples)
)
register_prediction_format(
    PredictionFormat(
        "canonical",
        "longground predictions JSONL (intervals or raw response)",
        _is_canonical_prediction,
        _load_predictions,
        parses_text=True,
    )
)
