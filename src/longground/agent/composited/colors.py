"""Naming the colour of a frame's backdrop, for queries such as "the cat on a green background".

An image-text encoder built on object classes does not see colours. The backdrop, though, is
what fills the frame's outer margin, so its colour can be named directly: the pixels of a thin
ring along the frame edges are converted to HSV; saturated pixels are named by their hue,
the others as white, gray or black, and the share of the ring carrying the asked-for name is
the evidence.
"""

from __future__ import annotations

import numpy as np

from ...errors import require

# Hue (degrees) at the centre of each chromatic name; a pixel takes the nearest one.
HUES = {
    "red": 0.0,
    "orange": 28.0,
    "yellow": 55.0,
    "green": 120.0,
    "cyan": 180.0,
    "blue": 225.0,
    "purple": 280.0,
    "pink": 325.0,
}
ACHROMATIC = ("white", "gray", "black")
COLOR_NAMES = (*HUES, *ACHROMATIC)
ALIASES = {"grey": "gray", "violet": "purple", "magenta": "pink", "turquoise": "cyan"}
MIN_SATURATION = 0.25
MIN_VALUE = 0.12


def ring_strips(frame: np.ndarray, margin: float = 0.05) -> list[np.ndarray]:
    """The four strips of the outer ring of one `(H, W, ...)` array, `margin` of its height
    (top, bottom) and width (sides) wide: top, bottom, left, right.

    >>> [s.shape for s in ring_strips(np.zeros((20, 40)), 0.1)]
    [(2, 40), (2, 40), (16, 4), (16, 4)]
    """
    h, w = frame.shape[:2]
    dy, dx = max(int(round(h * margin)), 1), max(int(round(w * margin)), 1)
    return [frame[:dy], frame[h - dy :], frame[dy : h - dy, :dx], frame[dy : h - dy, w - dx :]]


def border_pixels(frames: np.ndarray, margin: float = 0.05) -> np.ndarray:
    """The pixels of a ring `margin` of the frame size wide along the edges.

    Args:
        frames: `(N, H, W, 3)` uint8 RGB.
        margin: ring width as a fraction of the height (top, bottom) and width (sides).

    Returns:
        `(M, 3)` uint8 RGB.

    >>> border_pixels(np.zeros((1, 20, 40, 3), np.uint8), 0.1).shape
    (288, 3)
    """
    strips = ring_strips(np.moveaxis(np.asarray(frames, dtype=np.uint8), 0, 2), margin)
    return np.concatenate([s.reshape(-1, 3) for s in strips])


def name_pixels(pixels: np.ndarray) -> np.ndarray:
    """A colour name index (into `COLOR_NAMES`) per RGB pixel.

    >>> [COLOR_NAMES[i] for i in name_pixels(np.array([[60, 170, 60], [230, 205, 40],
    ...                                                  [128, 128, 128], [5, 5, 5]]))]
    ['green', 'yellow', 'gray', 'black']
    """
    cv2 = require("cv2", "agent")
    hsv = cv2.cvtColor(np.asarray(pixels, np.uint8).reshape(-1, 1, 3), cv2.COLOR_RGB2HSV)
    hsv = hsv.reshape(-1, 3).astype(np.float64)
    hue, sat, val = hsv[:, 0] * 2.0, hsv[:, 1] / 255.0, hsv[:, 2] / 255.0
    centres = np.array(list(HUES.values()))
    gap = np.abs((hue[:, None] - centres[None, :] + 180.0) % 360.0 - 180.0)
    names = np.argmin(gap, axis=1)
    grey = len(HUES) + np.where(val > 0.8, 0, np.where(val > 0.25, 1, 2))
    chromatic = (sat >= MIN_SATURATION) & (val >= MIN_VALUE)
    return np.where(chromatic, names, grey)


def backdrop_share(frames: np.ndarray, color: str) -> float:
    """Share of the frames' outer ring whose colour is `color` (a name in `COLOR_NAMES`).

    >>> f = np.zeros((1, 40, 60, 3), np.uint8); f[...] = (50, 90, 210)
    >>> f[:, 10:30, 10:50] = (200, 40, 40)
    >>> backdrop_share(f, "blue"), backdrop_share(f, "red")
    (1.0, 0.0)
    """
    color = ALIASES.get(color.lower(), color.lower())
    if color not in COLOR_NAMES:
        raise ValueError(f"unknown colour {color!r}")
    names = name_pixels(border_pixels(frames))
    return float(np.mean(names == COLOR_NAMES.index(color))) if names.size else 0.0
