"""The composited scene's backdrop model: the colours of the frame's outer ring.

In composited footage the frame's outer ring shows the backdrop (`colors.border_pixels`), so
what the ring does not show is the object: the *boundary prior* of salient-object detection.
The ring is read two ways, and the general localiser (`agent.foreground`) does the rest:

- `ring_foreground` (object boxes, `boxes`; something standing, `standing`): every pixel's
  colour is quantised to `LEVELS` levels per channel; a colour of which the ring holds less
  than `RARE` of its pixels is foreground, cut into objects by `foreground.parts`. No constant
  was fitted: the quantisation and the rarity are the coarsest that keep tinted textures in
  one colour family.
- `lab_distances` (objects' looks, `reid`): the Mahalanobis distance of each pixel's Lab
  colour, lightly blurred (`blur_px`) and as it is, to the ring's colours; the foreground is
  Otsu's cut of the blurred distances (`foreground.split`).

These are the scene's two models from before they shared the localiser, and give the same
answers; one model for both changes them (the quantised ring for the looks lost an instance
of "the motorcycle that appeared second" on a generated rendering).
"""

from __future__ import annotations

import numpy as np

from ...errors import require
from .colors import border_pixels

LEVELS = 8
RARE = 0.002


def blur_px(frame: np.ndarray) -> int:
    """Odd kernel size of about a thirtieth of the frame's short side: how far an object's
    rim (its edge blended with the backdrop by scaling or feathering) reaches inwards.

    >>> blur_px(np.zeros((224, 398, 3)))
    7
    """
    return max(int(min(frame.shape[:2]) / 60) * 2 + 1, 3)


def colour_codes(pixels: np.ndarray) -> np.ndarray:
    """Each pixel's colour quantised to `LEVELS` levels per channel, as one code per pixel.

    Args:
        pixels: `(..., 3)` uint8 RGB.

    Returns:
        `(...)` int codes in `[0, LEVELS**3)`.

    >>> colour_codes(np.array([[0, 0, 0], [255, 255, 255]], np.uint8)).tolist()
    [0, 511]
    """
    q = np.asarray(pixels).astype(np.int32) * LEVELS // 256
    return (q[..., 0] * LEVELS + q[..., 1]) * LEVELS + q[..., 2]


def ring_shares(frames: np.ndarray) -> np.ndarray:
    """`(LEVELS**3,)` share of each quantised colour (`colour_codes`) among the pixels of the
    frames' outer ring (`colors.border_pixels`)."""
    ring = colour_codes(border_pixels(frames))
    return np.bincount(ring.reshape(-1), minlength=LEVELS**3) / max(ring.size, 1)


def ring_foreground(frame: np.ndarray) -> np.ndarray:
    """`(H, W)` bool: the pixels of one `(H, W, 3)` uint8 RGB frame whose quantised colour is
    rare in its outer ring.

    >>> f = np.zeros((40, 60, 3), np.uint8); f[10:30, 20:40] = (200, 40, 40)
    >>> int(ring_foreground(f).sum())
    400
    """
    f = np.asarray(frame, np.uint8)
    return ring_shares(f[None])[colour_codes(f)] < RARE


def _ring_distance(lab: np.ndarray, ring: np.ndarray) -> np.ndarray:
    """`(H, W)` Mahalanobis distance of Lab pixels to the ring's `(M, 3)` Lab colours."""
    cov = np.cov(ring, rowvar=False) + np.eye(3) * 4.0  # a floor of 2 Lab units per axis
    diff = lab.reshape(-1, 3) - ring.mean(axis=0)
    dist = np.sqrt(np.einsum("ij,jk,ik->i", diff, np.linalg.inv(cov), diff))
    return dist.reshape(lab.shape[:2])


def lab_distances(frame: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """`(H, W)` distances of an `(H, W, 3)` uint8 RGB frame's pixels to the colours of its
    outer ring (the ring read on the blurred frame): of the frame blurred by `blur_px` (its
    textures smoothed), and of its own pixels.

    >>> f = np.zeros((40, 60, 3), np.uint8); f[10:30, 20:40] = (200, 40, 40)
    >>> blurred, own = lab_distances(f); bool(own[20, 30] > 10 * own[2, 2])
    True
    """
    cv2 = require("cv2", "agent")
    blur = blur_px(frame)
    frame = np.ascontiguousarray(frame)
    lab = cv2.cvtColor(cv2.GaussianBlur(frame, (blur, blur), 0), cv2.COLOR_RGB2LAB)
    ring = border_pixels(lab[None]).astype(np.float64)
    blurred = _ring_distance(lab.astype(np.float64), ring)
    own = _ring_distance(cv2.cvtColor(frame, cv2.COLOR_RGB2LAB).astype(np.float64), ring)
    return blurred, own
