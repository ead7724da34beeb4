"""Whether something stays standing in a shot while something else moves, read with the
boundary prior of the composited scene: what the frame's outer ring does not show is an object
(`ring.ring_foreground`).
"""

from __future__ import annotations

import numpy as np

from ..foreground import parts
from .boxes import MIN_AREA
from .ring import ring_foreground


def stays_standing(frame: np.ndarray, moved: np.ndarray) -> bool:
    """Something stays standing: the foreground of `frame` (`ring.ring_foreground`) less the
    pixels in `moved` holds a region (`agent.foreground.parts`) of at least
    `boxes.MIN_AREA` of half the frame.

    Args:
        frame: `(h, w, 3)` RGB frame of the shot.
        moved: `(h, w)` bool, pixels that change at some point of the shot.

    >>> f = np.full((40, 60, 3), 30, np.uint8); f[10:30, 35:50] = (200, 40, 40)
    >>> m = np.zeros((40, 60), bool)
    >>> stays_standing(f, m), stays_standing(f, m | (f[..., 0] > 100))
    (True, False)
    """
    frame = np.asarray(frame, np.uint8)
    still = parts(ring_foreground(frame) & ~moved, frame.shape[0])
    return bool(still) and int(still[0].sum()) >= MIN_AREA * moved.size / 2
