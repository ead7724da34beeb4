"""`Track.boxes_at` (the box between samples, for drawing) against a loop over the track's
boxes, on generated tracks and times."""

from __future__ import annotations

import numpy as np
from hypothesis import given
from hypothesis import strategies as st

from longground.track import Track


def naive_box_at(track: Track, t: float, max_gap_s: float):
    """The box at `t` by walking the samples: exact at a sample, linear between two that
    are at most `max_gap_s` apart, None elsewhere."""
    for time, box in zip(track.times_s, track.boxes):
        if time == t:
            return box
    for k in range(1, len(track)):
        t0, t1 = track.times_s[k - 1], track.times_s[k]
        if t0 < t < t1:
            if t1 - t0 > max_gap_s:
                return None
            a = (t - t0) / (t1 - t0)
            return track.boxes[k - 1] * (1 - a) + track.boxes[k] * a
    return None


@st.composite
def tracks(draw):
    n = draw(st.integers(1, 8))
    steps = draw(st.lists(st.sampled_from([0.2, 0.5, 1.5, 3.0]), min_size=n, max_size=n))
    times = np.cumsum(steps)
    corners = draw(st.lists(st.tuples(*[st.floats(0, 0.5)] * 2, *[st.floats(0, 0.5)] * 2),
                            min_size=n, max_size=n))  # fmt: skip
    boxes = [[x, y, x + w, y + h] for x, y, w, h in corners]
    return Track(boxes, times)


@given(tracks(), st.lists(st.floats(0, 25), max_size=10), st.sampled_from([1.0, 2.0, np.inf]))
def test_boxes_at_is_the_naive_walk(track, times, max_gap_s):
    times = [*times, *track.times_s[:2].tolist()]
    got = track.boxes_at(times, max_gap_s)
    for t, box in zip(times, got):
        want = naive_box_at(track, t, max_gap_s)
        if want is None:
            assert np.isnan(box).all(), (t, box)
        else:
            assert np.allclose(box, want), (t, box, want)
