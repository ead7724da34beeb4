"""The composited scene's backdrop model: the colours of the frame's outer ring.

In composited footage the frame's outer ring shows the backdrop (`colors.border_pixels`), so
what the ring does not show is the object: the *boundary prior* of salient-object detection.
Every pixel's colour is quantised to `LEVELS` levels per channel; a colour of which the ring
holds less than `RARE` of its pixels is foreground (`ring_foreground`). The general localiser
(`agent.foreground.parts`) cuts the foreground into objects.

No constant was fitted: the quantisation and the rarity are the coarsest that keep tinted
textures in one colour family. Measured against the other ring model the scene had (the
Mahalanobis distance of each pixel's lightly blurred Lab colour to the ring's colours, cut by
Otsu's threshold), on two renderings of 49 and 48 queries: that one scored F1@0.5 0.929 and
0.842, Rej-F1 0.908 and 0.836; this one 0.929 and 0.846, 0.908 and 0.864 (docs/notes/
agent-rounds.md, "One foreground localiser").
"""

from __future__ import annotations

import numpy as np

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
