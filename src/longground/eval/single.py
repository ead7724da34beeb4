"""The `single` protocol (ExtremeWhenBench; also Charades-STA and QVHighlights R1): the first
predicted interval against the best-matching GT interval, and, with `top_k`, R{K}@τ: whether
one of the first K predicted intervals has tIoU >= τ with its best-matching GT interval.

A query without a prediction, or whose answer could not be parsed, scores IoU 0 and is
counted. Negative queries (no GT interval) have no IoU to score: they are skipped and counted
in "skipped_negatives".
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import ClassVar

import numpy as np

from ..errors import UserError
from .grounding import first_prediction_iou
from .padded import SpanTable, batched_tiou, query_chunks
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


def top_k_key(k: int, tau: float) -> str:
    """Metric name of R{K}@τ; K = 1 keeps the protocol's historical "recall@τ".

    >>> top_k_key(1, 0.5), top_k_key(5, 0.7)
    ('recall@0.5', 'recall_top5@0.7')
    """
    return threshold_key("recall" if k == 1 else f"recall_top{k}", tau)


def best_iou_in_top_k(pred: SpanTable, gt: SpanTable, k: int) -> np.ndarray:
    """Per query, the best tIoU of any of its first `k` predictions with any GT interval.

    Args:
        pred: predicted intervals of Q queries, in the file's order.
        gt: GT intervals of the same Q queries.
        k: how many predictions count.

    Returns:
        `(Q,)` float64 in [0, 1]; 0 for a query without prediction or GT interval.

    >>> gt = SpanTable.from_arrays([np.array([[0.0, 10.0]])])
    >>> pred = SpanTable.from_arrays([np.array([[50.0, 60.0], [0.0, 5.0]])])
    >>> best_iou_in_top_k(pred, gt, 1).tolist(), best_iou_in_top_k(pred, gt, 5).tolist()
    ([0.0], [0.5])
    """
    top = pred.truncated(k)
    best = np.zeros(len(gt.lengths))
    both = np.flatnonzero((top.lengths > 0) & (gt.lengths > 0))
    for chunk in query_chunks(top.lengths[both], gt.lengths[both]):
        idx = both[chunk]
        # Padding rows are [0, 0] and have tIoU 0 with everything, so a plain max is right.
        best[idx] = batched_tiou(top.pad(idx), gt.pad(idx)).max(axis=(1, 2))
    return best


@register_protocol
@dataclass(frozen=True)
class SingleProtocol(Protocol):
    """mIoU and R1@τ for τ in {0.3, 0.5, 0.7} (plus the user's θ when it is not one of them);
    `taus` replaces those thresholds and `top_k` adds R{K}@τ for each K.

    Per-query columns: "iou" (NaN for skipped negatives), "gt_index" (the GT interval the
    first prediction was scored against; -1 for negatives) and "iou_top{K}" for each K > 1
    (best tIoU among the first K predictions; NaN for skipped negatives).
    """

    name = "single"
    query_key: ClassVar[str] = "iou"
    query_label: ClassVar[str] = "IoU"
    failure_taxonomy: ClassVar[bool] = True
    first_interval_only: ClassVar[bool] = True
    top_k: tuple[int, ...] = (1,)
    taus: tuple[float, ...] = THRESHOLDS

    def configured(
        self, top_k: Iterable[int] | None = None, iou: Iterable[float] | None = None
    ) -> SingleProtocol:
        """This protocol with other K values (1 is always kept) and tIoU thresholds."""
        ks = tuple(sorted({1, *(top_k or ())}))
        if any(isinstance(k, bool) or not isinstance(k, int) or k < 1 for k in ks):
            raise UserError(f"--top-k values must be integers >= 1, got {list(top_k)}")
        taus = self.taus if iou is None else tuple(sorted({float(t) for t in iou}))
        if not taus or not all(0.0 <= t <= 1.0 for t in taus):
            raise UserError(f"--iou thresholds must be in [0, 1], got {list(iou or [])}")
        return SingleProtocol(top_k=ks, taus=taus)

    def settings(self) -> dict:
        """What differs from the defaults, for `EvalResult.settings`."""
        out = {}
        if self.top_k != (1,):
            out["top_k"] = list(self.top_k)
        if self.taus != THRESHOLDS:
            out["iou"] = list(self.taus)
        return out

    def thresholds(self, theta: float) -> tuple[float, ...]:
        return tuple(sorted(set(self.taus) | {theta}))

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
        for k in self.top_k[1:]:
            queries[f"iou_top{k}"] = np.where(positive, best_iou_in_top_k(pred, gt, k), np.nan)
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
        for k in self.top_k:
            best = iou if k == 1 else queries[f"iou_top{k}"][idx]
            for tau in self.thresholds(theta):
                out[top_k_key(k, tau)] = masked_mean(best >= tau, scored)
        out.update(accounting(queries, idx, scored))
        out["skipped_negatives"] = (~scored).sum(axis=-1)
        return out

    def breakdown_keys(self, theta: float) -> tuple[str, str]:
        """mIoU and R@0.5."""
        return "miou", "recall@0.5"

    def warnings(self, metrics: dict) -> list[str]:
        notes = []
        if metrics.get("miou") is None:
            notes.append("no positive queries: grounding metrics are undefined")
        if metrics.get("skipped_negatives"):
            n = metrics["skipped_negatives"]
            notes.append(f"{n} negative queries skipped: the single protocol needs a GT interval")
        return notes

    def columns(self, theta: float) -> list[Column]:
        recalls = [
            Column(top_k_key(k, tau), f"R{k}@{tau:g}", "Grounding")
            for k in self.top_k
            for tau in self.thresholds(theta)
        ]
        return [Column("miou", "mIoU", "Grounding"), *recalls]
