"""Zooming in on the object of each frame half: its box against the backdrop.

A frame half still shows much backdrop around a small object, and an object-class encoder
that sees a whole half misses it: on r1 (320x180) the rocket of a two-object shot scored 0.5
to 1.6 on its half against its threshold of 2.4, and 2.9 to 3.7 on its own box. The box is
found with the *boundary prior* of salient-object detection: the frame's outer ring shows the
backdrop (as `colors.py` reads its colour), and the object is what the ring does not show.

- every pixel's colour is quantised to `LEVELS` levels per channel; a colour of which the
  ring holds less than `RARE` of its pixels is foreground;
- the mask is opened (a square of 2 % of the frame height, at least 3 px) to drop specks;
- the box is the bounding box of the largest connected component in the half; a component
  under `MIN_AREA` of the half gives no box (the half itself is used).

The crop is the box cut to a centred square (the encoder's own centre crop) and resized to
`CROP_SIDE`. No constant was fitted: the quantisation and the rarity are the coarsest that keep
tinted textures in one colour family; the boxes were looked at on r1's two-object shots.
"""

from __future__ import annotations

import numpy as np

from ...errors import require
from .colors import border_pixels

LEVELS = 8
RARE = 0.002
MIN_AREA = 0.02
CROP_SIDE = 224
SIDES = ("left object", "right object")


def foreground(frame: np.ndarray) -> np.ndarray:
    """`(H, W)` bool: pixels whose quantised colour is rare in the frame's outer ring.

    >>> f = np.zeros((40, 60, 3), np.uint8); f[10:30, 20:40] = (200, 40, 40)
    >>> int(foreground(f).sum())
    400
    """
    f = np.asarray(frame, np.uint8)
    return ring_shares(f[None])[colour_codes(f)] < RARE


def colour_codes(pixels: np.ndarray) -> np.ndarray:
    """Each pixel's colour quantised to `LEVELS` levels per channel, as one code per pixel.

    Args:
        pixels: `(..., 3)` uint8 RGB.

    Returns:
        `(...)` int codes in `[0, LEVELS**3)`.
    """
    q = np.asarray(pixels).astype(np.int32) * LEVELS // 256
    return (q[..., 0] * LEVELS + q[..., 1]) * LEVELS + q[..., 2]


def ring_shares(frames: np.ndarray) -> np.ndarray:
    """`(LEVELS**3,)` share of each quantised colour (`colour_codes`) among the pixels of the
    frames' outer ring (`colors.border_pixels`)."""
    ring = colour_codes(border_pixels(frames))
    return np.bincount(ring.reshape(-1), minlength=LEVELS**3) / max(ring.size, 1)


def object_box(
    frame: np.ndarray, x0: int, x1: int, fg: np.ndarray | None = None
) -> tuple[int, int, int, int] | None:
    """`(top, bottom, left, right)` pixel box of the largest foreground object between
    columns `x0` and `x1`, or None when there is none; `fg` is the frame's `foreground`
    when the caller has it already (several boxes of one frame).

    >>> f = np.full((60, 120, 3), 30, np.uint8); f[10:50, 70:100] = (220, 200, 40)
    >>> object_box(f, 60, 120), object_box(f, 0, 60)
    ((10, 50, 70, 100), None)
    """
    cv2 = require("cv2", "agent")
    mask = (foreground(frame) if fg is None else fg)[:, x0:x1].astype(np.uint8)
    k = max(3, int(round(frame.shape[0] * 0.02))) | 1
    mask = cv2.morphologyEx(mask, cv2.MORPH_OPEN, np.ones((k, k), np.uint8))
    n, _, stats, _ = cv2.connectedComponentsWithStats(mask, connectivity=8)
    if n <= 1:
        return None
    best = 1 + int(np.argmax(stats[1:, cv2.CC_STAT_AREA]))
    x, y, w, h, area = (int(v) for v in stats[best])
    if area < MIN_AREA * mask.size:
        return None
    return y, y + h, x0 + x, x0 + x + w


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
    holds none (`fg`: the frame's `foreground`, computed when not given)."""
    w = frame.shape[1]
    fg = foreground(frame) if fg is None else fg
    return [object_box(frame, x0, x1, fg) for x0, x1 in ((0, w // 2), (w // 2, w))]


def _or_halves(frame: np.ndarray, boxes: list) -> list[tuple[int, int, int, int]]:
    """Each half's box, or the whole half where it has none."""
    h, w = frame.shape[:2]
    halves = ((0, h, 0, w // 2), (0, h, w // 2, w))
    return [box or half for box, half in zip(boxes, halves)]
