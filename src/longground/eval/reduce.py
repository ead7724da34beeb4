"""Reductions over the query axis that tolerate empty selections and leading batch axes."""

from __future__ import annotations

import numpy as np


def masked_mean(values: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """Mean of `values` where `mask` is True, along the last axis; NaN where nothing is selected.

    Args:
        values: `(..., Q)` numbers (NaN allowed where `mask` is False).
        mask: `(..., Q)` bool.

    Returns:
        `(...)` float64 means.

    >>> masked_mean(np.array([[1.0, np.nan, 3.0], [5.0, 6.0, 7.0]]),
    ...             np.array([[True, False, True], [False, False, False]])).tolist()
    [2.0, nan]
    """
    selected = np.where(mask, values, 0.0).sum(axis=-1)
    count = mask.sum(axis=-1)
    out = np.full(np.shape(count), np.nan)
    np.divide(selected, count, out=out, where=count > 0)
    return out


def harmonic_mean(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """`2ab / (a + b)`, 0 where `a + b == 0`, NaN where either is NaN.

    >>> harmonic_mean(np.array([0.5, 0.0]), np.array([1.0, 0.0])).round(4).tolist()
    [0.6667, 0.0]
    """
    a, b = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
    total = a + b
    out = np.where(np.isnan(total), np.nan, 0.0)
    np.divide(2.0 * a * b, total, out=out, where=total > 0)
    return out
