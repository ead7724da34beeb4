"""Negative-query recognition (CoMET-Bench B.8): rejecting what is not there, without
rejecting everything.

All functions reduce over the last axis (queries); `(B, Q)` inputs give `(B,)` results.
A rate over an empty set of queries is NaN.
"""

from __future__ import annotations

import numpy as np

from .reduce import harmonic_mean, masked_mean


def rejection_rate(
    n_pred: np.ndarray, n_gt: np.ndarray, answered: np.ndarray | None = None
) -> np.ndarray:
    """RejRate = fraction of negative queries (N = 0) answered with no interval.

    Only an explicit empty answer is a rejection: a missing or unparseable answer to a
    negative query is not credited as one (mark it False in `answered`), so a system cannot
    gain by failing to answer.

    Args:
        n_pred: `(..., Q)` predicted counts.
        n_gt: `(..., Q)` ground-truth counts.
        answered: `(..., Q)` bool, True where the system gave a parseable answer
            (default: all True).

    Returns:
        `(...)` float64 in [0, 1]; NaN without negative queries.

    >>> float(rejection_rate(np.array([0, 1, 0, 3]), np.array([0, 0, 2, 1])))
    0.5
    >>> float(rejection_rate(np.array([0, 0]), np.array([0, 0]), np.array([True, False])))
    0.5
    """
    rejected = np.asarray(n_pred) == 0
    if answered is not None:
        rejected = rejected & answered
    return masked_mean(rejected, np.asarray(n_gt) == 0)


def positive_coverage(n_pred: np.ndarray, n_gt: np.ndarray) -> np.ndarray:
    """PosCov = fraction of positive queries (N > 0) answered with at least one interval.

    Args:
        n_pred: `(..., Q)` predicted counts.
        n_gt: `(..., Q)` ground-truth counts.

    Returns:
        `(...)` float64 in [0, 1]; NaN without positive queries.

    >>> float(positive_coverage(np.array([0, 1, 0, 3]), np.array([0, 0, 2, 1])))
    0.5
    """
    return masked_mean(np.asarray(n_pred) > 0, np.asarray(n_gt) > 0)


def rejection_f1(rej_rate: np.ndarray, pos_cov: np.ndarray) -> np.ndarray:
    """Rej.-F1 = harmonic mean of RejRate and PosCov (0 when both are 0).

    >>> round(float(rejection_f1(1 - 0.026, 0.049)), 3)
    0.093
    """
    return harmonic_mean(rej_rate, pos_cov)


def false_positive_rate(rej_rate: np.ndarray) -> np.ndarray:
    """FPR = 1 - RejRate: fraction of negative queries given a non-empty answer.

    >>> float(false_positive_rate(np.array(0.75)))
    0.25
    """
    return 1.0 - np.asarray(rej_rate, dtype=np.float64)
