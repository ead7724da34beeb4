"""`Moments`: a set of time spans in seconds, and the interval maths on it.

Every method returns `Moments`; every metric reads them. Spans are a `(K, 2)` float64
array of `[start_s, end_s]`, with optional `(K,)` scores. `K == 0` means "no such event".
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True, eq=False)
class Moments:
    """Time spans in seconds with optional scores.

    Args:
        spans: `(K, 2)` float64 array of `[start_s, end_s]`, finite, `end_s >= start_s`.
        scores: optional `(K,)` float64 array, one score per span.

    >>> m = Moments.from_list([[10, 20], [5, 8]], scores=[0.9, 0.4])
    >>> len(m), m.count
    (2, 2)
    >>> m[m.scores > 0.5].spans.tolist()
    [[10.0, 20.0]]
    """

    spans: np.ndarray
    scores: np.ndarray | None = None

    def __post_init__(self) -> None:
        spans = np.asarray(self.spans, dtype=np.float64).reshape(-1, 2)
        if not np.isfinite(spans).all():
            raise ValueError("spans must be finite")
        if (spans[:, 1] < spans[:, 0]).any():
            raise ValueError("every span needs end_s >= start_s")
        object.__setattr__(self, "spans", spans)
        if self.scores is not None:
            scores = np.asarray(self.scores, dtype=np.float64).reshape(-1)
            if scores.shape[0] != spans.shape[0]:
                raise ValueError(f"{scores.shape[0]} scores for {spans.shape[0]} spans")
            object.__setattr__(self, "scores", scores)

    @classmethod
    def of_checked(cls, spans: np.ndarray) -> Moments:
        """Moments without scores from spans their reader has already checked, without
        checking them again.

        For the file readers (`formats.fields.intervals`, `formats.fast_json.clean_pairs`),
        which check every interval while parsing it, with messages naming file, line and
        qid; the second check cost a sixth of scoring 30,000 queries (perf/bench_score_process.py).

        Args:
            spans: `(K, 2)` float64, finite, `end_s >= start_s` (the caller guarantees it).

        >>> Moments.of_checked(np.array([[1.0, 2.0]])) == Moments.from_list([[1, 2]])
        True
        """
        moments = object.__new__(cls)
        object.__setattr__(moments, "spans", spans)
        object.__setattr__(moments, "scores", None)
        return moments

    @classmethod
    def empty(cls) -> Moments:
        """No moments: the answer "no such event"."""
        return cls(np.zeros((0, 2)))

    @classmethod
    def from_list(
        cls, spans: Iterable[Iterable[float]], scores: Iterable[float] | None = None
    ) -> Moments:
        """Build from nested lists such as `[[s, e], ...]`."""
        arr = np.array([list(s)[:2] for s in spans], dtype=np.float64).reshape(-1, 2)
        return cls(arr, None if scores is None else np.asarray(list(scores), dtype=np.float64))

    def __len__(self) -> int:
        return int(self.spans.shape[0])

    @property
    def count(self) -> int:
        """The number of moments (0 for "no such event")."""
        return len(self)

    @property
    def starts_s(self) -> np.ndarray:
        return self.spans[:, 0]

    @property
    def ends_s(self) -> np.ndarray:
        return self.spans[:, 1]

    @property
    def lengths_s(self) -> np.ndarray:
        return self.spans[:, 1] - self.spans[:, 0]

    def __getitem__(self, index) -> Moments:
        """Select by boolean mask, index array or slice; always returns `Moments`."""
        idx = index if isinstance(index, slice) else np.asarray(index)
        if not isinstance(idx, slice) and idx.ndim == 0:
            idx = idx.reshape(1)
        scores = None if self.scores is None else self.scores[idx]
        return Moments(self.spans[idx], scores)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Moments):
            return NotImplemented
        same_scores = (self.scores is None) == (other.scores is None) and (
            self.scores is None or np.array_equal(self.scores, other.scores)
        )
        return np.array_equal(self.spans, other.spans) and same_scores

    def __repr__(self) -> str:
        scores = None if self.scores is None else self.scores.tolist()
        return f"Moments({self.spans.tolist()}, scores={scores})"

    def to_list(self) -> list[list[float]]:
        """Spans as `[[start_s, end_s], ...]` plain floats."""
        return self.spans.tolist()

    def sorted(self) -> Moments:
        """Sorted by start time (stable)."""
        return self[np.argsort(self.starts_s, kind="stable")]

    def shift(self, offset_s: float) -> Moments:
        """Every span moved by `offset_s` seconds."""
        return Moments(self.spans + offset_s, self.scores)

    def clip(self, start_s: float, end_s: float) -> Moments:
        """Cut spans to `[start_s, end_s]`; spans entirely outside are dropped.

        >>> Moments.from_list([[-5, 3], [8, 12], [20, 30]]).clip(0, 10).to_list()
        [[0.0, 3.0], [8.0, 10.0]]
        """
        clipped = np.clip(self.spans, start_s, end_s)
        keep = (self.ends_s >= start_s) & (self.starts_s <= end_s)
        keep &= (clipped[:, 1] > clipped[:, 0]) | (self.lengths_s == 0)
        scores = None if self.scores is None else self.scores[keep]
        return Moments(clipped[keep], scores)

    def merge(self, gap_s: float = 0.0) -> Moments:
        """Join spans that overlap or lie within `gap_s` of each other; a merged span keeps
        the highest score of its parts.

        >>> Moments.from_list([[0, 2], [2.5, 4], [10, 11]]).merge(gap_s=1).to_list()
        [[0.0, 4.0], [10.0, 11.0]]
        """
        if len(self) == 0:
            return self
        order = np.argsort(self.starts_s, kind="stable")
        spans = self.spans[order]
        scores = None if self.scores is None else self.scores[order]
        running_end = np.maximum.accumulate(spans[:, 1])
        new_group = np.ones(len(spans), dtype=bool)
        new_group[1:] = spans[1:, 0] > running_end[:-1] + gap_s
        group = np.cumsum(new_group) - 1
        n = int(group[-1]) + 1
        merged = np.empty((n, 2))
        merged[:, 0] = spans[new_group, 0]
        merged[:, 1] = np.maximum.reduceat(spans[:, 1], np.flatnonzero(new_group))
        merged_scores = None
        if scores is not None:
            merged_scores = np.maximum.reduceat(scores, np.flatnonzero(new_group))
        return Moments(merged, merged_scores)

    def gaps(self, start_s: float, end_s: float, min_s: float = 0.0) -> Moments:
        """The stretches of `[start_s, end_s]` that no span covers, each at least `min_s`
        long (unscored): silences between speech, or where a thing is not shown.

        >>> Moments.from_list([[1, 4], [3, 6], [9, 9.5]]).gaps(0, 20, min_s=2).to_list()
        [[6.0, 9.0], [9.5, 20.0]]
        """
        covered = self.clip(start_s, end_s).merge()
        edges = np.concatenate([[start_s], covered.spans.ravel(), [end_s]]).astype(np.float64)
        free = edges.reshape(-1, 2)
        return Moments(free[free[:, 1] - free[:, 0] >= max(min_s, 1e-9)])

    def nms(self, iou_threshold: float = 0.5) -> Moments:
        """Temporal non-maximum suppression: keep the highest-scoring span, drop others whose
        tIoU with a kept span exceeds `iou_threshold`. Without scores, earlier spans win.
        Kept spans come back in descending score order.

        >>> m = Moments.from_list([[0, 10], [1, 10], [20, 25]], scores=[0.5, 0.9, 0.7])
        >>> m.nms(0.5).to_list()
        [[1.0, 10.0], [20.0, 25.0]]
        """
        if len(self) == 0:
            return self
        scores = self.scores if self.scores is not None else -np.arange(len(self), dtype=float)
        order = np.argsort(-scores, kind="stable")
        iou = tiou_matrix(self.spans, self.spans)
        suppressed = np.zeros(len(self), dtype=bool)
        keep = []
        for i in order:
            if suppressed[i]:
                continue
            keep.append(i)
            suppressed |= iou[i] > iou_threshold
        return self[np.array(keep, dtype=int)]


def tiou_matrix(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Temporal IoU between every span of `a` and every span of `b`.

    tIoU = overlap / (len a + len b - overlap), and 0 where that union is 0.

    Args:
        a: `(N, 2)` spans in seconds.
        b: `(M, 2)` spans in seconds.

    Returns:
        `(N, M)` float64 array in [0, 1].

    >>> tiou_matrix(np.array([[0., 10.]]), np.array([[5., 15.], [20., 30.]])).round(3).tolist()
    [[0.333, 0.0]]
    """
    a = np.asarray(a, dtype=np.float64).reshape(-1, 2)
    b = np.asarray(b, dtype=np.float64).reshape(-1, 2)
    inter = np.minimum(a[:, None, 1], b[None, :, 1]) - np.maximum(a[:, None, 0], b[None, :, 0])
    inter = np.clip(inter, 0.0, None)
    union = (a[:, 1] - a[:, 0])[:, None] + (b[:, 1] - b[:, 0])[None, :] - inter
    out = np.zeros_like(inter)
    np.divide(inter, union, out=out, where=union > 0)
    return out
