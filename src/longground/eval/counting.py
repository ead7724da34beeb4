"""Counting metrics (CoMET-Bench B.8): how well the number of predicted moments matches.

All functions reduce over the last axis (queries), so a `(B, Q)` batch of bootstrap resamples
gives `(B,)` results.
"""

from __future__ import annotations

import numpy as np


def mean_absolute_error(n_pred: np.ndarray, n_gt: np.ndarray) -> np.ndarray:
    """MAE = mean over queries of |N̂ - N|.

    Args:
        n_pred: `(..., Q)` predicted counts.
        n_gt: `(..., Q)` ground-truth counts.

    Returns:
        `(...)` float64, in intervals per query.

    >>> float(mean_absolute_error(np.array([0, 2, 5]), np.array([1, 2, 2])))
    1.3333333333333333
    """
    return np.abs(np.asarray(n_pred) - np.asarray(n_gt)).mean(axis=-1)


def off_by_one_accuracy(n_pred: np.ndarray, n_gt: np.ndarray) -> np.ndarray:
    """OBO = fraction of queries with |N̂ - N| <= 1.

    Args:
        n_pred: `(..., Q)` predicted counts.
        n_gt: `(..., Q)` ground-truth counts.

    Returns:
        `(...)` float64 in [0, 1].

    >>> float(off_by_one_accuracy(np.array([0, 2, 5]), np.array([1, 2, 2])))
    0.6666666666666666
    """
    return (np.abs(np.asarray(n_pred) - np.asarray(n_gt)) <= 1).mean(axis=-1)


def pearson(n_pred: np.ndarray, n_gt: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Pearson correlation between predicted and GT counts.

    The correlation is undefined when either side has zero variance (for example a system
    that always answers the same count); it is then reported as 0.0 and flagged.

    Args:
        n_pred: `(..., Q)` predicted counts.
        n_gt: `(..., Q)` ground-truth counts.

    Returns:
        `(r, undefined)`: `(...)` float64 correlations in [-1, 1] and `(...)` bool flags.

    >>> r, undefined = pearson(np.array([1, 2, 3]), np.array([2, 4, 7]))
    >>> round(float(r), 4), bool(undefined)
    (0.9934, False)
    >>> r, undefined = pearson(np.array([0, 0, 0]), np.array([2, 4, 7]))
    >>> float(r), bool(undefined)
    (0.0, True)
    """
    x = np.asarray(n_pred, dtype=np.float64)
    y = np.asarray(n_gt, dtype=np.float64)
    dx = x - x.mean(axis=-1, keepdims=True)
    dy = y - y.mean(axis=-1, keepdims=True)
    sxx, syy = (dx * dx).sum(axis=-1), (dy * dy).sum(axis=-1)
    undefined = (sxx <= 0) | (syy <= 0)
    r = np.zeros(np.shape(sxx))
    np.divide((dx * dy).sum(axis=-1), np.sqrt(sxx * syy), out=r, where=~undefined)
    return np.clip(r, -1.0, 1.0), undefined
