"""Highlight detection metrics over clip saliency (QVHighlights HL-mAP and HL-HIT@1), for
many queries and binary truths at once.

AP of one query against one binary truth: clips are ranked by predicted score, with tied
scores forming one threshold. For each threshold that finds a new positive clip, take the
best precision at that threshold or any lower one; AP is the mean of these values. A truth
with no positive clip scores 0 and one where every clip is positive scores 1.
"""

from __future__ import annotations

import numpy as np


def _threshold_ends(sorted_scores: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """`(Q, C)` bool: the last clip of each run of tied scores (one threshold each)."""
    ends = mask.copy()
    ends[:, :-1] &= (sorted_scores[:, :-1] != sorted_scores[:, 1:]) | ~mask[:, 1:]
    return ends


def saliency_ap(scores: np.ndarray, mask: np.ndarray, truth: np.ndarray) -> np.ndarray:
    """AP of each query's clip ranking against each of A binary truths.

    Args:
        scores: `(Q, C)` float64 predicted clip scores.
        mask: `(Q, C)` bool, real clips.
        truth: `(Q, C, A)` bool, positive clips (padding ignored).

    Returns:
        `(Q, A)` float64 in [0, 1].

    >>> scores = np.array([[0.9, 0.8, 0.1, 0.5]])
    >>> truth = np.array([[[True], [False], [True], [False]]])
    >>> saliency_ap(scores, np.ones((1, 4), bool), truth).round(4).tolist()  # (1 + 2/4) / 2
    [[0.75]]
    """
    order = np.argsort(np.where(mask, -scores, np.inf), axis=1, kind="stable")
    valid = np.take_along_axis(mask, order, axis=1)
    ends = _threshold_ends(np.take_along_axis(scores, order, axis=1), valid)
    positive = np.take_along_axis(truth, order[..., None], axis=1) & valid[..., None]
    found = positive.cumsum(axis=1)
    ranks = np.arange(1, scores.shape[1] + 1)[None, :, None]
    precision = np.where(ends[..., None], found / ranks, 0.0)
    interpolated = np.maximum.accumulate(precision[:, ::-1], axis=1)[:, ::-1]
    at_ends = np.where(ends[..., None], found, 0)
    before = np.zeros_like(at_ends)
    before[:, 1:] = np.maximum.accumulate(at_ends, axis=1)[:, :-1]
    new_level = ends[..., None] & (found > before)
    n_levels = new_level.sum(axis=1)
    ap = (interpolated * new_level).sum(axis=1) / np.maximum(n_levels, 1)
    n_positive, n_clips = positive.sum(axis=1), valid.sum(axis=1)[:, None]
    return np.where(n_positive == 0, 0.0, np.where(n_positive == n_clips, 1.0, ap))


def hit_at_one(scores: np.ndarray, n_scores: np.ndarray, truth: np.ndarray) -> np.ndarray:
    """Whether each query's top-scored clip is positive for any of the annotators.

    Args:
        scores: `(Q, S)` predicted clip scores (the first `n_scores[q]` are real).
        n_scores: `(Q,)` int; a query without scores never hits.
        truth: `(Q, C, L, A)` bool, positives for L levels and A annotators; a top clip past
            a query's truth never hits.

    Returns:
        `(Q, L)` bool.

    >>> truth = np.array([[[[False, True]], [[False, False]]]])  # 2 clips, 1 level, 2 people
    >>> hit_at_one(np.array([[0.9, 0.1]]), np.array([1]), truth).tolist()
    [[True]]
    """
    real = np.arange(scores.shape[1])[None, :] < n_scores[:, None]
    top = np.where(real, scores, -np.inf).argmax(axis=1) if scores.shape[1] else n_scores * 0
    inside = (top < truth.shape[1]) & (n_scores > 0)
    rows = truth[np.arange(len(top)), np.minimum(top, truth.shape[1] - 1)]
    return rows.any(axis=-1) & inside[:, None]
