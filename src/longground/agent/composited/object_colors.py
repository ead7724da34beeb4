"""Checking that a query's object is colourless: "the black-and-white cat", "a gray horse".

An image-text encoder built on object classes answers "the black-and-white cat" with every cat.
Whether an object is colourless is read from the object itself: each object standing out of the
backdrop (`reid.object_components`) gets a colour histogram of its core pixels
(`reid.hue_histogram`, bins under a uniform share left out), and a frame's evidence is the
largest share of achromatic pixels among its objects (a shot may show a second, coloured
object beside it).

Hue words ("the blue motorcycle") are not checked: measured on the tuning rendering, the
saturated pixels of the motorcycle its generator calls blue fall about a third nearest to blue
and two thirds nearest to purple (`colors.HUES`), so a hue check would reject the object it
should find.
"""

from __future__ import annotations

import numpy as np

from .reid import HUE_BINS, core_pixels, hue_histogram, object_components, significant


def achromatic_share(histogram: np.ndarray) -> float:
    """Share of a `reid.hue_histogram` in its achromatic bin, after `reid.significant`.

    >>> h = np.zeros(HUE_BINS + 1); h[0], h[3], h[-1] = 0.3, 0.05, 0.65
    >>> round(achromatic_share(h), 3)
    0.684
    """
    h = significant(histogram)
    total = float(h.sum())
    return float(h[HUE_BINS]) / total if total else 0.0


def colourless_share(frames: np.ndarray) -> float:
    """Mean over frames of the most colourless object's achromatic share (0 for a frame with
    no object standing out).

    Args:
        frames: `(N, H, W, 3)` uint8 RGB.

    >>> f = np.zeros((2, 60, 80, 3), np.uint8); f[...] = (50, 90, 210)
    >>> f[:, 15:45, 20:60] = (120, 120, 120); f[1, 15:45, 20:60] = (200, 120, 40)
    >>> colourless_share(f[:1]), colourless_share(f[1:]), colourless_share(f)
    (1.0, 0.0, 0.5)
    """
    shares = []
    for frame in np.asarray(frames, np.uint8):
        parts = [hue_histogram(core_pixels(frame, m)) for m in object_components(frame)]
        shares.append(max((achromatic_share(h) for h in parts), default=0.0))
    return float(np.mean(shares)) if shares else 0.0
