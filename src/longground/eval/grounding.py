"""Grounding metrics over padded batches: best match per GT interval, mIoU, Recall@θ,
greedy one-to-one F1@θ (CoMET-Bench B.8), and first-prediction IoU (the `single` protocol).

Inputs are `(Q, P, G)` tIoU arrays from `padded.batched_tiou(pred, gt)` with `(Q, P)` and
`(Q, G)` validity masks; every function works on all Q queries at once.
"""

from __future__ import annotations

import numpy as np

from .padded import Padded, batched_tiou
from .reduce import harmonic_mean


def best_iou_per_gt(
    iou: np.ndarray, pred_mask: np.ndarray, gt_mask: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """Each GT interval's best tIoU over the predictions, and which prediction gives it.

    Args:
        iou: `(Q, P, G)` tIoU, prediction by GT.
        pred_mask: `(Q, P)` bool, real predictions.
        gt_mask: `(Q, G)` bool, real GT intervals.

    Returns:
        `(best, best_pred)`: `(Q, G)` float64 best tIoU (0 with no prediction) and `(Q, G)`
        int index of the first prediction reaching it (-1 with no prediction or padding).

    >>> iou = np.array([[[0.2, 0.0], [0.7, 0.1]]])
    >>> best, arg = best_iou_per_gt(iou, np.array([[True, True]]), np.array([[True, True]]))
    >>> best.tolist(), arg.tolist()
    ([[0.7, 0.1]], [[1, 1]])
    """
    n_queries, width, n_gt = iou.shape
    if width == 0:
        return np.zeros((n_queries, n_gt)), np.full((n_queries, n_gt), -1)
    # Padding predictions sit after the real ones with tIoU 0, so the first maximum is real.
    best_pred = iou.argmax(axis=1)
    best = np.take_along_axis(iou, best_pred[:, None, :], axis=1)[:, 0, :]
    has_pred = pred_mask.any(axis=1)[:, None] & gt_mask
    return np.where(has_pred, best, 0.0), np.where(has_pred, best_pred, -1)


def mean_iou_per_query(best: np.ndarray, gt_mask: np.ndarray) -> np.ndarray:
    """mIoU_q: mean over a query's GT intervals of their best tIoU.

    Args:
        best: `(Q, G)` best tIoU per GT interval.
        gt_mask: `(Q, G)` bool.

    Returns:
        `(Q,)` float64; NaN for a query without GT intervals.

    >>> mean_iou_per_query(np.array([[0.7, 0.1], [0.0, 0.0]]),
    ...                    np.array([[True, True], [False, False]])).round(3).tolist()
    [0.4, nan]
    """
    n_gt = gt_mask.sum(axis=1)
    out = np.full(len(n_gt), np.nan)
    np.divide(np.where(gt_mask, best, 0.0).sum(axis=1), n_gt, out=out, where=n_gt > 0)
    return out


def recall_per_query(best: np.ndarray, gt_mask: np.ndarray, theta: float) -> np.ndarray:
    """Recall@θ_q: fraction of a query's GT intervals whose best tIoU is >= θ.

    Args:
        best: `(Q, G)` best tIoU per GT interval.
        gt_mask: `(Q, G)` bool.
        theta: tIoU threshold in [0, 1]; a tIoU equal to θ is a hit.

    Returns:
        `(Q,)` float64; NaN for a query without GT intervals.

    >>> recall_per_query(np.array([[0.5, 0.49]]), np.array([[True, True]]), 0.5).tolist()
    [0.5]
    """
    return mean_iou_per_query((best >= theta).astype(np.float64), gt_mask)


def greedy_match(
    iou: np.ndarray, pred_mask: np.ndarray, gt_mask: np.ndarray, theta: float
) -> np.ndarray:
    """Greedy one-to-one matching for F1@θ, predictions walked in the order given.

    Each prediction takes the still-unmatched GT interval with the highest tIoU (ties: the
    earliest GT); the pair is a true positive, and that GT interval becomes matched, iff the
    tIoU is strictly greater than θ. The walk is sequential over predictions but vectorised
    across queries, so the Python loop runs P times, not Q * P times.

    Args:
        iou: `(Q, P, G)` tIoU, prediction by GT.
        pred_mask: `(Q, P)` bool.
        gt_mask: `(Q, G)` bool.
        theta: tIoU threshold in [0, 1].

    Returns:
        `(Q, P)` int: the GT index each prediction is matched to as a true positive, or -1.

    >>> iou = np.array([[[0.9, 0.6], [0.9, 0.6], [0.5, 0.0]]])
    >>> greedy_match(iou, np.ones((1, 3), bool), np.ones((1, 2), bool), 0.5).tolist()
    [[0, 1, -1]]
    """
    n_queries, width, n_gt = iou.shape
    matched = np.full((n_queries, width), -1)
    if n_gt == 0:
        return matched
    # Adding 0 keeps a free GT's tIoU exact; adding -2 puts a matched or padding GT below
    # every free one, so argmax only picks it when nothing is free (and then it cannot hit).
    blocked = np.where(gt_mask, 0.0, -2.0)
    candidates = np.empty(blocked.shape)
    rows = np.arange(n_queries)
    for p in range(width):
        np.add(iou[:, p, :], blocked, out=candidates)
        best_gt = candidates.argmax(axis=1)
        hit = np.flatnonzero((candidates[rows, best_gt] > theta) & pred_mask[:, p])
        matched[hit, p] = best_gt[hit]
        blocked[hit, best_gt[hit]] = -2.0
    return matched


def precision_f1(
    n_true_positive: np.ndarray, n_pred: np.ndarray, recall: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """Precision@θ_q = TP / N̂ (0 when N̂ = 0) and F1@θ_q = 2PR / (P + R) (0 when P + R = 0).

    Args:
        n_true_positive: `(Q,)` true positives from `greedy_match`.
        n_pred: `(Q,)` predicted intervals.
        recall: `(Q,)` Recall@θ_q (NaN propagates to F1).

    Returns:
        `(precision, f1)`, each `(Q,)` float64.

    >>> p, f1 = precision_f1(np.array([1, 0]), np.array([2, 0]), np.array([1.0, 0.0]))
    >>> p.tolist(), f1.round(4).tolist()
    ([0.5, 0.0], [0.6667, 0.0])
    """
    precision = np.zeros(len(n_pred))
    np.divide(n_true_positive, n_pred, out=precision, where=np.asarray(n_pred) > 0)
    return precision, harmonic_mean(precision, recall)


def first_prediction_iou(pred: Padded, gt: Padded) -> tuple[np.ndarray, np.ndarray]:
    """IoU of each query's first predicted interval with its best-matching GT interval.

    Args:
        pred: predictions (only column 0 is read; a query without one scores 0).
        gt: GT intervals.

    Returns:
        `(iou, gt_index)`: `(Q,)` float64 and `(Q,)` int index of the best GT interval
        (earliest on ties; 0 when no prediction; -1 without GT intervals).

    >>> from longground.eval.padded import pad_spans
    >>> iou, j = first_prediction_iou(pad_spans([np.array([[4.0, 9.0], [0.0, 1.0]])]),
    ...                               pad_spans([np.array([[0.0, 2.0], [5.0, 10.0]])]))
    >>> iou.tolist(), j.tolist()
    ([0.6666666666666666], [1])
    """
    first = Padded(pred.spans[:, :1], pred.mask[:, :1])
    iou = batched_tiou(first, gt)[:, 0, :] if first.spans.shape[1] else np.zeros(gt.mask.shape)
    scored = np.where(gt.mask, iou, -1.0)
    if scored.shape[1] == 0:
        return np.zeros(len(scored)), np.full(len(scored), -1)
    gt_index = scored.argmax(axis=1)
    best = np.maximum(scored[np.arange(len(scored)), gt_index], 0.0)
    return best, np.where(gt.mask.any(axis=1), gt_index, -1)
