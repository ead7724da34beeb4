"""`FrameBatch`: decoded frames with the times they belong to."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np


@dataclass
class FrameBatch:
    """Frames and their times, all arrays aligned on the first axis.

    Attributes:
        frames: `(B, H, W, 3)` uint8 RGB, as displayed (rotation applied).
        pts_s: `(B,)` float64, when each frame starts being displayed, in seconds from the
            start of the video stream.
        times_s: `(B,)` float64, the sample times asked for; frame `i` is the one on screen at
            `times_s[i]`, so `pts_s[i] <= times_s[i]` except before the first frame.

    >>> b = FrameBatch(np.zeros((2, 4, 6, 3), np.uint8), np.array([0.0, 0.5]))
    >>> len(b), b.times_s.tolist()
    (2, [0.0, 0.5])
    """

    frames: np.ndarray
    pts_s: np.ndarray
    times_s: np.ndarray | None = None

    def __post_init__(self) -> None:
        self.pts_s = np.asarray(self.pts_s, dtype=np.float64)
        self.times_s = (
            self.pts_s.copy() if self.times_s is None else np.asarray(self.times_s, np.float64)
        )
        if self.frames.ndim != 4 or self.frames.shape[-1] != 3 or self.frames.dtype != np.uint8:
            raise ValueError(
                f"frames must be (B, H, W, 3) uint8, got {self.frames.shape} {self.frames.dtype}"
            )
        if not len(self.frames) == len(self.pts_s) == len(self.times_s):
            raise ValueError("frames, pts_s and times_s differ in length")

    def __len__(self) -> int:
        return len(self.frames)

    def __getitem__(self, index) -> FrameBatch:
        """Select frames by mask, index array or slice."""
        return FrameBatch(self.frames[index], self.pts_s[index], self.times_s[index])

    @classmethod
    def concat(cls, batches: Iterable[FrameBatch]) -> FrameBatch:
        """One batch from several of the same frame size.

        >>> one = FrameBatch(np.zeros((1, 2, 2, 3), np.uint8), [0.0])
        >>> len(FrameBatch.concat([one, one]))
        2
        """
        batches = list(batches)
        if not batches:
            raise ValueError("no batches to join")
        return cls(
            np.concatenate([b.frames for b in batches]),
            np.concatenate([b.pts_s for b in batches]),
            np.concatenate([b.times_s for b in batches]),
        )
