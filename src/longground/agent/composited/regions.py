"""The composited scene's regions: the left and right halves of frames, where the generator
places the two objects of a two-object shot (the features are kept by `agent.regions`).
"""

from __future__ import annotations

import numpy as np

REGIONS = ("left half", "right half")


def halves(frames: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The left and right halves of `(N, H, W, 3)` frames.

    >>> left, right = halves(np.zeros((2, 4, 6, 3), np.uint8))
    >>> left.shape, right.shape
    ((2, 4, 3, 3), (2, 4, 3, 3))
    """
    width = frames.shape[2]
    return frames[:, :, : width // 2], frames[:, :, width // 2 :]
