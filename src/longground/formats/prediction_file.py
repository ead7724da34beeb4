"""Reading a prediction file so that no content can crash the evaluation.

Rules (also in docs/formats.md):
- a line that is not valid JSON but shows a readable `"qid"` becomes a parse failure for that
  qid; without a readable qid it is skipped and listed in `PredictionList.skipped`;
- a record without a usable qid is skipped and listed the same way;
- when a qid repeats, the first record wins; later ones are listed in `duplicates`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path

import numpy as np

from ..samples import Prediction, Sample
from .fast_json import paused_gc
from .fields import Checked, checked_batches
from .records import Record, qid_in_text, read_qid

# (record, qid, video duration or None) -> Prediction
FromRecord = Callable[[dict, str, float | None], Prediction]


class PredictionList(list):
    """A list of `Prediction` plus what could not be used.

    Attributes:
        skipped: one line per record dropped without a qid (`"path:line: reason"`).
        duplicates: qids that appeared again after their first record (first one wins).
    """

    def __init__(self, items=(), skipped=(), duplicates=()):
        super().__init__(items)
        self.skipped: list[str] = list(skipped)
        self.duplicates: list[str] = list(duplicates)


def _salvaged(record: Record) -> Prediction | None:
    """A parse failure for a malformed line whose qid can still be read, else None."""
    qid = qid_in_text(record.raw)
    if qid is None:
        return None
    return Prediction(qid, None, parse_error=f"line {record.line}: {record.error}")


def read_predictions(
    path: Path,
    samples: Mapping[str, Sample],
    from_record: FromRecord,
    qid_key: str = "qid",
    resolve_qid: Callable[[dict], str | None] | None = None,
    spans_key: str | None = None,
    from_batch: Callable[[list[Checked]], list[Prediction] | None] | None = None,
) -> PredictionList:
    """All predictions of `path`, each built by `from_record`.

    Args:
        path: the prediction file.
        samples: benchmark samples by qid, for video durations (may be empty).
        from_record: the format's converter for one record.
        qid_key: the field that holds the qid.
        resolve_qid: for a record without a usable qid, finds one (e.g. from its video and
            query, `qid_match.QidMatcher`); None when it cannot.
        spans_key: the field of interval lists to check for the whole file at once; a
            clean one reaches `from_record` as `spans=` (see `fields.checked_batches`).
        from_batch: optionally, a converter for a whole batch of `(record, spans)` that
            gives its predictions exactly as `from_record` would, or None to leave the
            batch to `from_record` record by record.
    """
    out = PredictionList()
    seen: set[str] = set()
    with paused_gc():
        for batch in checked_batches(path, spans_key):
            built = None if from_batch is None else from_batch(batch)
            if built is None:
                built = (
                    _prediction(record, samples, from_record, qid_key, resolve_qid, spans)
                    for record, spans in batch
                )
            for pred, (record, _) in zip(built, batch, strict=True):
                if isinstance(pred, str):
                    where = f"{path}:{record.line}" if record.line is not None else str(path)
                    out.skipped.append(f"{where}: {pred}")
                elif pred.qid in seen:
                    out.duplicates.append(pred.qid)
                else:
                    seen.add(pred.qid)
                    out.append(pred)
    return out


def _prediction(
    record: Record,
    samples: Mapping[str, Sample],
    from_record: FromRecord,
    qid_key: str,
    resolve_qid: Callable[[dict], str | None] | None = None,
    spans: np.ndarray | None = None,
) -> Prediction | str:
    """The prediction in `record`, or the reason it was skipped; `spans`: its intervals when
    already checked."""
    if record.error is not None:
        return _salvaged(record) or f"{record.error}; no readable qid, skipped"
    if not isinstance(record.value, dict):
        return "not a JSON object, skipped"
    qid = read_qid(record.value.get(qid_key))
    if qid is None and resolve_qid is not None:
        qid = resolve_qid(record.value)
        if qid is None:
            return f"no usable {qid_key!r} and no benchmark query with its video and query, skipped"
    if qid is None:
        return f"no usable {qid_key!r}, skipped"
    sample = samples.get(qid)
    duration_s = None if sample is None else sample.duration_s
    if spans is None:
        return from_record(record.value, qid, duration_s)
    return from_record(record.value, qid, duration_s, spans=spans)
