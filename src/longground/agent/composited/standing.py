"""Whether something stays standing in a shot while something else moves, read with the
boundary prior of the composited scene: what the frame's outer ring does not show is an object
(`boxes.foreground`).
"""

from __future__ import annotations

import numpy as np

from ...errors import require
from .boxes import MIN_AREA, foreground


def stays_standing(frame: np.ndarray, moved: np.ndarray) -> bool:
    """Something stays standing: the foreground of `frame` (`boxes.foreground`) less the
    pixels in `moved` holds an opened part of at least `boxes.MIN_AREA` of half the frame.

    Args:
        frame: `(h, w, 3)` RGB frame of the shot.
        moved: `(h, w)` bool, pixels that change at some point of the shot.

    >>> f = np.full((40, 60, 3), 30, np.uint8); f[10:30, 35:50] = (200, 40, 40)
    >>> m = np.zeros((40, 60), bool)
    >>> stays_standing(f, m), stays_standing(f, m | (f[..., 0] > 100))
    (True, False)
    """
    cv2 = require("cv2", "agent")
    frame = np.asarray(frame, np.uint8)
    still = (foreground(frame) & ~moved).astype(np.uint8)
    k = max(3, int(round(frame.shape[0] * 0.02))) | 1
    still = cv2.morphologyEx(still, cv2.MORPH_OPEN, np.ones((k, k), np.uint8))
    n, _, stats, _ = cv2.connectedComponentsWithStats(still, connectivity=8)
    largest = int(stats[1:, cv2.CC_STAT_AREA].max()) if n > 1 else 0
    return largest >= MIN_AREA * still.size / 2
