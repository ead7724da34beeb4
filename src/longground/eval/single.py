"""The `single` protocol (ExtremeWhenBench; also Charades-STA and QVHighlights R1): the first
predicted interval against the best-matching GT interval.

A query without a prediction, or whose answer could not be parsed, scores IoU 0 and is
counted. Negative queries (no GT interval) have no IoU to score: they are skipped and counted
in "skipped_negatives".
"""

from __future__ import annotations

import numpy as np

from .grounding import first_prediction_iou
from .padded import SpanTable, query_chunks
from .protocol import (
    Column,
    Protocol,
    ScoreTables,
    accounting,
    register_protocol,
    threshold_key,
)
from .reduce import masked_mean

THRESHOLDS = (0.3, 0.5, 0.7)


@register_protocol
class SingleProtocol(Protocol):
    """mIoU and R@τ for τ in {0.3, 0.5, 0.7} (plus the user's θ when it is not one of them).

    Per-query columns: "iou" (NaN for skipped negatives) and "gt_index" (the GT interval the
    first prediction was scored against; -1 for negatives).
    """

    name = "single"

    def thresholds(self, theta: float) -> tuple[float, ...]:
        return tuple(sorted(set(THRESHOLDS) | {theta}))

    def score(self, gt: SpanTable, pred: SpanTable, theta: float) -> ScoreTables:
        first = pred.truncated(1)
        positive = gt.lengths > 0
        # Without a prediction the IoU is 0 against the first GT interval.
        iou, gt_index = np.zeros(len(gt.lengths)), np.where(positive, 0, -1)
        paired = np.flatnonzero(positive & (first.lengths > 0))
        for chunk_idx in query_chunks(first.lengths[paired], gt.lengths[paired]):
            idx = paired[chunk_idx]
            iou[idx], gt_index[idx] = first_prediction_iou(first.pad(idx), gt.pad(idx))
        queries = {
            "n_gt": gt.lengths,
            "n_pred": pred.lengths,
            "iou": np.where(positive, iou, np.nan),
            "gt_index": gt_index,
        }
        q = np.flatnonzero(positive)
        spans = gt.flat[gt.starts[q] + gt_index[q]]
        intervals = {
            "query": q,
            "gt_index": gt_index[q],
            "start_s": spans[:, 0],
            "end_s": spans[:, 1],
            "iou": iou[q],
            "pred_index": np.where(first.lengths[q] > 0, 0, -1),
        }
        answered = intervals["pred_index"] >= 0
        matches = {
            "query": q[answered],
            "pred_index": np.zeros(int(answered.sum()), dtype=np.int64),
            "gt_index": gt_index[q][answered],
            "tiou": iou[q][answered],
        }
        return ScoreTables(queries, intervals, matches)

    def summarize(self, queries: dict[str, np.ndarray], idx: np.ndarray, theta: float) -> dict:
        scored = queries["n_gt"][idx] > 0
        iou = queries["iou"][idx]
        out = {"n_queries": scored.sum(axis=-1), "miou": masked_mean(iou, scored)}
        for tau in self.thresholds(theta):
            out[threshold_key("recall", tau)] = masked_mean(iou >= tau, scored)
        out.update(accounting(queries, idx, scored))
        out["skipped_negatives"] = (~scored).sum(axis=-1)
        return out

    def columns(self, theta: float) -> list[Column]:
        recalls = [
            Column(threshold_key("recall", tau), f"R1@{tau:g}", "Grounding")
            for tau in self.thresholds(theta)
        ]
        return [Column("miou", "mIoU", "Grounding"), *recalls]
