"""Zooming in on the object of each frame half: its box against the backdrop.

A frame half still shows much backdrop around a small object, and an object-class encoder
that sees a whole half misses it: on r1 (320x180) the rocket of a two-object shot scored 0.5
to 1.6 on its half against its threshold of 2.4, and 2.9 to 3.7 on its own box. The box is
found with the *boundary prior* of salient-object detection: the frame's outer ring shows the
backdrop, and the object is what the ring does not show (`ring.ring_foreground`). In each half
the largest region of that foreground (`agent.foreground.parts`) is the object; a region
under `MIN_AREA` of the half gives no box (the half itself is used). No constant was fitted:
the boxes were looked at on r1's two-object shots.

The crop is the box cut to a centred square (the encoder's own centre crop) and resized to
`CROP_SIDE`.
"""

from __future__ import annotations

import numpy as np

from ...errors import require
from ..foreground import box, parts
from .ring import ring_foreground

#: The smallest object box, as a share of the half (or frame) it is looked for in.
MIN_AREA = 0.02
CROP_SIDE = 224
SIDES = ("left object", "right object")


def object_box(
    frame: np.ndarray, x0: int, x1: int, fg: np.ndarray | None = None
) -> tuple[int, int, int, int] | None:
    """`(top, bottom, left, right)` pixel box of the largest foreground object between
    columns `x0` and `x1`, or None when there is none; `fg` is the frame's
    `ring.ring_foreground` when the caller has it already (several boxes of one frame).

    >>> f = np.full((60, 120, 3), 30, np.uint8); f[10:50, 70:100] = (220, 200, 40)
    >>> object_box(f, 60, 120), object_box(f, 0, 60)
    ((10, 50, 70, 100), None)
    """
    mask = (ring_foreground(frame) if fg is None else fg)[:, x0:x1]
    found = parts(mask, frame.shape[0])
    if not found or found[0].sum() < MIN_AREA * mask.size:
        return None
    top, bottom, left, right = box(found[0])
    return top, bottom, x0 + left, x0 + right


def square_crop(frame: np.ndarray, box: tuple[int, int, int, int]) -> np.ndarray:
    """The box's centred square, resized to `(CROP_SIDE, CROP_SIDE, 3)`.

    >>> square_crop(np.zeros((60, 120, 3), np.uint8), (10, 50, 0, 100)).shape
    (224, 224, 3)
    """
    cv2 = require("cv2", "agent")
    top, bottom, left, right = box
    side = min(bottom - top, right - left)
    y = top + (bottom - top - side) // 2
    x = left + (right - left - side) // 2
    square = np.ascontiguousarray(frame[y : y + side, x : x + side])
    return cv2.resize(square, (CROP_SIDE, CROP_SIDE), interpolation=cv2.INTER_AREA)


def object_crops(frames: np.ndarray) -> np.ndarray:
    """`(N, 2, CROP_SIDE, CROP_SIDE, 3)` uint8: per frame, the object of its left and its
    right half (`SIDES`); a half with no object gives the whole half's square.

    >>> f = np.full((1, 60, 120, 3), 30, np.uint8); f[0, 10:50, 70:100] = (220, 200, 40)
    >>> crops = object_crops(f)
    >>> crops.shape, int(crops[0, 1].mean()) > 100, int(crops[0, 0].mean())
    ((1, 2, 224, 224, 3), True, 30)
    """
    frames = np.asarray(frames, np.uint8)
    out = np.zeros((len(frames), len(SIDES), CROP_SIDE, CROP_SIDE, 3), np.uint8)
    for i, frame in enumerate(frames):
        out[i] = half_crops(frame, half_boxes(frame))
    return out


def half_crops(frame: np.ndarray, boxes: list) -> np.ndarray:
    """`(2, CROP_SIDE, CROP_SIDE, 3)`: the squares of the two halves' `half_boxes`, each
    half whole where its box is None."""
    return np.stack([square_crop(frame, box) for box in _or_halves(frame, boxes)])


def half_boxes(
    frame: np.ndarray, fg: np.ndarray | None = None
) -> list[tuple[int, int, int, int] | None]:
    """The object box of the frame's left and right half (`object_box`), None where a half
    holds none (`fg`: the frame's `ring.ring_foreground`, computed when not given)."""
    w = frame.shape[1]
    fg = ring_foreground(frame) if fg is None else fg
    return [object_box(frame, x0, x1, fg) for x0, x1 in ((0, w // 2), (w // 2, w))]


def _or_halves(frame: np.ndarray, boxes: list) -> list[tuple[int, int, int, int]]:
    """Each half's box, or the whole half where it has none."""
    h, w = frame.shape[:2]
    halves = ((0, h, 0, w // 2), (0, h, w // 2, w))
    return [box or half for box, half in zip(boxes, halves)]
