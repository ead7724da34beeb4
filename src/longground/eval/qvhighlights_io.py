"""Reading QVHighlights files for `--protocol qvhighlights`: GT windows with the three
annotators' clip saliency, and predictions with scored windows and clip saliency.

Unlike the `single` and `comet` protocols, this one needs what only the QVHighlights format
carries (window scores, saliency), so it reads the files itself, strictly: a line that lacks
a window score, `pred_saliency_scores` or a GT saliency field is a one-line error naming the
file, line and qid. A reversed or non-finite predicted window is dropped and counted.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ..errors import UserError
from ..formats import fields
from ..formats.qid_match import QidMatcher
from ..formats.records import Where, qid_in_text, read_qid, records
from .padded import SpanTable

CLIP_S = 2.0  # QVHighlights saliency is annotated per 2-second clip
N_ANNOTATORS = 3
PROTOCOL_NOTE = "--protocol qvhighlights"


@dataclass(frozen=True)
class HighlightTruth:
    """QVHighlights ground truth of Q queries.

    Attributes:
        qids: `(Q,)` query ids as text, in file order.
        windows: GT windows in seconds (`SpanTable`, Q queries).
        saliency: `(Q, C, 3)` int annotator scores 0-4 per 2-s clip; 0 outside
            `relevant_clip_ids` and past a query's clips.
        n_clips: `(Q,)` clips per video: `int(duration_s / 2)` (more if a relevant clip id
            lies beyond that).
        asked: `(Q,)` `(vid, query)` of each query ("" when absent), to find the qid of a
            prediction line that names its query instead (lighthouse).
    """

    qids: tuple[str, ...]
    windows: SpanTable
    saliency: np.ndarray
    n_clips: np.ndarray
    asked: tuple[tuple[str, str], ...] = ()


@dataclass(frozen=True)
class HighlightPredictions:
    """Predictions lined up with a `HighlightTruth` (missing queries are empty).

    Attributes:
        windows: predicted windows in seconds, in the file's order (`SpanTable`, Q queries).
        scores: `(N + 1,)` float64 score of each row of `windows.flat` (last: padding).
        saliency: `(Q, S)` float64 predicted clip scores, zero-padded.
        n_saliency: `(Q,)` int number of predicted clip scores of each query.
        answered: `(Q,)` bool, the query has a prediction line.
        invalid_windows: windows dropped as reversed or non-finite.
        unknown_qids: prediction qids not in the GT.
        duplicate_qids: qids predicted again after their first line (the first is used).
    """

    windows: SpanTable
    scores: np.ndarray
    saliency: np.ndarray
    n_saliency: np.ndarray
    answered: np.ndarray
    invalid_windows: int = 0
    unknown_qids: tuple[str, ...] = ()
    duplicate_qids: tuple[str, ...] = ()


def numbered(source: str | Path | Iterable[dict]) -> tuple[str, Iterable]:
    """`(name, records)` of a file path or of in-memory dicts (numbered from 1)."""
    if isinstance(source, str | Path):
        return str(source), records(Path(source))
    from ..formats.records import Record

    return "<records>", (Record(i, value) for i, value in enumerate(source, start=1))


def _objects(source) -> Iterable[tuple[dict, Where]]:
    name, items = numbered(source)
    for record in items:
        where = Where(Path(name), record.line)
        if record.error is not None:
            raise where.at(qid_in_text(record.raw)).error(record.error)
        if not isinstance(record.value, dict):
            raise where.error("expected a JSON object")
        yield record.value, where


def _number_list(record: dict, key: str, where: Where) -> list:
    value = record.get(key)
    if value is None:
        raise where.error(f"missing field {key!r} ({PROTOCOL_NOTE} needs it)")
    if not isinstance(value, list):
        raise where.error(f"field {key!r} must be a list, got {value!r:.60}")
    return value


def _finite(value: object, what: str, where: Where) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        raise where.error(f"{what} must be a finite number, got {value!r:.40}")
    return float(value)


def _truth_row(record: dict, where: Where) -> tuple[str, np.ndarray, np.ndarray, int]:
    qid = fields.qid_field(record, "qid", where)
    where = where.at(qid)
    duration_s = fields.duration_field(fields.required(record, "duration", where), where)
    windows = fields.intervals(fields.required(record, "relevant_windows", where), where)
    clip_ids = _number_list(record, "relevant_clip_ids", where)
    scores = _number_list(record, "saliency_scores", where)
    if len(clip_ids) != len(scores):
        raise where.error(f"{len(clip_ids)} relevant_clip_ids but {len(scores)} saliency_scores")
    ids = np.array([_clip_id(c, where) for c in clip_ids], dtype=np.int64)
    rows = _annotator_rows(scores, where)
    n_clips = max(int(duration_s / CLIP_S), int(ids.max(initial=-1)) + 1)
    saliency = np.zeros((n_clips, N_ANNOTATORS), dtype=np.int64)
    saliency[ids] = rows
    return qid, windows, saliency, n_clips


def _annotator_rows(scores: list, where: Where) -> np.ndarray:
    """`(K, 3)` annotator scores; an error naming the first malformed row."""
    try:
        rows = np.array(scores, dtype=np.float64).reshape(-1, N_ANNOTATORS)
        good = rows.shape[0] == len(scores) and bool(np.isfinite(rows).all())
    except (TypeError, ValueError):
        good = False
    if good:
        return rows.astype(np.int64)
    for i, row in enumerate(scores):
        if not isinstance(row, list) or len(row) != N_ANNOTATORS:
            raise where.error(f"saliency_scores[{i}] must list {N_ANNOTATORS} annotator scores")
        for v in row:
            _finite(v, f"saliency_scores[{i}]", where)
    raise where.error("saliency_scores must be lists of numbers")  # unreachable in practice


def _clip_id(value: object, where: Where) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise where.error(f"relevant_clip_ids must be integers >= 0, got {value!r:.40}")
    return value


def read_truth(source: str | Path | Iterable[dict]) -> HighlightTruth:
    """QVHighlights GT (`highlight_val_release.jsonl` style) from a path or dicts.

    Raises:
        UserError: a malformed line, a missing field or a repeated qid (file:line, qid).

    >>> t = read_truth([{"qid": 1, "duration": 10, "relevant_windows": [[2, 6]],
    ...                  "relevant_clip_ids": [1, 2], "saliency_scores": [[1, 2, 3], [4, 4, 4]]}])
    >>> t.qids, t.n_clips.tolist(), t.saliency[0, 1:3].tolist()
    (('1',), [5], [[1, 2, 3], [4, 4, 4]])
    """
    qids, windows, saliency, n_clips, lines, asked = [], [], [], [], {}, []
    for record, where in _objects(source):
        qid, spans, clips, n = _truth_row(record, where)
        asked.append(tuple(str(record.get(k) or "") for k in ("vid", "query")))
        if qid in lines:
            raise where.at(qid).error(f"duplicated qid (first on line {lines[qid]})")
        lines[qid] = where.line
        qids.append(qid), windows.append(spans), saliency.append(clips), n_clips.append(n)
    if not qids:
        raise UserError(f"{numbered(source)[0]}: no queries")
    width = max(max(n_clips), 1)
    padded = np.zeros((len(qids), width, N_ANNOTATORS), dtype=np.int64)
    for i, clips in enumerate(saliency):
        padded[i, : len(clips)] = clips
    return HighlightTruth(
        tuple(qids), SpanTable.from_arrays(windows), padded, np.array(n_clips, dtype=np.int64),
        tuple(asked),
    )  # fmt: skip


def _window(item: object, index: int, where: Where) -> tuple[float, float, float] | None:
    """`(start_s, end_s, score)`, None for a reversed or non-finite window; an error when the
    score is missing."""
    if not isinstance(item, list | tuple) or len(item) not in (2, 3):
        raise where.error(f"pred_relevant_windows[{index}] must be [start, end, score]")
    if len(item) == 2:
        raise where.error(
            f"pred_relevant_windows[{index}] has no score ({PROTOCOL_NOTE} ranks windows "
            "by score: write [start, end, score])"
        )
    if any(isinstance(v, bool) or not isinstance(v, int | float) for v in item):
        raise where.error(f"pred_relevant_windows[{index}] must hold numbers, got {item!r:.60}")
    start_s, end_s, score = (float(v) for v in item)
    if not all(math.isfinite(v) for v in (start_s, end_s, score)) or end_s < start_s:
        return None
    return start_s, end_s, score


def _prediction_row(record: dict, where: Where) -> tuple[np.ndarray, np.ndarray, int]:
    """`((K, 3) windows with scores, (S,) saliency, invalid windows)` of one line."""
    items = _number_list(record, "pred_relevant_windows", where)
    parsed = [_window(item, i, where) for i, item in enumerate(items)]
    kept = np.array([p for p in parsed if p is not None], dtype=np.float64).reshape(-1, 3)
    saliency = _scores(_number_list(record, "pred_saliency_scores", where), where)
    return kept, saliency, len(parsed) - len(kept)


def _scores(values: list, where: Where) -> np.ndarray:
    """`(S,)` float64 finite clip scores; an error naming the first bad one."""
    try:
        scores = np.array(values, dtype=np.float64)
    except (TypeError, ValueError):
        scores = None
    if scores is None or scores.ndim != 1 or not np.isfinite(scores).all():
        for i, v in enumerate(values):
            _finite(v, f"pred_saliency_scores[{i}]", where)
    return scores


def read_predictions(
    source: str | Path | Iterable[dict], truth: HighlightTruth
) -> HighlightPredictions:
    """Moment-DETR-style predictions lined up with `truth` by qid.

    Raises:
        UserError: a malformed line, or one without window scores or `pred_saliency_scores`.
    """
    position = {qid: i for i, qid in enumerate(truth.qids)}
    rows: list = [None] * len(truth.qids)
    unknown, duplicates, invalid = [], [], 0
    matcher = QidMatcher((q, v, t) for q, (v, t) in zip(truth.qids, truth.asked, strict=True))
    for record, where in _objects(source):
        qid = read_qid(record.get("qid"))
        if qid is None and "qid" not in record:  # lighthouse: the query names itself
            qid = matcher.match_record(record)
            if qid is None:
                raise where.error(
                    "missing or unusable field 'qid', and no GT query has its vid and query"
                )
        if qid is None:
            raise where.error("missing or unusable field 'qid'")
        i = position.get(qid)
        if i is None:
            unknown.append(qid)
            continue
        if rows[i] is not None:
            duplicates.append(qid)
            continue
        rows[i] = _prediction_row(record, where.at(qid))
        invalid += rows[i][2]
    return _stack(rows, tuple(unknown), tuple(duplicates), invalid)


def _stack(rows: list, unknown: tuple, duplicates: tuple, invalid: int) -> HighlightPredictions:
    empty = (np.zeros((0, 3)), np.zeros(0), 0)
    answered = np.array([row is not None for row in rows], dtype=bool)
    rows = [row or empty for row in rows]
    windows = SpanTable.from_arrays([row[0][:, :2] for row in rows])
    scores = np.concatenate([*(row[0][:, 2] for row in rows), [0.0]])
    n_saliency = np.array([len(row[1]) for row in rows], dtype=np.int64)
    saliency = np.zeros((len(rows), int(n_saliency.max(initial=0))))
    for i, row in enumerate(rows):
        saliency[i, : len(row[1])] = row[1]
    return HighlightPredictions(
        windows, scores, saliency, n_saliency, answered, invalid, unknown, duplicates
    )
