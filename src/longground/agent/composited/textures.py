"""Telling a backdrop of straight lines (a brick wall) from other backdrops.

An object-class encoder has no word for a wall behind an object (label-bridge scores "a brick
wall" on plain brick backdrops no higher than on grass or gravel), and a brick wall is not a
colour (`colors.py`). What sets it apart is its mortar: long straight lines in one direction.
So, as for colours, the frame's outer ring is read as the backdrop, and in it:

- the backdrop must be *textured*: the mean gradient magnitude (Sobel, gray levels, frames at
  the agent's decoding size) reaches `MIN_TEXTURE`; a smooth colour ramp does not;
- its gradients must be *coherent*: the orientation coherence of the ring's structure tensor
  (summed over the four strips), (l1 - l2) / (l1 + l2) of its eigenvalues, is 1 for parallel
  lines and near 0 for grass, gravel or noise. A logistic of width `COHERENCE_WIDTH` around
  `COHERENCE_MID` turns it into a probability.

The constants were chosen on the tuning rendering (480x270, 5 fps, 2 videos; frames decoded
at a short side of 224): brick rings have coherence 0.39-0.57 (10th percentile 0.45),
grass and gravel 0.0-0.42 (90th percentile 0.23), and the gradient backdrops' mean
magnitude is 1.7-6.3 against 16.9-64 for the textures (docs/notes/agent-log.md, "Backdrop").
The check says "straight lines behind the object": tiles or planks would pass it as well.
"""

from __future__ import annotations

import numpy as np

from ...errors import require
from .colors import ring_strips

MIN_TEXTURE = 10.0
COHERENCE_MID = 0.34
COHERENCE_WIDTH = 0.04
RING_MARGIN = 0.05


def ring_texture(frame: np.ndarray) -> tuple[float, float]:
    """(orientation coherence in [0, 1], mean gradient magnitude) of a frame's outer ring.

    Args:
        frame: `(H, W, 3)` uint8 RGB.

    >>> stripes = np.zeros((60, 80, 3), np.uint8); stripes[:, ::4] = 200
    >>> coherence, magnitude = ring_texture(stripes)
    >>> round(coherence, 2), magnitude > 10
    (1.0, True)
    """
    cv2 = require("cv2", "agent")
    gray = cv2.cvtColor(np.ascontiguousarray(frame, np.uint8), cv2.COLOR_RGB2GRAY)
    gray = gray.astype(np.float32)
    gx = cv2.Sobel(gray, cv2.CV_32F, 1, 0, ksize=3)
    gy = cv2.Sobel(gray, cv2.CV_32F, 0, 1, ksize=3)
    tensor = np.zeros(3)  # sums of gx^2, gy^2, gx*gy over the ring
    magnitudes = []
    for sx, sy in zip(ring_strips(gx, RING_MARGIN), ring_strips(gy, RING_MARGIN), strict=True):
        sx, sy = sx[1:-1, 1:-1], sy[1:-1, 1:-1]  # Sobel at the frame edge reads the padding
        tensor += [np.sum(sx * sx), np.sum(sy * sy), np.sum(sx * sy)]
        magnitudes.append(np.hypot(sx, sy).ravel())
    xx, yy, xy = (float(v) for v in tensor)
    coherence = np.sqrt((xx - yy) ** 2 + 4.0 * xy**2) / (xx + yy + 1e-9)
    magnitude = np.concatenate(magnitudes)
    return float(coherence), float(magnitude.mean()) if magnitude.size else 0.0


def lined_share(frames: np.ndarray) -> float:
    """Mean probability over `(N, H, W, 3)` frames that their backdrop is a textured pattern
    of straight lines (a brick wall).

    >>> bricks = np.full((1, 60, 80, 3), 90, np.uint8); bricks[:, :, ::6] = 230
    >>> smooth = np.tile(np.linspace(80, 120, 60).astype(np.uint8)[None, :, None, None],
    ...                  (1, 1, 80, 3))
    >>> round(lined_share(bricks), 2), round(lined_share(smooth), 2)
    (1.0, 0.0)
    """
    probabilities = []
    for frame in np.asarray(frames, np.uint8):
        coherence, magnitude = ring_texture(frame)
        p = 1.0 / (1.0 + np.exp(-(coherence - COHERENCE_MID) / COHERENCE_WIDTH))
        probabilities.append(p if magnitude >= MIN_TEXTURE else 0.0)
    return float(np.mean(probabilities)) if probabilities else 0.0
