"""Turning metric arrays into plain JSON-ready Python values."""

from __future__ import annotations

import math

import numpy as np


def plain(value) -> bool | int | float | None:
    """A numpy scalar as bool, int or float; NaN (a metric over no queries) as None.

    >>> plain(np.float64("nan")), plain(np.int64(3)), plain(np.bool_(True)), plain(0.25)
    (None, 3, True, 0.25)
    """
    if isinstance(value, bool | np.bool_):
        return bool(value)
    if isinstance(value, int | np.integer):
        return int(value)
    value = float(value)
    return None if math.isnan(value) else value


def plain_row(metrics: dict[str, np.ndarray], row: int = 0) -> dict:
    """Row `row` of a dict of `(B,)` metric arrays, as plain values.

    >>> plain_row({"miou": np.array([0.5]), "n_queries": np.array([4])})
    {'miou': 0.5, 'n_queries': 4}
    """
    return {key: plain(np.asarray(values)[row]) for key, values in metrics.items()}
