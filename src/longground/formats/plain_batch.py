"""Canonical benchmark records a batch at a time, for files where every record is plain.

`canonical.sample_from_record` checks one record with a dozen calls; for a batch of records
whose fields are all of the plain kind (string qid, video and query, a number for the
duration, interval lists already checked by `fast_json.clean_pair_lists`), the same checks
run once per batch over lists, in C where they can. A batch with anything else in it (a
missing field, a qid given as a number, a duration as a clock time, an attribute that is
not known...) gives None and goes through `sample_from_record` record by record, so every
error keeps its message, file, line and qid; a Hypothesis test holds this path to that one.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np

from ..errors import BadInputFile
from ..moments import Moments
from ..samples import Prediction, Sample
from ..text import text_problem
from . import fields
from .fields import Checked
from .records import Where

_NUMBERS = {int, float}
_LIMIT_S = 1e300  # durations at or past it go through `fields.seconds` (huge integers)


def plain_samples(batch: Sequence[Checked]) -> list[tuple[int | None, Sample]] | None:
    """`(line, Sample)` for every record of `batch`, as `canonical.sample_from_record` makes
    them, or None when any record is not plain.

    >>> from longground.formats.records import Record
    >>> rec = {"qid": "q1", "video": "v.mp4", "duration": 60, "query": "a dog"}
    >>> [(line, s.qid, s.duration_s) for line, s in plain_samples(
    ...     [(Record(1, rec), np.array([[1.0, 2.0]]))])]
    [(1, 'q1', 60.0)]
    >>> plain_samples([(Record(1, {**rec, "qid": 7}), np.array([[1.0, 2.0]]))]) is None
    True
    """
    values, spans = _unzip(batch)
    if values is None:
        return None  # a malformed line, or intervals left to the exact checks
    qids = _texts(values, "qid")
    videos, queries = _texts(values, "video"), _texts(values, "query")
    durations = _durations([value.get("duration") for value in values])
    attributes = _attributes(values, batch)
    if None in (qids, videos, queries, durations, attributes):
        return None
    if not _negatives_agree(attributes, spans):
        return None
    qids = [qid.strip() for qid in qids]  # as `records.read_qid` gives them
    return [
        (
            record.line,
            Sample(
                qid=qid,
                video=video,
                duration_s=duration_s,
                query=query,
                gt=Moments.of_checked(gt),
                attributes=names,
                domain=str(record.value.get("domain") or ""),
            ),
        )
        for (record, gt), qid, video, query, duration_s, names in zip(
            batch, qids, videos, queries, durations, attributes, strict=True
        )
    ]


def _unzip(batch: Sequence[Checked]) -> tuple[list[dict] | None, list[np.ndarray]]:
    """The batch's record values and interval arrays; values None when the batch is empty or
    holds a line that is not an object, or intervals left to the exact checks."""
    values = [record.value for record, _ in batch]
    spans = [s for _, s in batch]
    if not batch or set(map(type, values)) != {dict} or set(map(type, spans)) != {np.ndarray}:
        return None, spans
    return values, spans


def _texts(values: list[dict], key: str) -> list[str] | None:
    """Field `key` of every record when each is a non-blank string of valid text (one
    check over them all), else None."""
    texts = [value.get(key) for value in values]
    if set(map(type, texts)) != {str} or not all(map(str.strip, texts)):
        return None
    if text_problem("\n".join(texts)) is not None:  # a NUL or a lone surrogate somewhere
        return None
    return texts


def _durations(values: list[object]) -> list[float] | None:
    """The durations as floats when all are numbers with `0 < d < 1e300`, else None.

    A number converts to a float below 1e300 only if it is itself below 1e300, so the
    comparisons on the floats say what `fields.duration_field` says on the numbers.
    """
    if not set(map(type, values)) <= _NUMBERS:
        return None
    try:
        seconds = np.array(values, dtype=np.float64)
    except OverflowError:  # an integer past float's range
        return None
    if not ((seconds > 0) & (seconds < _LIMIT_S)).all():  # NaN fails both
        return None
    return seconds.tolist()


def _attributes(values: list[dict], batch: Sequence[Checked]) -> list[frozenset] | None:
    """Each record's attributes as `fields.attributes` reads them (each distinct list or
    string read once), or None when any record's are not a list of strings or a string of
    known names."""
    known: dict[object, frozenset] = {None: frozenset(), "": frozenset()}
    out = []
    for value, (record, _) in zip(values, batch, strict=True):
        given = value.get("attributes")
        if type(given) is list:
            if not set(map(type, given)) <= {str}:
                return None
            key = tuple(given)
        elif given is None or type(given) is str:
            key = given
        else:
            return None
        names = known.get(key)
        if names is None:
            try:
                names = known[key] = fields.attributes(given, Where(Path(), record.line))
            except BadInputFile:  # names that are not CoMET attributes
                return None
        out.append(names)
    return out


def _negatives_agree(attributes: list[frozenset], spans: list[np.ndarray]) -> bool:
    """Whether no query marked 'negative' has intervals (which `sample_from_record` refuses)."""
    return not any(
        "negative" in names and len(gt) for names, gt in zip(attributes, spans, strict=True)
    )


def plain_predictions(
    batch: Sequence[Checked], known_keys: frozenset[str], parse: str | None = None
) -> list[Prediction] | None:
    """The `Prediction` of every record of `batch`, as `canonical.prediction_from_record`
    makes it from a line with a string qid and clean `intervals` (no `scores`), or None when
    any record is not such a line.

    Args:
        batch: records with their checked interval arrays.
        known_keys: the fields longground reads; the others go to `Prediction.extra`.
        parse: the parse mode; under "strict" a line's `response` wins over its intervals,
            so a batch with a response is left to `prediction_from_record`.

    >>> from longground.formats.records import Record
    >>> rec = {"qid": " q1", "intervals": [[1, 2]], "ms": 5}
    >>> [(p.qid, p.moments.to_list(), p.extra) for p in plain_predictions(
    ...     [(Record(1, rec), np.array([[1.0, 2.0]]))], frozenset({"qid", "intervals"}))]
    [('q1', [[1.0, 2.0]], {'ms': 5})]
    """
    values, spans = _unzip(batch)
    if values is None:
        return None
    qids = [value.get("qid") for value in values]
    if set(map(type, qids)) != {str} or not all(map(str.strip, qids)):
        return None
    if any(value.get("scores") is not None for value in values):
        return None
    responses = [value.get("response") for value in values]
    responses = [text if type(text) is str else None for text in responses]
    if parse == "strict" and any(text is not None for text in responses):
        return None
    return [
        Prediction(
            qid=qid.strip(),
            moments=Moments.of_checked(gt),
            raw=text,
            parse_error=None,
            invalid_intervals=_stored_invalid(value.get("invalid_intervals")),
            extra={} if value.keys() <= known_keys else _extra(value, known_keys),
        )
        for value, gt, qid, text in zip(values, spans, qids, responses, strict=True)
    ]


def _stored_invalid(value: object) -> int:
    """A line's `invalid_intervals` count: a positive integer, else 0."""
    return value if type(value) is int and value > 0 else 0


def _extra(value: dict, known_keys: frozenset[str]) -> dict:
    return {k: v for k, v in value.items() if k not in known_keys}
