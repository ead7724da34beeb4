"""Collecting per-frame rows batch by batch without holding two copies of them."""

from __future__ import annotations

import numpy as np


class RowBuffer:
    """Named arrays filled batch by batch into one preallocated block each.

    With `capacity` set to the expected row count the result needs no final concatenation,
    so peak memory is one copy of the features; past capacity, blocks double.

    Args:
        capacity: rows to allocate up front.

    >>> rows = RowBuffer(capacity=3)
    >>> rows.append({"x": np.ones((2, 4))}); rows.append({"x": np.zeros((2, 4))})
    >>> len(rows), rows.arrays()["x"].shape
    (4, (4, 4))
    """

    def __init__(self, capacity: int = 1024):
        self._capacity = max(1, capacity)
        self._blocks: dict[str, np.ndarray] = {}
        self._n = 0

    def __len__(self) -> int:
        return self._n

    def append(self, values: dict[str, np.ndarray]) -> None:
        """Add the rows of one batch; every array must have the same number of rows."""
        lengths = {len(v) for v in values.values()}
        if len(lengths) != 1:
            raise ValueError(f"arrays of one batch differ in length: {sorted(lengths)}")
        (n,) = lengths
        if self._blocks and set(values) != set(self._blocks):
            raise ValueError(f"batch has {sorted(values)}, earlier ones {sorted(self._blocks)}")
        if self._n + n > self._capacity:
            self._grow(self._n + n)
        for name, array in values.items():
            if name not in self._blocks:
                shape = (self._capacity, *np.shape(array)[1:])
                self._blocks[name] = np.empty(shape, dtype=np.asarray(array).dtype)
            self._blocks[name][self._n : self._n + n] = array
        self._n += n

    def arrays(self) -> dict[str, np.ndarray]:
        """The rows so far, one array per name (copied only when much space is unused)."""
        out = {}
        for name, block in self._blocks.items():
            rows = block[: self._n]
            out[name] = rows if self._n * 10 >= len(block) * 9 else rows.copy()
        return out

    def _grow(self, needed: int) -> None:
        capacity = max(needed, 2 * self._capacity)
        for name, block in self._blocks.items():
            grown = np.empty((capacity, *block.shape[1:]), dtype=block.dtype)
            grown[: self._n] = block[: self._n]
            self._blocks[name] = grown
        self._capacity = capacity
