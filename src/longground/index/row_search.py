"""Exact search over the stacked half-precision rows of many videos: the baseline the
library index (`library_index.LibraryIndex`, used past `EXACT_MAX_ROWS`) is measured against.

Only the rows an encoder computed are stacked (content-adaptive indexing reuses a row while
the picture does not change), so a library is searched at its count of distinct pictures.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

# Past this many computed rows (about 110 hours at 1 fps with a quarter of the frames
# computed) `find --top` narrows a library through its `LibraryIndex` instead of running the
# method on every video (docs/find.md, "A whole library").
EXACT_MAX_ROWS = 100_000
_CHUNK_ROWS = 65_536  # rows upcast to float32 at a time (16 MB at 64 dims)


@dataclass
class RowMatrix:
    """Feature rows of many videos, stacked.

    Attributes:
        rows: `(U, D)` float16 unit-norm rows.
        owner: `(U,)` int32, the video each row belongs to.

    >>> m = RowMatrix(np.eye(3, dtype=np.float16), np.array([0, 0, 1]))
    >>> m.exact_top(np.array([0.0, 1.0, 0.0]), 1)[0].tolist()
    [1]
    """

    rows: np.ndarray
    owner: np.ndarray

    def __post_init__(self) -> None:
        self.rows = np.asarray(self.rows, dtype=np.float16)
        self.owner = np.asarray(self.owner, dtype=np.int32)
        if self.rows.ndim != 2 or self.owner.shape != (len(self.rows),):
            raise ValueError("rows must be (U, D) and owner (U,)")

    @property
    def nbytes(self) -> int:
        return self.rows.nbytes + self.owner.nbytes

    def exact_top(self, query: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
        """The `k` rows with the largest inner product with `query` `(D,)`: `(k,)` row
        indices, best first, and their float32 scores."""
        query = np.asarray(query, dtype=np.float32)
        best_i, best_s = np.zeros(0, np.int64), np.zeros(0, np.float32)
        for start in range(0, len(self.rows), _CHUNK_ROWS):
            scores = self.rows[start : start + _CHUNK_ROWS].astype(np.float32) @ query
            keep = np.argpartition(-scores, min(k, len(scores)) - 1)[:k]
            best_i = np.concatenate([best_i, keep + start])
            best_s = np.concatenate([best_s, scores[keep]])
            if len(best_i) > k:
                top = np.argpartition(-best_s, k - 1)[:k]
                best_i, best_s = best_i[top], best_s[top]
        order = np.argsort(-best_s, kind="stable")
        return best_i[order], best_s[order]


def recall_at_k(approx: np.ndarray, exact: np.ndarray) -> float:
    """The share of the exact top-k that the approximate search found.

    >>> recall_at_k(np.array([1, 2, 9]), np.array([1, 2, 3]))
    0.6666666666666666
    """
    return len(np.intersect1d(approx, exact)) / max(len(exact), 1)
