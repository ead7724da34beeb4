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

#: A track seen for less than this, first box to last, is not counted: on vtest.avi at
#: 5 fps the shorter ones were a detector flickering on a sign or on half a walker for a
#: few frames (docs/tracks.md), and an object that passes is seen for longer.
MIN_S = 1.0


def counted(track: Track, min_s: float = MIN_S) -> bool:
    """Whether a track counts as an object: seen for at least `min_s` seconds."""
    return len(track) >= 2 and track.end_s - track.start_s >= min_s - 1e-9


def count_objects(tracks: list[Track], min_s: float = MIN_S) -> int:
    """The number of distinct objects: tracks seen for at least `min_s` seconds.

    >>> t = Track([[0, 0, 0.1, 0.1]] * 3, [0.0, 0.5, 1.0], None, 0, "car")
    >>> count_objects([t, Track([[0, 0, 0.1, 0.1]] * 2, [2.0, 2.4], None, 1, "car")])
    1
    """
    return sum(counted(t, min_s) for t in tracks)


def object_moments(tracks: list[Track], min_s: float = MIN_S) -> Moments:
    """When each counted object is seen: one span per track, from its first box to its
    last, scored by its mean confidence, in order of appearance.

    >>> t = Track([[0, 0, 0.1, 0.1]] * 2, [3.0, 4.5], [0.5, 1.0], 0, "car")
    >>> object_moments([t]).to_list(), object_moments([t]).scores.tolist()
    ([[3.0, 4.5]], [0.75])
    """
    kept = [t for t in tracks if counted(t, min_s)]
    spans = np.array([[t.start_s, t.end_s] for t in kept]).reshape(-1, 2)
    scores = np.array([t.confidence.mean() for t in kept])
    return Moments(spans, scores).sorted()
