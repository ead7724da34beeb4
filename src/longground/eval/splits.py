"""Why a count is wrong: splits, merges, misses and spurious moments, measured on their own.

A predicted count differs from the true one for four reasons, each a different decision of a
grounding method:

- split: more predictions than true intervals in a group of overlapping ones (a gap or a shot
  boundary inside one appearance was taken as its end); each extra prediction counts once;
- merge: fewer predictions than true intervals in such a group (a re-appearance joined to
  the one before it); each extra true interval counts once;
- miss: a true interval no prediction overlaps;
- spurious: a prediction that overlaps no true interval.

Groups are the connected components of the "overlaps" graph between predictions and true
intervals (any overlap, tIoU > 0), so these count decisions, not boundary precision.
`count error = predicted - true = splits - merges - misses + spurious`.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..moments import tiou_matrix


def connected_components(graph: np.ndarray, directed: bool = False):
    """scipy's connected components of a dense boolean adjacency matrix."""
    from scipy.sparse import csr_matrix
    from scipy.sparse.csgraph import connected_components as components

    return components(csr_matrix(graph), directed=directed)


@dataclass(frozen=True)
class CountErrors:
    """The four kinds of count error of one query (see the module docstring)."""

    splits: int
    merges: int
    misses: int
    spurious: int

    @property
    def error(self) -> int:
        """Predicted count minus true count."""
        return self.splits - self.merges - self.misses + self.spurious


def count_errors(pred: np.ndarray, gt: np.ndarray) -> CountErrors:
    """Splits, merges, misses and spurious predictions of `pred` `(P, 2)` against `gt` `(G, 2)`.

    >>> gt = np.array([[0.0, 10.0], [20.0, 30.0], [40.0, 50.0], [60.0, 70.0]])
    >>> pred = np.array([[0.0, 4.0], [5.0, 10.0], [20.0, 50.0], [80.0, 90.0]])
    >>> e = count_errors(pred, gt)
    >>> e, e.error == len(pred) - len(gt)
    (CountErrors(splits=1, merges=1, misses=1, spurious=1), True)
    """
    pred = np.asarray(pred, np.float64).reshape(-1, 2)
    gt = np.asarray(gt, np.float64).reshape(-1, 2)
    if not len(pred) or not len(gt):
        return CountErrors(0, 0, len(gt), len(pred))
    touch = tiou_matrix(pred, gt) > 0
    n_pred = len(pred)
    graph = np.zeros((n_pred + len(gt),) * 2, bool)
    graph[:n_pred, n_pred:] = touch
    _, label = connected_components(graph, directed=False)
    splits = merges = 0
    for comp in np.unique(label):
        members = label == comp
        p, g = int(members[:n_pred].sum()), int(members[n_pred:].sum())
        if p and g:
            splits += max(p - g, 0)
            merges += max(g - p, 0)
    misses = int((~touch.any(axis=0)).sum())
    spurious = int((~touch.any(axis=1)).sum())
    return CountErrors(splits, merges, misses, spurious)
