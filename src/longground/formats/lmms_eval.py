"""lmms-eval `--log_samples` files as predictions.

lmms-eval writes one JSON line per question (`samples_<task>.jsonl`):
`{"doc_id", "doc": {the dataset row}, "target", "arguments", "resps": [[text]],
"filtered_resps": [text], ...}`. The answer is the first filtered response (else the first
raw one), read with the parse mode asked for (`--parse`). The line names no benchmark qid,
so the qid is found from the dataset row: a `qid` / `question_id` / `query_id` / `id` field
that is a benchmark qid, else its video and query text (`qid_match`), e.g. Charades-STA's
`{"video": "3MSZA.mp4", "caption": "person turn a light on.", "timestamp": [24.3, 30.4]}`.
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import partial
from pathlib import Path

from ..samples import Prediction, Sample
from .prediction_file import PredictionList, read_predictions
from .qid_match import QidMatcher
from .records import read_qid
from .registry import Peek, PredictionFormat, register_prediction_format

_ID_KEYS = ("qid", "question_id", "query_id", "id")


def response_text(record: dict) -> str | None:
    """The model's answer in a log line: the first filtered response, else the first raw one
    (lists nest one level per request).

    >>> response_text({"filtered_resps": [["[[1, 2]]"]], "resps": [["x"]]})
    '[[1, 2]]'
    >>> response_text({"resps": [["12 - 20 s"]]}), response_text({"resps": []})
    ('12 - 20 s', None)
    """
    for key in ("filtered_resps", "resps"):
        value = record.get(key)
        while isinstance(value, list) and value:
            value = value[0]
        if isinstance(value, str):
            return value
    return None


def qid_of(record: dict, samples: Mapping[str, Sample], matcher: QidMatcher) -> str | None:
    """The benchmark qid a log line answers, from its dataset row (`doc`)."""
    doc = record.get("doc")
    if not isinstance(doc, dict):
        return None
    for key in _ID_KEYS:
        qid = read_qid(doc.get(key))
        if qid is not None and qid in samples:
            return qid
    return matcher.match_record(doc)


def prediction_from_record(
    record: dict, qid: str, duration_s: float | None, parse: str | None = None
) -> Prediction:
    """One log line: its response read with the parse mode."""
    from ..answers import ParsedAnswer, answer_parser  # its patterns take a while to build

    raw = response_text(record)
    if raw is None:
        parsed = ParsedAnswer(None, "no response in 'filtered_resps' or 'resps'")
    else:
        parsed = answer_parser(parse)(raw, duration_s)
    extra = {"doc_id": record["doc_id"]} if "doc_id" in record else {}
    return Prediction(qid, parsed.moments, raw, parsed.error, parsed.invalid_intervals, extra)


def _load(path: Path, samples: Mapping[str, Sample], parse: str | None = None) -> PredictionList:
    matcher = QidMatcher.from_samples(samples.values())
    return read_predictions(
        path,
        samples,
        partial(prediction_from_record, parse=parse),
        qid_key="qid",
        resolve_qid=lambda record: qid_of(record, samples, matcher),
    )


def _detect(peek: Peek) -> bool:
    first = peek.first
    return (
        first is not None
        and {"doc_id", "doc"} <= first.keys()
        and ("filtered_resps" in first or "resps" in first)
    )


register_prediction_format(
    PredictionFormat(
        "lmms-eval",
        "lmms-eval --log_samples lines (doc, resps); qids found from the dataset row",
        _detect,
        _load,
        parses_text=True,
    )
)
