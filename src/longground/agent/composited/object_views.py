"""The views of a frame's objects the encoder is shown: each half's object box, and the
frame's largest object whole.

`boxes.object_crops` looks for an object in each frame half and cuts its box to the centred
square inside it. A single object in the middle of the frame is then never seen whole: the
line between the halves cuts it in two, and each half's box is cut again to its shorter side.
On r2 (160x90, photos at 0.6 of their size) the horse silhouette stands in the middle of its
shots, and its two half-boxes showed a piece of its body each: the encoder scored them 1.07
(median over its shots) against 1.42 outside them (95th percentile), and the horse was never
found. The third view is the largest object of the whole frame (`boxes.object_box` over all
columns), shown whole: the smallest square that holds its box, centred on it. There the horse
scores 2.48 against 1.27 (`perf/object_views.py`). The half views stay: they are the closer
look at a photo that is its own backdrop (the rocket on its launch pad, whose thin rocket a
whole-photo view shrinks further).

Where the square passes the frame's edge, the edge's pixels are repeated; with no object the
view is the whole frame made square the same way. No constant is added.
"""

from __future__ import annotations

import numpy as np

from ...errors import require
from .boxes import CROP_SIDE, SIDES, half_boxes, half_crops, object_box
from .ring import ring_foreground

VIEWS = (*SIDES, "whole object")
#: The object features' key of `(N, len(VIEWS))` bool: the view shows a box the frame's outer
#: ring does not show, not the half or the whole frame it falls back to.
OBJECT_FOUND = "object_found"


def padded_square(frame: np.ndarray, box: tuple[int, int, int, int]) -> np.ndarray:
    """The smallest square holding `box` `(top, bottom, left, right)`, centred on it and
    resized to `(CROP_SIDE, CROP_SIDE, 3)`; the frame's edge pixels fill what lies outside it.

    >>> f = np.zeros((60, 120, 3), np.uint8); f[20:40, 10:90] = 255
    >>> sq = padded_square(f, (20, 40, 10, 90))
    >>> sq.shape, int(sq[:, 112].mean() > 200), int(sq[112, :].mean() > 200)
    ((224, 224, 3), 0, 1)
    """
    cv2 = require("cv2", "agent")
    top, bottom, left, right = box
    side = max(bottom - top, right - left, 1)
    y0 = (top + bottom - side) // 2
    x0 = (left + right - side) // 2
    padded = cv2.copyMakeBorder(np.ascontiguousarray(frame), side, side, side, side,
                                cv2.BORDER_REPLICATE)  # fmt: skip
    square = np.ascontiguousarray(padded[y0 + side : y0 + 2 * side, x0 + side : x0 + 2 * side])
    shrink = cv2.INTER_AREA if side > CROP_SIDE else cv2.INTER_LINEAR
    return cv2.resize(square, (CROP_SIDE, CROP_SIDE), interpolation=shrink)


def whole_object(frame: np.ndarray, fg: np.ndarray | None = None) -> np.ndarray:
    """`(CROP_SIDE, CROP_SIDE, 3)`: the frame's largest object whole (`padded_square` of its
    `whole_box`), or the whole frame made square when nothing stands out of the backdrop
    (`fg`: the frame's `ring.ring_foreground`, computed when not given).

    >>> f = np.full((90, 160, 3), 30, np.uint8); f[20:80, 50:110] = (220, 200, 40)
    >>> view = whole_object(f)
    >>> int(view[112, 112, 0]), int(view[2, 112, 0]) > 100  # the object fills the square
    (220, True)
    """
    return _whole_view(frame, whole_box(frame, fg))


def _whole_view(frame: np.ndarray, box: tuple[int, int, int, int] | None) -> np.ndarray:
    h, w = frame.shape[:2]
    return padded_square(frame, box or (0, h, 0, w))


def whole_box(frame: np.ndarray, fg: np.ndarray | None = None) -> tuple[int, int, int, int] | None:
    """The box of the frame's largest object (`boxes.object_box` over all its columns)."""
    return object_box(frame, 0, frame.shape[1], fg)


def object_views(frames: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """`(N, len(VIEWS), CROP_SIDE, CROP_SIDE, 3)` uint8 per frame: its left half's object, its
    right half's object (`boxes.half_crops`) and its largest object whole; and `(N,
    len(VIEWS))` bool: which views found an object (`OBJECT_FOUND`).

    >>> f = np.full((2, 90, 160, 3), 30, np.uint8); f[:, 20:80, 50:110] = (220, 200, 40)
    >>> views, found = object_views(f)
    >>> views.shape, int(views[0, 2, 112, 112, 0]), found[0].tolist()
    ((2, 3, 224, 224, 3), 220, [True, True, True])
    """
    frames = np.asarray(frames, np.uint8)
    out = np.zeros((len(frames), len(VIEWS), CROP_SIDE, CROP_SIDE, 3), np.uint8)
    found = np.zeros((len(frames), len(VIEWS)), bool)
    for i, frame in enumerate(frames):
        fg = ring_foreground(frame)  # once per frame, for its three boxes
        boxes = [*half_boxes(frame, fg), whole_box(frame, fg)]
        out[i, : len(SIDES)] = half_crops(frame, boxes[:-1])
        out[i, len(SIDES)] = _whole_view(frame, boxes[-1])
        found[i] = [b is not None for b in boxes]
    return out, found
