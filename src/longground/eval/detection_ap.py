"""Average precision of ranked moments, ActivityNet-detection style, for many queries and
tIoU thresholds at once (QVHighlights' moment-retrieval mAP).

Per query and threshold τ: walk the predictions from the highest score down; each takes the
still-unmatched GT window with the highest tIoU if that tIoU is >= τ (a true positive), else
it is a false positive. AP is the area under the precision-recall curve after precision is
made non-increasing (precision at recall r becomes the best precision at any recall >= r),
i.e. the sum over true positives of that interpolated precision, divided by the number of GT
windows.
"""

from __future__ import annotations

import numpy as np

from .padded import SpanTable


def ranked_by_score(windows: SpanTable, scores: np.ndarray, k: int) -> SpanTable:
    """The first `k` windows of each query, re-ordered by decreasing score (stable on ties).

    Args:
        windows: Q queries' windows in seconds.
        scores: `(N + 1,)` score of each row of `windows.flat`.
        k: how many windows of each query to keep, in their given order, before ranking.

    Returns:
        a `SpanTable` of the same queries with at most `k` windows each.

    >>> t = SpanTable.from_arrays([np.array([[0., 1.], [2., 3.], [4., 5.]])])
    >>> ranked_by_score(t, np.array([0.1, 0.9, 0.1, 0.0]), 3).flat[:3, 0].tolist()
    [2.0, 0.0, 4.0]
    """
    kept = windows.truncated(k)
    query, position = kept.query_of_entry(), kept.index_in_query()
    rows = np.repeat(kept.starts, kept.lengths) + position
    order = np.lexsort((position, -scores[rows], query))
    flat = np.concatenate([windows.flat[rows[order]], np.zeros((1, 2))])
    return SpanTable(flat, np.cumsum(kept.lengths) - kept.lengths, kept.lengths)


def greedy_hits(
    iou: np.ndarray, pred_mask: np.ndarray, gt_mask: np.ndarray, thresholds: np.ndarray
) -> np.ndarray:
    """True positives of ranked predictions under one-to-one matching, per threshold.

    The walk is sequential over the P predictions and vectorised over queries and thresholds.
    Among equally good unmatched GT windows the earliest is taken.

    Args:
        iou: `(Q, P, G)` tIoU, predictions in rank order by GT windows.
        pred_mask: `(Q, P)` bool, real predictions.
        gt_mask: `(Q, G)` bool, real GT windows.
        thresholds: `(T,)` tIoU thresholds; a tIoU equal to τ is a hit.

    Returns:
        `(Q, T, P)` bool.

    >>> iou = np.array([[[0.8], [0.8]]])
    >>> greedy_hits(iou, np.ones((1, 2), bool), np.ones((1, 1), bool), np.array([0.5, 0.9]))
    array([[[ True, False],
            [False, False]]])
    """
    n_queries, width, _ = iou.shape
    free = np.repeat(gt_mask[:, None, :], len(thresholds), axis=1)
    hits = np.zeros((n_queries, len(thresholds), width), dtype=bool)
    for p in range(width):
        candidates = np.where(free, iou[:, None, p, :], -1.0)
        best = candidates.argmax(axis=2)
        best_iou = np.take_along_axis(candidates, best[..., None], axis=2)[..., 0]
        hit = (best_iou >= thresholds[None, :]) & pred_mask[:, p, None]
        hits[:, :, p] = hit
        q, t = np.nonzero(hit)
        free[q, t, best[q, t]] = False
    return hits


def interpolated_ap(hits: np.ndarray, pred_mask: np.ndarray, n_gt: np.ndarray) -> np.ndarray:
    """AP from ranked true positives: mean over GT windows of the interpolated precision at
    the rank where each was found (0 for GT windows never found).

    Args:
        hits: `(Q, T, P)` bool from `greedy_hits`.
        pred_mask: `(Q, P)` bool, real predictions (they come first in each row).
        n_gt: `(Q,)` GT windows per query, > 0.

    Returns:
        `(Q, T)` float64 in [0, 1].

    >>> hits = np.array([[[False, True]]])
    >>> interpolated_ap(hits, np.ones((1, 2), bool), np.array([1])).tolist()
    [[0.5]]
    """
    ranks = np.arange(1, hits.shape[2] + 1)
    precision = np.where(pred_mask[:, None, :], hits.cumsum(axis=2) / ranks, 0.0)
    interpolated = np.maximum.accumulate(precision[..., ::-1], axis=2)[..., ::-1]
    return (interpolated * hits).sum(axis=2) / n_gt[:, None]


def detection_ap(iou, pred_mask, gt_mask, thresholds) -> np.ndarray:
    """Per-query AP at each threshold (see the module docstring).

    Args:
        iou: `(Q, P, G)` tIoU, predictions ranked by decreasing score.
        pred_mask: `(Q, P)` bool.
        gt_mask: `(Q, G)` bool; every query needs a GT window.
        thresholds: `(T,)` tIoU thresholds.

    Returns:
        `(Q, T)` float64 AP in [0, 1].

    >>> iou = np.array([[[0.9, 0.0], [0.6, 0.0], [0.0, 0.7]]])
    >>> ap = detection_ap(iou, np.ones((1, 3), bool), np.ones((1, 2), bool), np.array([0.5]))
    >>> round(float(ap[0, 0]), 4)  # hits at ranks 1 and 3: (1 + 2/3) / 2
    0.8333
    """
    thresholds = np.asarray(thresholds, dtype=np.float64)
    hits = greedy_hits(iou, pred_mask, gt_mask, thresholds)
    return interpolated_ap(hits, pred_mask, gt_mask.sum(axis=1))
