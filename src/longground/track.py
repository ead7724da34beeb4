"""`Track`: one object followed through sampled frames, and the box maths on it.

A track is a box per sampled frame: `(N, 4)` normalised `[x0, y0, x1, y1]` (fractions of the
frame's width and height, so 0..1 whatever the resolution), the frame's time in seconds and a
confidence, with one `track_id` and a `label` for the whole track. It is what a localiser plus
a tracker make (`longground.tracking`), what `synth` writes as ground truth (`boxes/`), and
what the `stvg` protocol scores.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True, eq=False)
class Track:
    """Boxes of one object at increasing times.

    Args:
        boxes: `(N, 4)` float64 normalised xyxy, each coordinate in [0, 1], `x1 >= x0`,
            `y1 >= y0`.
        times_s: `(N,)` float64 seconds, finite, strictly increasing (one box per frame).
        confidence: `(N,)` float64 in [0, 1]; ones when not given.
        track_id: the track's number, unique among the tracks of one video.
        label: what the object is ("person", "car", ...).

    Raises:
        ValueError: naming the first bad box (its index), so a reader can add file and line.

    >>> t = Track([[0.1, 0.2, 0.3, 0.4], [0.2, 0.2, 0.4, 0.4]], [1.0, 1.2], [0.9, 0.3], 7, "dog")
    >>> len(t), t.start_s, t.end_s
    (2, 1.0, 1.2)
    >>> t[t.confidence > 0.5].times_s.tolist()
    [1.0]
    >>> Track([[0.5, 0.2, 0.3, 0.4]], [0.0])
    Traceback (most recent call last):
    ValueError: box 0 [0.5, 0.2, 0.3, 0.4] has a negative size (x1 < x0 or y1 < y0)
    """

    boxes: np.ndarray
    times_s: np.ndarray
    confidence: np.ndarray | None = None
    track_id: int = 0
    label: str = ""

    def __post_init__(self) -> None:
        boxes = checked_boxes(self.boxes)
        times = np.asarray(self.times_s, dtype=np.float64).reshape(-1)
        if times.shape[0] != boxes.shape[0]:
            raise ValueError(f"{times.shape[0]} times for {boxes.shape[0]} boxes")
        _check_times(times)
        confidence = np.ones(len(times)) if self.confidence is None else self.confidence
        confidence = np.asarray(confidence, dtype=np.float64).reshape(-1)
        if confidence.shape[0] != boxes.shape[0]:
            raise ValueError(f"{confidence.shape[0]} confidences for {boxes.shape[0]} boxes")
        bad = np.flatnonzero(~((confidence >= 0) & (confidence <= 1)))  # NaN is caught too
        if len(bad):
            raise ValueError(f"confidence {bad[0]} is {float(confidence[bad[0]]):g}: use 0 to 1")
        if isinstance(self.track_id, bool) or not isinstance(self.track_id, int | np.integer):
            raise ValueError(f"track_id must be an integer, got {self.track_id!r}")
        if not isinstance(self.label, str):
            raise ValueError(f"label must be text, got {self.label!r}")
        object.__setattr__(self, "boxes", boxes)
        object.__setattr__(self, "times_s", times)
        object.__setattr__(self, "confidence", confidence)
        object.__setattr__(self, "track_id", int(self.track_id))

    def __len__(self) -> int:
        return int(self.times_s.shape[0])

    def __getitem__(self, index) -> Track:
        """Select frames by boolean mask, index array or slice; always returns a `Track`."""
        idx = index if isinstance(index, slice) else np.asarray(index)
        if not isinstance(idx, slice) and idx.ndim == 0:
            idx = idx.reshape(1)
        return Track(
            self.boxes[idx], self.times_s[idx], self.confidence[idx], self.track_id, self.label
        )

    def __repr__(self) -> str:
        return f"Track(id={self.track_id}, label={self.label!r}, n={len(self)})"

    @property
    def start_s(self) -> float:
        """Time of the first box (NaN for an empty track)."""
        return float(self.times_s[0]) if len(self) else float("nan")

    @property
    def end_s(self) -> float:
        """Time of the last box (NaN for an empty track)."""
        return float(self.times_s[-1]) if len(self) else float("nan")

    def during(self, start_s: float, end_s: float) -> Track:
        """The frames with `start_s <= time <= end_s`.

        >>> Track(np.tile([0, 0, 1, 1], (3, 1)), [0.0, 1.0, 2.0]).during(0.5, 2.0).times_s.tolist()
        [1.0, 2.0]
        """
        return self[(self.times_s >= start_s) & (self.times_s <= end_s)]

    def boxes_at(self, times_s, max_gap_s: float = float("inf")) -> np.ndarray:
        """The box at each of `times_s`: linearly between the two boxes around it, NaN
        before the first box, after the last, or where those two boxes are more than
        `max_gap_s` apart (the object went unseen there). For drawing the track on frames
        between its samples.

        Args:
            times_s: `(T,)` seconds.
            max_gap_s: the widest gap between boxes to draw across.

        Returns:
            `(T, 4)` float64 normalised xyxy, rows of NaN where there is no box.

        >>> t = Track([[0.0, 0.0, 0.2, 0.2], [0.2, 0.0, 0.4, 0.2]], [1.0, 2.0])
        >>> t.boxes_at([1.5, 3.0]).tolist()[0], bool(np.isnan(t.boxes_at([3.0])).all())
        ([0.1, 0.0, 0.30000000000000004, 0.2], True)
        """
        times = np.asarray(times_s, dtype=np.float64).reshape(-1)
        out = np.full((len(times), 4), np.nan)
        if not len(self):
            return out
        for c in range(4):
            out[:, c] = np.interp(times, self.times_s, self.boxes[:, c])
        after = np.searchsorted(self.times_s, times, side="left").clip(1, max(1, len(self) - 1))
        gap = self.times_s[after] - self.times_s[after - 1] if len(self) > 1 else np.zeros(1)
        exact = np.isin(times, self.times_s)
        inside = (times >= self.start_s) & (times <= self.end_s) & ((gap <= max_gap_s) | exact)
        out[~inside] = np.nan
        return out

    def to_dict(self) -> dict:
        """The track as plain JSON values (`from_dict` reads it back unchanged).

        >>> Track([[0, 0, 0.5, 0.5]], [2.0], None, 3, "cat").to_dict()["boxes"]
        [[0.0, 0.0, 0.5, 0.5]]
        >>> t = Track([[0, 0, 0.5, 0.5]], [2.0], [0.5], 3, "cat")
        >>> Track.from_dict(t.to_dict()).to_dict() == t.to_dict()
        True
        """
        return {
            "track_id": self.track_id,
            "label": self.label,
            "times_s": self.times_s.tolist(),
            "boxes": self.boxes.tolist(),
            "confidence": self.confidence.tolist(),
        }

    @classmethod
    def from_dict(cls, record: dict) -> Track:
        """A track from `to_dict`'s layout; "confidence", "track_id" and "label" may be absent.

        Raises:
            ValueError: a field is missing or of the wrong type, or a box is bad.
        """
        for key in ("times_s", "boxes"):
            if not isinstance(record.get(key), list):
                raise ValueError(f"field {key!r} must be a list")
        confidence = record.get("confidence")
        if confidence is not None and not isinstance(confidence, list):
            raise ValueError("field 'confidence' must be a list")
        boxes = record["boxes"]
        if any(not isinstance(b, list) or len(b) != 4 for b in boxes):
            raise ValueError("field 'boxes' must be a list of [x0, y0, x1, y1]")
        numbers = [*record["times_s"], *(v for b in boxes for v in b), *(confidence or [])]
        if any(isinstance(v, bool) or not isinstance(v, int | float) for v in numbers):
            raise ValueError("times, boxes and confidences must be numbers")
        return cls(
            np.array(boxes, dtype=np.float64).reshape(-1, 4),
            np.array(record["times_s"], dtype=np.float64),
            None if confidence is None else np.array(confidence, dtype=np.float64),
            record.get("track_id", 0),
            record.get("label", ""),
        )


def checked_boxes(boxes) -> np.ndarray:
    """`boxes` as `(N, 4)` float64, or a `ValueError` naming the first bad one."""
    boxes = np.asarray(boxes, dtype=np.float64)
    if boxes.size == 0:
        return boxes.reshape(0, 4)
    if boxes.ndim != 2 or boxes.shape[1] != 4:
        raise ValueError(f"boxes must be (N, 4) [x0, y0, x1, y1], got shape {boxes.shape}")
    finite = np.isfinite(boxes).all(axis=1)
    inside = ((boxes >= 0) & (boxes <= 1)).all(axis=1)
    ordered = (boxes[:, 2] >= boxes[:, 0]) & (boxes[:, 3] >= boxes[:, 1])
    for ok, why in (
        (finite, "is not finite"),
        (inside, "lies outside the frame (coordinates are fractions of it, 0 to 1)"),
        (ordered, "has a negative size (x1 < x0 or y1 < y0)"),
    ):
        bad = np.flatnonzero(~ok)
        if len(bad):
            return _bad_box(boxes, int(bad[0]), why)
    return boxes


def _bad_box(boxes: np.ndarray, index: int, why: str):
    shown = [float(f"{v:.6g}") for v in boxes[index]]
    raise ValueError(f"box {index} {shown} {why}")


def _check_times(times: np.ndarray) -> None:
    bad = np.flatnonzero(~np.isfinite(times))
    if len(bad):
        raise ValueError(f"time {bad[0]} is not finite")
    back = np.flatnonzero(np.diff(times) <= 0)
    if len(back):
        at = int(back[0]) + 1
        raise ValueError(f"time {at} ({times[at]:g} s) does not come after {times[at - 1]:g} s")


def box_iou(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """IoU of paired boxes: `a[i]` with `b[i]`.

    Args:
        a, b: `(N, 4)` xyxy boxes in the same units.

    Returns:
        `(N,)` float64 in [0, 1]; 0 where the union is empty.

    >>> box_iou(np.array([[0, 0, 2, 2], [0, 0, 1, 1]]), np.array([[1, 1, 3, 3], [2, 2, 3, 3]]))
    array([0.14285714, 0.        ])
    """
    a = np.asarray(a, dtype=np.float64).reshape(-1, 4)
    b = np.asarray(b, dtype=np.float64).reshape(-1, 4)
    w = np.clip(np.minimum(a[:, 2], b[:, 2]) - np.maximum(a[:, 0], b[:, 0]), 0, None)
    h = np.clip(np.minimum(a[:, 3], b[:, 3]) - np.maximum(a[:, 1], b[:, 1]), 0, None)
    inter = w * h
    area_a = (a[:, 2] - a[:, 0]) * (a[:, 3] - a[:, 1])
    area_b = (b[:, 2] - b[:, 0]) * (b[:, 3] - b[:, 1])
    union = area_a + area_b - inter
    out = np.zeros_like(inter)
    np.divide(inter, union, out=out, where=union > 0)
    return out
