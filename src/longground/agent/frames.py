"""The one frame sampler: every frame the verifier and the roles look at is decoded here.

Each reading of the pixels (episodes, cuts, sweeps, the camera's move, a scene's backdrops and
looks, a Video-LLM's frames) asks for frames. A reading of a stretch at a rate takes its times
from one grid, `k / fps` with `fps` = `SAMPLER_FPS` (every n-th grid time for a lower rate,
`grid(..., every=n)`), so two readings of one stretch share their frames; a reading of single
moments (a node's frames) asks for its own times. The sampler decodes only the times (to the
millisecond) it does not hold, `CHUNK` at a time, and keeps the last `KEEP` frames of the
query. All frames come at the source's one size (`VideoSource.frames_at`).
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Iterator

import numpy as np

#: The grid's rate, frames per second: the fastest any reading looks (an episode's motion).
SAMPLER_FPS = 8.0
#: Frames decoded at once.
CHUNK = 64
#: Decoded frames kept per query (about 70 MB at 224x398).
KEEP = 256

FramesAt = Callable[[np.ndarray], np.ndarray]


class FrameSampler:
    """Frames of one video on the grid `k / fps`, decoded through `frames_at` and kept.

    Args:
        frames_at: decodes `(N, H, W, 3)` uint8 frames shown at `(N,)` rising times; fewer
            (the first ones) when the file ends before the last.
        fps: the grid's rate.
        keep: frames kept after decoding.

    >>> decoded = []
    >>> def frames_at(t):
    ...     decoded.extend(np.round(t, 3).tolist())
    ...     return np.stack([np.full((2, 2, 3), round(x * 8), np.uint8) for x in t])
    >>> sampler = FrameSampler(frames_at)
    >>> sampler.grid(0.3, 1.0, every=2).tolist()
    [0.25, 0.5, 0.75]
    >>> sampler.frames(np.array([0.5, 0.75]))[:, 0, 0, 0].tolist()
    [4, 6]
    >>> _ = sampler.frames(sampler.grid(0.45, 0.8)); decoded
    [0.5, 0.75, 0.625]
    """

    def __init__(self, frames_at: FramesAt, fps: float = SAMPLER_FPS, keep: int = KEEP):
        self.frames_at, self.fps, self.keep = frames_at, float(fps), keep
        self._kept: OrderedDict[int, np.ndarray] = OrderedDict()
        self._end: int | None = None  # first millisecond the file does not reach
        self._lock = threading.Lock()

    def grid(self, start_s: float, end_s: float, every: int = 1) -> np.ndarray:
        """Every `every`-th grid time from the one nearest `start_s` (at least 0) to before
        `end_s`, in seconds."""
        first = max(int(np.rint(start_s * self.fps)), 0)
        last = int(np.ceil(end_s * self.fps - 1e-9))
        return np.arange(first, last, max(int(every), 1)) / self.fps

    def frames(self, times_s: np.ndarray) -> np.ndarray:
        """`(N, H, W, 3)` uint8 frames shown at `times_s` (to the millisecond, at least 0), in
        that order; fewer when the file ends early (the times it does not reach are left
        out)."""
        return np.concatenate(list(self.chunks(times_s, len(np.atleast_1d(times_s)) or 1)))

    def chunks(self, times_s: np.ndarray, size: int | None = None) -> Iterator[np.ndarray]:
        """`frames(times_s)` in pieces of at most `size` frames (default `CHUNK`; at least
        one piece, maybe empty), so that a long stretch is never held at once."""
        index = _ms(np.atleast_1d(times_s))
        size = size or CHUNK
        yielded = False
        for at in range(0, len(index), size):
            part = self._decoded(index[at : at + size])
            if len(part):
                yield part
                yielded = True
        if not yielded:
            yield np.zeros((0, 1, 1, 3), np.uint8)

    def _decoded(self, index: np.ndarray) -> np.ndarray:
        with self._lock:
            reach = index if self._end is None else index[index < self._end]
            missing = np.setdiff1d(reach, np.fromiter(self._kept, np.int64, len(self._kept)))
            fresh = {}
            if missing.size:
                frames = self.frames_at(missing / 1000.0)
                fresh = dict(zip(missing[: len(frames)].tolist(), frames, strict=False))
                if len(frames) < len(missing):
                    self._end = int(missing[len(frames)])
            found = [self._take(int(i), fresh) for i in index]
            self._trim()
        shown = [f for f in found if f is not None]
        return np.stack(shown) if shown else np.zeros((0, 1, 1, 3), np.uint8)

    def _take(self, i: int, fresh: dict[int, np.ndarray]) -> np.ndarray | None:
        frame = fresh.get(i)
        if frame is None:
            frame = self._kept.get(i)
        if frame is not None:
            self._kept[i] = frame
            self._kept.move_to_end(i)
        return frame

    def _trim(self) -> None:
        while len(self._kept) > self.keep:
            self._kept.popitem(last=False)


def _ms(times_s: np.ndarray) -> np.ndarray:
    """`(N,)` times as whole milliseconds (never negative): the sampler's keys."""
    return np.maximum(np.rint(np.asarray(times_s, np.float64) * 1000.0), 0).astype(np.int64)
