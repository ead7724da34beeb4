"""The views of a frame's objects: each half's object box, and the largest object whole."""

from __future__ import annotations

import numpy as np

from longground.agent.composited.object_views import VIEWS, object_views, padded_square
from tests.agent.test_backdrop_boxes import _tinted_noise

TINT = (60, 170, 60)  # a green backdrop: its pixels keep red equal to blue


def _object_share(view: np.ndarray) -> np.ndarray:
    """`(H, W)` bool: the pixels of a view that are not the green backdrop."""
    return view[..., 0] != view[..., 2]


def _centred_object(h: int = 90, w: int = 160) -> np.ndarray:
    """A frame as r2 renders it: one object, wider than tall, across the line between the
    halves (an ellipse, so a whole view shows backdrop in its corners)."""
    frame = _tinted_noise(h, w, TINT)
    yy, xx = np.mgrid[:h, :w]
    inside = ((yy - 50) / 20.0) ** 2 + ((xx - 80) / 36.0) ** 2 <= 1.0
    frame[inside] = (200, 60, 30)
    return frame


def test_an_object_across_the_halves_is_seen_whole_only_in_the_third_view():
    views, found = object_views(_centred_object()[None])
    assert views.shape == (1, len(VIEWS), 224, 224, 3) and VIEWS[-1] == "whole object"
    assert found.tolist() == [[True, True, True]]
    left, right, whole = (_object_share(v) for v in views[0])
    # each half's box is a piece of the object: its square holds almost nothing else
    assert left.mean() > 0.8 and right.mean() > 0.8
    # the whole view holds all of it: both its ends, and backdrop above and below
    cols = np.flatnonzero(whole.any(axis=0))
    assert cols[0] <= 8 and cols[-1] >= 215
    assert not whole[:40].any() and not whole[-40:].any()
    assert 0.38 < whole.mean() < 0.5  # an ellipse of 72 x 40 px fills 0.44 of a 72 px square


def test_a_frame_without_an_object_is_seen_whole_and_square():
    frame = _tinted_noise(90, 160, TINT)
    views, found = object_views(np.stack([frame, frame]))
    assert views.shape == (2, 3, 224, 224, 3)
    assert not _object_share(views[0, 2]).any()
    assert not found.any()  # each view fell back to its half or the whole frame


def test_a_square_past_the_frames_edge_repeats_the_edge():
    frame = np.zeros((40, 100, 3), np.uint8)
    frame[:, :50] = (10, 200, 10)
    frame[:, 50:] = (200, 10, 10)
    square = padded_square(frame, (0, 40, 0, 100))  # 100 px: 30 px past the top and bottom
    assert square.shape == (224, 224, 3)
    assert (square[0, :100, 1] > 150).all() and (square[-1, 130:, 0] > 150).all()
    # small boxes are enlarged smoothly: no block of repeated pixels at the crop's scale
    tiny = np.random.default_rng(0).integers(0, 256, (8, 8, 3), dtype=np.uint8)
    up = padded_square(tiny, (0, 8, 0, 8))
    assert len(np.unique(up[:, :, 0], axis=0)) > 100
