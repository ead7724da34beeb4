"""`Detections`: boxes found in a batch of frames, one row per box (supervision's layout)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..track import checked_boxes


@dataclass(frozen=True, eq=False)
class Detections:
    """Boxes of a target in N frames.

    Args:
        boxes: `(K, 4)` float64 normalised xyxy (fractions of the frame, 0 to 1).
        scores: `(K,)` float64 in [0, 1]: how sure the localiser is.
        frames: `(K,)` int64, the frame (0..N-1) each box was found in, non-decreasing.

    >>> d = Detections([[0, 0, 0.5, 0.5], [0.5, 0.5, 1, 1]], [0.9, 0.2], [0, 2])
    >>> d[d.scores > 0.5].frames.tolist(), d.in_frame(2).boxes.tolist()
    ([0], [[0.5, 0.5, 1.0, 1.0]])
    """

    boxes: np.ndarray
    scores: np.ndarray
    frames: np.ndarray

    def __post_init__(self) -> None:
        boxes = checked_boxes(self.boxes)
        scores = np.asarray(self.scores, dtype=np.float64).reshape(-1)
        frames = np.asarray(self.frames, dtype=np.int64).reshape(-1)
        if not len(scores) == len(frames) == len(boxes):
            raise ValueError(f"{len(boxes)} boxes, {len(scores)} scores, {len(frames)} frames")
        if not ((scores >= 0) & (scores <= 1)).all():
            raise ValueError("scores must lie in [0, 1]")
        if (np.diff(frames) < 0).any() or (frames < 0).any():
            raise ValueError("frames must be non-negative and in order")
        object.__setattr__(self, "boxes", boxes)
        object.__setattr__(self, "scores", scores)
        object.__setattr__(self, "frames", frames)

    @classmethod
    def empty(cls) -> Detections:
        return cls(np.zeros((0, 4)), np.zeros(0), np.zeros(0, np.int64))

    @classmethod
    def joined(cls, parts: list[Detections], frames: list[int] | None = None) -> Detections:
        """One `Detections` from per-frame parts; part `i` is frame `frames[i]` (default `i`)."""
        if not parts:
            return cls.empty()
        frames = list(range(len(parts))) if frames is None else frames
        return cls(
            np.concatenate([p.boxes for p in parts]),
            np.concatenate([p.scores for p in parts]),
            np.concatenate([np.full(len(p), f) for p, f in zip(parts, frames)]),
        )

    @classmethod
    def concat(cls, parts: list[Detections]) -> Detections:
        """One `Detections` from parts whose `frames` already count from a common start."""
        if not parts:
            return cls.empty()
        return cls(
            np.concatenate([p.boxes for p in parts]),
            np.concatenate([p.scores for p in parts]),
            np.concatenate([p.frames for p in parts]),
        )

    def __len__(self) -> int:
        return int(self.scores.shape[0])

    def __getitem__(self, index) -> Detections:
        idx = index if isinstance(index, slice) else np.asarray(index)
        return Detections(self.boxes[idx], self.scores[idx], self.frames[idx])

    def in_frame(self, frame: int) -> Detections:
        """The boxes of one frame."""
        return self[self.frames == frame]
