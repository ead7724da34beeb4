"""Whether two annotators agree on one query (CoMET-Bench App. B.5, Stage 3), and where not.

They agree when both gave the same number of intervals and a one-to-one matching exists in
which every matched pair has tIoU > 0.7 (strictly: exactly 0.7 goes to adjudication). The
matching is an optimal assignment (scipy's `linear_sum_assignment`) on tIoU, with every pair
above the threshold given a bonus larger than all tIoU together: the largest total tIoU alone
could pick a matching with one weak pair when another matching has none. Two empty answers
agree.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ..moments import tiou_matrix

AGREE_IOU = 0.7


@dataclass(frozen=True)
class Dispute:
    """One disputed item: a matched pair below the threshold, or an interval only one
    annotator gave (`a_span` or `b_span` is None). Spans are `[start_s, end_s]`."""

    a_span: list[float] | None
    b_span: list[float] | None
    iou: float

    def to_dict(self) -> dict:
        return {"a": self.a_span, "b": self.b_span, "iou": self.iou}


@dataclass(frozen=True)
class Agreement:
    """The verdict on one query.

    Attributes:
        agrees: same count and every matched pair above the threshold.
        pairs: `(i, j, iou)` matched index pairs, A's interval i with B's interval j.
        disputes: what an adjudicator must look at (empty when `agrees`).
    """

    agrees: bool
    pairs: list[tuple[int, int, float]] = field(default_factory=list)
    disputes: list[Dispute] = field(default_factory=list)


def match_intervals(a: np.ndarray, b: np.ndarray, threshold: float = AGREE_IOU) -> Agreement:
    """Compare two annotators' intervals for one query.

    Args:
        a: `(N, 2)` seconds, the first annotator's intervals.
        b: `(M, 2)` seconds, the second annotator's.
        threshold: a matched pair must have tIoU strictly above this.

    Returns:
        `Agreement`; min(N, M) pairs are matched, the rest of the longer side are disputes.

    >>> match_intervals(np.array([[0., 10.], [20., 30.]]), np.array([[21., 30.], [0., 9.]])).agrees
    True
    >>> match_intervals(np.array([[0., 10.]]), np.array([[0., 7.]])).agrees   # tIoU exactly 0.7
    False
    >>> match_intervals(np.zeros((0, 2)), np.zeros((0, 2))).agrees
    True
    """
    from scipy.optimize import linear_sum_assignment

    a = np.asarray(a, dtype=np.float64).reshape(-1, 2)
    b = np.asarray(b, dtype=np.float64).reshape(-1, 2)
    iou = tiou_matrix(a, b)
    # Maximise first the number of pairs above the threshold, then the total tIoU: a pair
    # above it is worth more than all tIoU of the others together, so a perfect matching
    # with every pair above the threshold is found whenever one exists.
    gain = iou + (iou > threshold) * (min(len(a), len(b)) + 1.0)
    rows, cols = linear_sum_assignment(gain, maximize=True)
    pairs = [(int(i), int(j), float(iou[i, j])) for i, j in zip(rows, cols, strict=True)]
    disputes = [Dispute(a[i].tolist(), b[j].tolist(), v) for i, j, v in pairs if v <= threshold]
    disputes += [Dispute(a[i].tolist(), None, 0.0) for i in sorted(set(range(len(a))) - set(rows))]
    disputes += [Dispute(None, b[j].tolist(), 0.0) for j in sorted(set(range(len(b))) - set(cols))]
    return Agreement(agrees=not disputes, pairs=pairs, disputes=disputes)
