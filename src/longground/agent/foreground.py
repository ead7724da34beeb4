"""The one foreground localiser: what differs from the backdrop, and where.

A backdrop model gives each pixel its distance from the backdrop; everything after it is
shared by every step that looks for foreground:

- `excess`: the distance above each frame's noise floor (its median distance): where what
  differs lies, as weights (the centre of what moves, `graph.flow.centroid_track`, and how far
  it sweeps, `graph.flow.centre_sweep`);
- `split`: the foreground pixels, Otsu's cut of the log distances (on log distances a very
  different object does not hide a merely different one); None when every pixel is as far;
- `parts`: the foreground's regions: the mask opened by a square of `OPEN_SHARE` of the frame
  height (at least 3 pixels: specks of texture and edges go), its connected regions, each at
  least `PART_SHARE` of the largest's area, largest first;
- `box`: a region's bounding box.

The backdrop models: on any footage with a still camera, the per-pixel median of a shot's
frames (`median_distance`: an object that moves through is absent from most of them); in the
composited scene, the colours of the frame's outer ring (`composited.ring`: quantised colours
rare in the ring for the object boxes, Lab distances to the ring's colours for the objects'
looks).

`perception/reference.py` holds the same steps as plain loops; the tests hold one against the
other.
"""

from __future__ import annotations

import numpy as np

from ..errors import require

#: Side of the square the foreground is opened with, as a share of the frame height.
OPEN_SHARE = 0.02
#: A region is an object when its area is at least this share of the largest region's.
PART_SHARE = 0.25


def median_distance(gray: np.ndarray) -> np.ndarray:
    """`(T, h, w)` float32: each pixel's distance from the per-pixel median of `(T, h, w)`
    grey frames (the backdrop of a shot with a still camera).

    >>> g = np.zeros((3, 2, 2), np.uint8); g[1, 0, 0] = 90
    >>> median_distance(g)[:, 0, 0].tolist()
    [0.0, 90.0, 0.0]
    """
    g = np.asarray(gray, dtype=np.float32)
    return np.abs(g - np.median(g, axis=0))


def excess(distance: np.ndarray) -> np.ndarray:
    """`(..., h, w)` float: the distance above each frame's median distance (its noise
    floor), never negative.

    >>> excess(np.array([[[1.0, 1.0], [1.0, 9.0]]])).tolist()
    [[[0.0, 0.0], [0.0, 8.0]]]
    """
    d = np.asarray(distance)
    return np.clip(d - np.median(d, axis=(-2, -1), keepdims=True), 0.0, None)


def split(distance: np.ndarray, top: float | None = None) -> tuple[np.ndarray, float] | None:
    """The foreground of one frame's `(h, w)` distances: `(mask, cut)`, where the mask holds
    the pixels whose log distance, scaled to 0-255 by `top` (default: the frame's largest log
    distance), lies above Otsu's cut; None when every pixel is as far.

    >>> d = np.zeros((4, 4)); d[1:3, 1:3] = 50.0
    >>> mask, cut = split(d); int(mask.sum()), cut
    (4, 0.0)
    >>> split(np.ones((4, 4))) is None
    True
    """
    cv2 = require("cv2", "agent")
    logd = np.log1p(np.asarray(distance, np.float64))
    top = max(float(logd.max()), 1e-9) if top is None else top
    scaled = np.clip(logd / top * 255.0, 0, 255).astype(np.uint8)
    if scaled.max() == scaled.min():
        return None
    cut, mask = cv2.threshold(scaled, 0, 1, cv2.THRESH_BINARY + cv2.THRESH_OTSU)
    return mask.astype(bool), float(cut)


def open_px(height: int) -> int:
    """Side of the opening square for a frame `height` pixels high (odd, at least 3).

    >>> open_px(224), open_px(90)
    (5, 3)
    """
    return max(3, int(round(height * OPEN_SHARE))) | 1


def parts(
    mask: np.ndarray, height: int | None = None, share: float = PART_SHARE, opening: bool = True
) -> list[np.ndarray]:
    """The regions of a `(h, w)` foreground mask, largest first: opened by `open_px` of the
    frame `height` (default: the mask's; not opened with `opening` False: a mask already cut
    from blurred distances, as the composited looks' `composited.ring.lab_distances`),
    connected (8 neighbours), each at least `share` of the largest's area.

    >>> m = np.zeros((60, 80), bool); m[10:30, 5:35] = True; m[35:55, 45:70] = True
    >>> m[2:4, 40:42] = True  # a speck
    >>> [int(p.sum()) for p in parts(m)]
    [600, 500]
    """
    cv2 = require("cv2", "agent")
    mask = np.asarray(mask, bool)
    opened = mask.astype(np.uint8)
    if opening:
        k = open_px(mask.shape[0] if height is None else height)
        opened = cv2.morphologyEx(opened, cv2.MORPH_OPEN, np.ones((k, k), np.uint8))
    n, labels, stats, _ = cv2.connectedComponentsWithStats(opened, connectivity=8)
    areas = stats[1:, cv2.CC_STAT_AREA]
    if not len(areas):
        return []
    order = np.argsort(-areas, kind="stable")
    return [labels == i + 1 for i in order if areas[i] >= share * areas.max()]


def box(part: np.ndarray) -> tuple[int, int, int, int]:
    """`(top, bottom, left, right)` half-open pixel box of a non-empty `(h, w)` region.

    >>> m = np.zeros((5, 6), bool); m[1:3, 2:5] = True
    >>> box(m)
    (1, 3, 2, 5)
    """
    ys, xs = np.nonzero(part)
    return int(ys.min()), int(ys.max()) + 1, int(xs.min()), int(xs.max()) + 1
