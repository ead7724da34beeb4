"""Features of frame regions at chosen times: the general scene's five overlapping tiles
(`methods.agent.tiles`), the composited scene's left and right halves (`composited.regions`).

A whole-frame classifier sees the dominant object of a frame; a second, smaller object often
does not register at all. Looking at each region separately ("zooming in") lets the offline
roles see it. Region features are query-independent, so they are computed on demand for the
times the agent asks about and kept per video, in memory and in an `.npz` file next to the
graph cache (`RegionIndex`).
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from pathlib import Path

import numpy as np

from ..atomic import atomic_open

ComputeFn = Callable[[np.ndarray], dict[str, np.ndarray]]


def _key(times_s: np.ndarray) -> np.ndarray:
    return np.round(np.asarray(times_s, dtype=np.float64) * 1000).astype(np.int64)


class RegionIndex:
    """Region features by time, kept in memory and in the `.npz` file `path` (None: memory
    only); the features of times not seen before come from the caller's `compute(times) ->
    {name: (N, R, ...)}`. Safe to share between threads.

    >>> calls = []
    >>> def compute(t):
    ...     calls.append(len(t))
    ...     return {"embedding": np.stack([t, -t], axis=1)[:, :, None]}
    >>> index = RegionIndex(None)
    >>> index.features(np.array([1.0, 2.0]), compute)["embedding"][:, :, 0].tolist()
    [[1.0, -1.0], [2.0, -2.0]]
    >>> _ = index.features(np.array([2.0, 3.0]), compute); calls
    [2, 1]
    """

    def __init__(self, path: Path | None):
        self.path = path
        self._lock = threading.Lock()
        self.keys = np.zeros(0, np.int64)
        self.arrays: dict[str, np.ndarray] = {}
        if path is not None and path.exists():
            self._load(path)

    def _load(self, path: Path) -> None:
        try:
            with np.load(path) as data:
                keys = data["__keys__"]
                arrays = {k: data[k] for k in data.files if k != "__keys__"}
        except (OSError, ValueError, KeyError):
            return  # damaged: start over
        if all(len(v) == len(keys) for v in arrays.values()):
            self.keys, self.arrays = keys, arrays

    def _save(self) -> None:
        if self.path is None:
            return
        with atomic_open(self.path, "wb") as handle:
            np.savez(handle, __keys__=self.keys, **self.arrays)

    def features(self, times_s: np.ndarray, compute: ComputeFn) -> dict[str, np.ndarray]:
        """Region features `(N, R, ...)` at `times_s` (rounded to the millisecond)."""
        with self._lock:
            return self._features(_key(times_s), compute)

    def _features(self, keys: np.ndarray, compute: ComputeFn) -> dict[str, np.ndarray]:
        missing = np.setdiff1d(np.unique(keys), self.keys)
        if missing.size:
            fresh = compute(missing / 1000.0)
            if not self.arrays:
                self.arrays = {k: np.asarray(v) for k, v in fresh.items()}
            else:
                self.arrays = {k: np.concatenate([self.arrays[k], fresh[k]]) for k in self.arrays}
            self.keys = np.concatenate([self.keys, missing])
            order = np.argsort(self.keys)
            self.keys = self.keys[order]
            self.arrays = {k: v[order] for k, v in self.arrays.items()}
            self._save()
        rows = np.searchsorted(self.keys, keys)
        return {k: v[rows] for k, v in self.arrays.items()}
