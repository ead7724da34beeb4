"""Per-object counts: how many distinct objects the tracks show, and when each was seen.

An *objects* count is the number of distinct tracks ("how many cars pass": every car once,
however long it stays, and two cars in one shot are two). A *shots* count is the number of
moments a grounding method returns ("how many times does a car pass": one per stretch of
video showing a car, however many cars it holds). docs/tracks.md defines both.
"""

from __future__ import annotations

import numpy as np

from ..moments import Moments
from ..track import Track

#: A track seen in fewer frames than this is not counted (a stray box the tracker kept).
MIN_FRAMES = 2


def count_objects(tracks: list[Track], min_frames: int = MIN_FRAMES) -> int:
    """The number of distinct objects: tracks with at least `min_frames` boxes.

    >>> t = Track([[0, 0, 0.1, 0.1]] * 3, [0.0, 0.5, 1.0], None, 0, "car")
    >>> count_objects([t, Track([[0, 0, 0.1, 0.1]], [2.0], None, 1, "car")])
    1
    """
    return sum(1 for t in tracks if len(t) >= min_frames)


def object_moments(tracks: list[Track], min_frames: int = MIN_FRAMES) -> Moments:
    """When each counted object is seen: one span per track, from its first box to its
    last, scored by its mean confidence, in order of appearance.

    >>> t = Track([[0, 0, 0.1, 0.1]] * 2, [3.0, 4.5], [0.5, 1.0], 0, "car")
    >>> object_moments([t]).to_list(), object_moments([t]).scores.tolist()
    ([[3.0, 4.5]], [0.75])
    """
    kept = [t for t in tracks if len(t) >= min_frames]
    spans = np.array([[t.start_s, t.end_s] for t in kept]).reshape(-1, 2)
    scores = np.array([t.confidence.mean() for t in kept])
    return Moments(spans, scores).sorted()
