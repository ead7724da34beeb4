"""Top-K window recall (ExtremeWhenBench Table 6): does retrieval put the GT in its top K?

A retrieval method in `topk` mode answers each query with its K best windows, best first
(peaks at least `nms_s` apart, each widened to `±half_width_s`; `longground run --topk-windows`
writes such a file). For K in {1, 3, 10}:

- `inside@K`: the fraction of positive queries with a GT interval lying fully inside at least
  one of the first K windows;
- `overlap@K`: the looser variant, a GT interval sharing a positive length with one of them
  (or lying inside it, which counts for a zero-length GT interval).

Negative queries are skipped; a query with no windows (missing, unparsed) is a miss.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

K_VALUES = (1, 3, 10)


def first_hit_rank(gt: np.ndarray, windows: np.ndarray) -> tuple[float, float]:
    """The 1-based rank of the first window holding (inside) and touching (overlap) a GT span.

    Args:
        gt: `(G, 2)` GT spans in seconds.
        windows: `(W, 2)` windows, best first.

    Returns:
        `(inside_rank, overlap_rank)`, each `inf` when no window qualifies.

    >>> first_hit_rank(np.array([[100.0, 110.0]]), np.array([[0, 60], [90, 105], [95, 160]]))
    (3.0, 2.0)
    """
    if len(gt) == 0 or len(windows) == 0:
        return np.inf, np.inf
    g_start, g_end = gt[:, 0][:, None], gt[:, 1][:, None]  # (G, 1)
    w_start, w_end = windows[:, 0][None, :], windows[:, 1][None, :]  # (1, W)
    inside = ((w_start <= g_start) & (g_end <= w_end)).any(axis=0)
    overlap = inside | ((np.minimum(g_end, w_end) - np.maximum(g_start, w_start)) > 0).any(axis=0)
    rank = np.arange(1, len(windows) + 1, dtype=float)
    return float(np.where(inside, rank, np.inf).min()), float(np.where(overlap, rank, np.inf).min())


def window_recall(
    gt: Sequence[np.ndarray], windows: Sequence[np.ndarray], ks: Sequence[int] = K_VALUES
) -> dict:
    """Top-K window recall over the positive queries.

    Args:
        gt: Q arrays `(G_q, 2)` of GT spans (empty for negatives, which are skipped).
        windows: Q arrays `(W_q, 2)` of windows, best first (empty when none).
        ks: the K values.

    Returns:
        `{"n_queries": positives, "inside@K": fraction, ..., "overlap@K": fraction, ...}`;
        fractions are None when there is no positive query.

    >>> window_recall([np.array([[100.0, 110.0]]), np.zeros((0, 2))],
    ...               [np.array([[0, 60], [90, 105], [95, 160]]), np.array([[0, 9]])], ks=(1, 3))
    {'n_queries': 1, 'inside@1': 0.0, 'inside@3': 1.0, 'overlap@1': 0.0, 'overlap@3': 1.0}
    """
    ranks = np.array(
        [
            first_hit_rank(np.asarray(g, float).reshape(-1, 2), np.asarray(w, float).reshape(-1, 2))
            for g, w in zip(gt, windows, strict=True)
            if len(g)
        ]  # fmt: skip
    ).reshape(-1, 2)
    n = len(ranks)
    out: dict = {"n_queries": n}
    for column, name in ((0, "inside"), (1, "overlap")):
        for k in ks:
            out[f"{name}@{k}"] = float((ranks[:, column] <= k).mean()) if n else None
    return out
