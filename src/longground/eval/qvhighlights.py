"""The QVHighlights evaluation (as Moment-DETR's standalone evaluator defines it, and the
papers that reuse it report): moment-retrieval mAP and R1, and highlight-detection mAP and
HIT@1, in the nested layout of the published metrics files.

Moment retrieval, per length bucket of GT windows (full; short (0, 10]; middle (10, 30];
long (30, 150] s; in a bucket a query keeps only its GT windows of that length and is dropped
when it has none):
- mAP@τ for τ = 0.5, 0.55, ..., 0.95: AP (see `detection_ap`) of a query's first 10 windows,
  as written, ranked by score, against all its GT windows; averaged over queries; "average" is
  the mean over the ten thresholds.
- R1@τ: the fraction of queries whose first window has tIoU >= τ with its best GT window.

Highlight detection, at the saliency levels Fair (>= 2), Good (>= 3), VeryGood (>= 4): a clip
(2 s) is positive for an annotator when they scored it at least the level (clips outside
`relevant_clip_ids` score 0). The predicted `pred_saliency_scores` are cut or zero-padded to
the video's `int(duration / 2)` clips. HL-mAP is `saliency_ap` averaged over the three
annotators and the queries; HL-Hit1 is the fraction of queries whose top-scored clip is
positive for at least one annotator.

A GT query without a prediction line scores 0 everywhere (and is counted as missing).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from .detection_ap import detection_ap, ranked_by_score
from .grounding import first_prediction_iou
from .padded import SpanTable, batched_tiou, query_chunks
from .qvhighlights_io import (
    HighlightPredictions,
    HighlightTruth,
    read_predictions,
    read_truth,
)
from .saliency import hit_at_one, saliency_ap

THRESHOLDS = tuple(round(0.5 + 0.05 * i, 2) for i in range(10))
# R1 goes down to 0.3 and each bucket has its mIoU, as CG-DETR's evaluator writes them (a
# superset of Moment-DETR's layout).
R1_THRESHOLDS = tuple(round(0.3 + 0.05 * i, 2) for i in range(14))
# (name, lowest length excluded, highest included) in seconds; None: every window.
BUCKETS = (
    ("short", 0.0, 10.0),
    ("middle", 10.0, 30.0),
    ("long", 30.0, 150.0),
    ("full", None, None),
)
LEVELS = (("Fair", 2), ("Good", 3), ("VeryGood", 4))
MAX_WINDOWS = 10


@dataclass(frozen=True)
class QVHighlightsScores:
    """Per-query scores, all fractions.

    Attributes:
        qids: `(Q,)` query ids.
        mr_ap: bucket name -> `(Q, 10)` AP at each threshold (NaN: query not in the bucket).
        mr_iou: bucket name -> `(Q,)` tIoU of the first window with its best GT (NaN: not in
            the bucket).
        hl_ap: `(Q, 3 levels, 3 annotators)` saliency AP.
        hl_hit: `(Q, 3 levels)` bool HIT@1.
        answered: `(Q,)` bool, the query has a prediction line.
        invalid_windows: predicted windows dropped as reversed or non-finite.
        unknown_qids: prediction qids not in the GT.
        duplicate_qids: qids predicted more than once (the first line is used).
    """

    qids: tuple[str, ...]
    mr_ap: dict[str, np.ndarray]
    mr_iou: dict[str, np.ndarray]
    hl_ap: np.ndarray
    hl_hit: np.ndarray
    answered: np.ndarray
    invalid_windows: int = 0
    unknown_qids: tuple[str, ...] = ()
    duplicate_qids: tuple[str, ...] = ()

    def metrics(self) -> dict:
        """The nested metrics as fractions (None where a bucket has no query)."""
        return nested_metrics(self)

    def rows(self) -> list[dict]:
        """One JSON-ready dict per query: full-bucket AP per threshold, R1 tIoU, HL AP and
        HIT@1 per level."""
        out = []
        for q, qid in enumerate(self.qids):
            levels = [name for name, _ in LEVELS]
            out.append(
                {
                    "qid": qid,
                    "answered": bool(self.answered[q]),
                    "mr_ap": dict(zip(map(str, THRESHOLDS), self.mr_ap["full"][q].tolist())),
                    "r1_iou": _plain(self.mr_iou["full"][q]),
                    "hl_ap": dict(zip(levels, self.hl_ap[q].mean(axis=1).tolist())),
                    "hl_hit1": dict(zip(levels, self.hl_hit[q].tolist())),
                }
            )
        return out


def _plain(value: float) -> float | None:
    return None if math.isnan(value) else float(value)


def bucket_windows(windows: SpanTable, low_s: float | None, high_s: float | None) -> SpanTable:
    """Each query's GT windows whose length lies in `(low_s, high_s]` (all when None).

    >>> t = SpanTable.from_arrays([np.array([[0.0, 4.0], [10.0, 30.0]]), np.array([[0.0, 60.0]])])
    >>> bucket_windows(t, 10.0, 30.0).lengths.tolist()
    [1, 0]
    """
    if low_s is None:
        return windows
    spans = windows.entries()
    length_s = spans[:, 1] - spans[:, 0]
    keep = (length_s > low_s) & (length_s <= high_s)
    lengths = np.bincount(windows.query_of_entry()[keep], minlength=len(windows.lengths))
    return table_of(spans[keep], lengths)


def table_of(entries: np.ndarray, lengths: np.ndarray) -> SpanTable:
    """A `SpanTable` of `(E, 2)` spans laid out query after query with `(Q,)` counts."""
    flat = np.concatenate([entries, np.zeros((1, 2))])
    return SpanTable(flat, np.cumsum(lengths) - lengths, lengths.astype(np.int64))


def moment_scores(
    gt: SpanTable, ranked: SpanTable, first: SpanTable
) -> tuple[np.ndarray, np.ndarray]:
    """AP at each threshold and first-window tIoU of every query with a GT window.

    Args:
        gt: GT windows of Q queries (one bucket).
        ranked: up to 10 predicted windows per query, ranked by score.
        first: each query's first predicted window as written.

    Returns:
        `((Q, 10) AP, (Q,) tIoU)`, NaN for queries without GT windows.
    """
    n_queries = len(gt.lengths)
    ap = np.full((n_queries, len(THRESHOLDS)), np.nan)
    iou = np.full(n_queries, np.nan)
    scored = np.flatnonzero(gt.lengths > 0)
    ap[scored], iou[scored] = 0.0, 0.0
    answered = scored[ranked.lengths[scored] > 0]
    for chunk in query_chunks(ranked.lengths[answered], gt.lengths[answered]):
        idx = answered[chunk]
        pred, truth = ranked.pad(idx), gt.pad(idx)
        ap[idx] = detection_ap(batched_tiou(pred, truth), pred.mask, truth.mask, THRESHOLDS)
        iou[idx] = first_prediction_iou(first.pad(idx), truth)[0]
    return ap, iou


def highlight_scores(
    truth: HighlightTruth, pred: HighlightPredictions
) -> tuple[np.ndarray, np.ndarray]:
    """`((Q, 3, 3) HL AP, (Q, 3) HIT@1)` at the three saliency levels."""
    width = truth.saliency.shape[1]
    mask = np.arange(width)[None, :] < truth.n_clips[:, None]
    clip_scores = np.zeros(mask.shape)
    shared = min(width, pred.saliency.shape[1])
    real = np.arange(shared)[None, :] < pred.n_saliency[:, None]
    clip_scores[:, :shared] = np.where(real, pred.saliency[:, :shared], 0.0)
    levels = np.array([level for _, level in LEVELS])
    positive = truth.saliency[:, :, None, :] >= levels[None, None, :, None]  # (Q, C, L, A)
    n_queries = len(truth.qids)
    ap = saliency_ap(clip_scores, mask, positive.reshape(n_queries, width, -1))
    hit = hit_at_one(pred.saliency, pred.n_saliency, positive)
    return ap.reshape(n_queries, len(LEVELS), -1), hit


def score_qvhighlights(truth: HighlightTruth, pred: HighlightPredictions) -> QVHighlightsScores:
    """Every per-query QVHighlights score (see the module docstring)."""
    ranked = ranked_by_score(pred.windows, pred.scores, MAX_WINDOWS)
    first = pred.windows.truncated(1)
    mr_ap, mr_iou = {}, {}
    for name, low_s, high_s in BUCKETS:
        gt = bucket_windows(truth.windows, low_s, high_s)
        mr_ap[name], mr_iou[name] = moment_scores(gt, ranked, first)
    hl_ap, hl_hit = highlight_scores(truth, pred)
    return QVHighlightsScores(
        truth.qids, mr_ap, mr_iou, hl_ap, hl_hit, pred.answered,
        pred.invalid_windows, pred.unknown_qids, pred.duplicate_qids,
    )  # fmt: skip


def _mean(values: np.ndarray) -> float | None:
    return float(values.mean(axis=0)) if len(values) else None


def nested_metrics(scores: QVHighlightsScores) -> dict:
    """`{bucket: {"MR-mIoU": ..., "MR-mAP": {τ: ..., "average": ...}, "MR-R1": {τ: ...}},
    "HL-min-<level>": {"HL-mAP": ..., "HL-Hit1": ...}}` as fractions; R1 at τ = 0.3 ... 0.95
    and the bucket's mIoU (of the first window) as CG-DETR's evaluator writes them."""
    out = {}
    for name, _, _ in BUCKETS:
        keep = ~np.isnan(scores.mr_iou[name])
        ap, iou = scores.mr_ap[name][keep], scores.mr_iou[name][keep]
        per_threshold = [_mean(ap[:, t]) for t in range(len(THRESHOLDS))]
        average = None if not keep.any() else float(np.mean(per_threshold))
        out[name] = {
            "MR-mIoU": _mean(iou),
            "MR-mAP": {**dict(zip(map(str, THRESHOLDS), per_threshold)), "average": average},
            "MR-R1": {str(t): _mean(iou >= t) for t in R1_THRESHOLDS},
        }
    for level, (label, _) in enumerate(LEVELS):
        out[f"HL-min-{label}"] = {
            "HL-mAP": float(scores.hl_ap[:, level].mean()),
            "HL-Hit1": float(scores.hl_hit[:, level].mean()),
        }
    return out


def _percent(value: float | None) -> float | None:
    return None if value is None else float(f"{100 * value:.2f}")


def published(metrics: dict) -> dict:
    """The nested fractions in the layout and rounding of the published metrics files:
    percentages with 2 decimals; "brief" first, then the groups in sorted order.

    >>> m = {"full": {"MR-mIoU": 0.55, "MR-mAP": {"0.5": 0.5, "0.75": 0.25, "average": 0.3},
    ...               "MR-R1": {"0.3": 0.7, "0.5": 0.6, "0.7": 0.4}},
    ...      "short": {"MR-mAP": {"average": 0.1}}, "middle": {"MR-mAP": {"average": 0.2}},
    ...      "long": {"MR-mAP": {"average": 0.33333}},
    ...      "HL-min-Fair": {"HL-mAP": 0.7, "HL-Hit1": 0.66}}
    >>> out = published(m)
    >>> list(out)[:3], out["brief"]["MR-long-mAP"], out["brief"]["HL-min-Fair-Hit1"]
    (['brief', 'HL-min-Fair', 'full'], 33.33, 66.0)
    >>> out["brief"]["MR-full-R1@0.3"], out["brief"]["MR-full-mIoU"]
    (70.0, 55.0)
    """
    rounded = {
        group: {k: _round_tree(v) for k, v in inner.items()} for group, inner in metrics.items()
    }
    full = rounded["full"]
    brief = {
        "MR-full-mAP": full["MR-mAP"]["average"],
        "MR-full-mAP@0.5": full["MR-mAP"]["0.5"],
        "MR-full-mAP@0.75": full["MR-mAP"]["0.75"],
        "MR-short-mAP": rounded["short"]["MR-mAP"]["average"],
        "MR-middle-mAP": rounded["middle"]["MR-mAP"]["average"],
        "MR-long-mAP": rounded["long"]["MR-mAP"]["average"],
        "MR-full-R1@0.3": full["MR-R1"]["0.3"],
        "MR-full-R1@0.5": full["MR-R1"]["0.5"],
        "MR-full-R1@0.7": full["MR-R1"]["0.7"],
        "MR-full-mIoU": full["MR-mIoU"],
    }
    brief = dict(sorted(brief.items()))
    for group, inner in rounded.items():
        if group.startswith("HL-"):
            brief.update({f"{group}-{key.split('-')[1]}": value for key, value in inner.items()})
    return {"brief": brief, **dict(sorted(rounded.items()))}


def _round_tree(value):
    if isinstance(value, dict):
        return {k: _percent(v) for k, v in value.items()}
    return _percent(value)


def evaluate_qvhighlights(gt, pred) -> dict:
    """QVHighlights metrics of predictions, as in the published metrics files.

    Args:
        gt: the GT file path, or its records (dicts with "qid", "duration",
            "relevant_windows", "relevant_clip_ids", "saliency_scores").
        pred: the predictions file path, or its records (dicts with "qid",
            "pred_relevant_windows" as `[start_s, end_s, score]` and "pred_saliency_scores").

    Returns:
        the nested metrics in percent with two decimals ("brief", "HL-min-Fair", ...,
        "full", "long", "middle", "short"); `score_qvhighlights(...).metrics()` gives fractions.

    Raises:
        UserError: a malformed line or a missing field (file:line, qid, the field).

    >>> gt = [{"qid": 1, "duration": 8, "relevant_windows": [[0, 4]],
    ...        "relevant_clip_ids": [0, 1], "saliency_scores": [[4, 4, 4], [2, 2, 2]]}]
    >>> pred = [{"qid": 1, "pred_relevant_windows": [[0, 4, 0.9]],
    ...          "pred_saliency_scores": [0.9, 0.5, 0.1, 0.0]}]
    >>> out = evaluate_qvhighlights(gt, pred)["brief"]
    >>> out["MR-full-mAP"], out["MR-short-mAP"], out["HL-min-VeryGood-mAP"]
    (100.0, 100.0, 100.0)
    """
    return published(load_and_score(gt, pred).metrics())


def load_and_score(gt, pred) -> QVHighlightsScores:
    """`score_qvhighlights` on files or records (see `evaluate_qvhighlights`)."""
    truth = read_truth(gt)
    return score_qvhighlights(truth, read_predictions(pred, truth))
