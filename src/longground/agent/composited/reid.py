"""Telling instances of one object class apart: an object-centred look, sensitive to
mirroring and colour.

Whole-frame features do not separate a photo from its mirror image or its grayscale copy: the
backdrop fills most of the frame, and an object classifier is trained to ignore orientation
and, largely, colour. This module looks at the object itself:

1. Localise: the backdrop is what fills the frame's outer ring; pixels whose (lightly
   blurred) Lab colour is far from the ring's colour distribution (`ring.lab_distances`, above
   Otsu's threshold of the frame's own log distances, `agent.foreground.split`) are
   foreground, and its connected regions of at least a quarter of the largest's area
   (`agent.foreground.parts`, not opened) are the frame's objects. The object is the largest,
   or the largest centred in a given half of the frame.
2. Describe: the object's box as a HOG vector of the gray crop at a fixed size, computed for
   the crop and for its mirror image, and the colour of its core pixels (the region eroded by
   the blur kernel, less the pixels whose own colour is not beyond the frame's cut: the
   backdrop seen through narrow gaps) as a histogram: 12 hue bins of 30 degrees (saturated
   pixels) and one achromatic bin; bins under a uniform share (1/13) are left out of
   comparisons.
3. Compare relative to the other looks the object could have, without a threshold: two
   instances face the same way when their closest pair of frame shapes is at least as close as
   the closest pair with one side mirrored, and have the same colouring when each's colour
   histogram overlaps the other's at least as much as the other's grayscale copy and each of
   its hue rotations by 60 to 300 degrees. A hue that either instance's backdrop shows (a
   significant bin of its frames' outer ring) is left out of both histograms where it is a
   minority (under half) of both objects: an object blended into its backdrop at the edges
   (feathered photos on small frames) takes about a tenth of the backdrop's hue into its
   core, which told a gray cat on red from the same cat on green.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ...errors import require
from ..foreground import box, parts, split
from .colors import MIN_SATURATION, MIN_VALUE, border_pixels
from .ring import blur_px, lab_distances

HUE_BINS = 12
CROP_PX = 64
_HOG_CELL_PX = 16


@dataclass(frozen=True, eq=False)
class Look:
    """What one frame shows of its main object.

    Attributes:
        box: `(y0, y1, x0, x1)` pixel box of the object in the frame (half-open).
        shape: `(D,)` unit HOG vector of the crop.
        mirrored: `(D,)` unit HOG vector of the crop's mirror image.
        colour: `(HUE_BINS + 1,)` share of foreground pixels per hue bin, the last bin
            achromatic; sums to 1.
        backdrop: `(HUE_BINS,)` bool, the hues the frame's outer ring shows (significant
            bins), or None (none known).
    """

    box: tuple[int, int, int, int]
    shape: np.ndarray
    mirrored: np.ndarray
    colour: np.ndarray
    backdrop: np.ndarray | None = None


def object_components(frame: np.ndarray) -> list[np.ndarray]:
    """The frame's objects: the regions of its foreground against the outer ring
    (`ring.ring_foreground`, `foreground.parts`), largest first.

    Args:
        frame: `(H, W, 3)` uint8 RGB.

    Returns:
        `(H, W)` bool masks; none when nothing stands out of the backdrop.

    >>> f = np.zeros((60, 80, 3), np.uint8); f[...] = (50, 90, 210)
    >>> f[10:30, 5:35] = 250; f[35:55, 45:70] = 20; f[2:4, 40:42] = 120
    >>> parts = object_components(f)
    >>> len(parts), bool(parts[0][20, 20]), bool(parts[1][45, 57])
    (2, True, True)
    """
    return object_parts(frame)[0]


def object_parts(frame: np.ndarray) -> tuple[list[np.ndarray], np.ndarray | None]:
    """`object_components` and the `(H, W)` bool pixels whose own (unblurred) colour lies
    beyond the frame's cut (None when nothing stands out)."""
    blurred, own = lab_distances(frame)
    top = max(float(np.log1p(blurred).max()), 1e-9)
    found = split(blurred, top)
    if found is None:
        return [], None
    fg, cut = found
    return parts(fg, opening=False), np.log1p(own) / top * 255.0 > cut


def object_mask(frame: np.ndarray) -> np.ndarray:
    """The frame's main object: its largest region unlike the outer ring (`object_components`).

    Args:
        frame: `(H, W, 3)` uint8 RGB.

    Returns:
        `(H, W)` bool; all False when nothing stands out of the backdrop.

    >>> f = np.zeros((60, 80, 3), np.uint8); f[...] = (50, 90, 210); f[20:40, 30:60] = 250
    >>> m = object_mask(f); int(m.sum()), bool(m[30, 45]), bool(m[5, 5])
    (700, True, False)
    """
    parts = object_components(frame)
    return parts[0] if parts else np.zeros(frame.shape[:2], bool)


def core_pixels(frame: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """`(M, 3)` RGB pixels of a region without its rim: the blur in `object_components`
    spread the region's difference outwards by about its kernel (`ring.blur_px`), so the
    region is eroded by that kernel before its colour is read (the whole region when nothing
    is left)."""
    cv2 = require("cv2", "agent")
    k = blur_px(frame)
    core = cv2.erode(mask.astype(np.uint8), np.ones((k, k), np.uint8)).astype(bool)
    return frame[core if core.any() else mask]


def _hue_bins(pixels: np.ndarray) -> np.ndarray:
    """Hue bin per RGB pixel: `0..HUE_BINS-1` for saturated pixels, `HUE_BINS` otherwise."""
    cv2 = require("cv2", "agent")
    hsv = cv2.cvtColor(np.asarray(pixels, np.uint8).reshape(-1, 1, 3), cv2.COLOR_RGB2HSV)
    hsv = hsv.reshape(-1, 3).astype(np.float64)
    hue, sat, val = hsv[:, 0] * 2.0, hsv[:, 1] / 255.0, hsv[:, 2] / 255.0
    chromatic = (sat >= MIN_SATURATION) & (val >= MIN_VALUE)
    return np.where(chromatic, ((hue + 15.0) // 30.0).astype(int) % HUE_BINS, HUE_BINS)


def hue_histogram(pixels: np.ndarray) -> np.ndarray:
    """Share of RGB pixels per 30-degree hue bin (saturated pixels) and achromatic (last bin).

    Args:
        pixels: `(M, 3)` uint8 RGB.

    Returns:
        `(HUE_BINS + 1,)` float64 summing to 1 (all zeros for no pixels).

    >>> hue_histogram(np.array([[200, 30, 30], [128, 128, 128]], np.uint8))[[0, -1]].tolist()
    [0.5, 0.5]
    """
    if len(pixels) == 0:
        return np.zeros(HUE_BINS + 1)
    return np.bincount(_hue_bins(pixels), minlength=HUE_BINS + 1) / len(pixels)


def _hog(gray: np.ndarray) -> np.ndarray:
    cv2 = require("cv2", "agent")
    cell = (_HOG_CELL_PX, _HOG_CELL_PX)
    hog = cv2.HOGDescriptor((CROP_PX, CROP_PX), (2 * cell[0], 2 * cell[1]), cell, cell, 9)
    v = hog.compute(np.ascontiguousarray(gray)).reshape(-1).astype(np.float64)
    v = v - v.mean()
    return v / (np.linalg.norm(v) or 1.0)


def describe(frame: np.ndarray, side: int | None = None) -> Look | None:
    """The look of a frame's main object, or None when nothing stands out of the backdrop.

    Args:
        frame: `(H, W, 3)` uint8 RGB.
        side: 0 (left) or 1 (right): the object is the largest region centred in that half
            of the frame, when there is one (the largest region otherwise).

    >>> f = np.zeros((60, 80, 3), np.uint8); f[...] = (50, 90, 210); f[20:40, 30:60] = 250
    >>> look = describe(f); look.box, float(look.colour[-1])
    ((19, 41, 29, 61), 1.0)
    """
    found, beyond = object_parts(frame)
    return look_of(frame, found, side, beyond)


def look_of(
    frame: np.ndarray,
    parts: list[np.ndarray],
    side: int | None = None,
    beyond: np.ndarray | None = None,
) -> Look | None:
    """`describe` with the frame's `object_parts` already found: its objects and the pixels
    beyond its cut (None: the colour is read on the whole core of the mask)."""
    cv2 = require("cv2", "agent")
    if not parts:
        return None
    mask = parts[0]
    if side is not None:
        half = frame.shape[1] / 2.0
        centred = [m for m in parts if (np.nonzero(m)[1].mean() >= half) == bool(side)]
        mask = centred[0] if centred else mask
    top, bottom, left, right = where = box(mask)
    crop = np.ascontiguousarray(frame[top:bottom, left:right])
    gray = cv2.resize(cv2.cvtColor(crop, cv2.COLOR_RGB2GRAY), (CROP_PX, CROP_PX),
                      interpolation=cv2.INTER_AREA)  # fmt: skip
    colour = core_colour(frame, mask, beyond)
    return Look(where, _hog(gray), _hog(gray[:, ::-1]), colour, backdrop_hues(frame))


def core_colour(
    frame: np.ndarray, mask: np.ndarray, beyond: np.ndarray | None = None
) -> np.ndarray:
    """The colour histogram of a region's core pixels (`core_pixels`), read only where the
    pixels' own colour lies beyond the frame's cut (`beyond`) when any does."""
    own = mask if beyond is None or not (mask & beyond).any() else mask & beyond
    return hue_histogram(core_pixels(frame, own))


def backdrop_hues(frame: np.ndarray) -> np.ndarray:
    """`(HUE_BINS,)` bool: the hues the frame's outer ring shows (its significant bins)."""
    return significant(hue_histogram(border_pixels(frame[None])))[:HUE_BINS] > 0


def same_orientation(a: list[Look], b: list[Look]) -> bool:
    """Whether two instances' objects face the same way: the closest pair of their frames'
    shapes is at least as close as the closest pair with one side mirrored."""
    direct = max(float(x.shape @ y.shape) for x in a for y in b)
    flipped = max(float(x.shape @ y.mirrored) for x in a for y in b)
    return direct >= flipped


def _overlap(p: np.ndarray, q: np.ndarray) -> float:
    return float(np.minimum(p, q).sum())


def _recoloured(q: np.ndarray) -> list[np.ndarray]:
    """`q`'s grayscale copy and its hue rotations by at least two bins (60 degrees)."""
    gray = np.zeros_like(q)
    gray[-1] = q.sum()
    hues, rest = q[:HUE_BINS], q[HUE_BINS:]
    turned = [np.concatenate([np.roll(hues, k), rest]) for k in range(2, HUE_BINS - 1)]
    return [gray, *turned]


def same_colouring(p: np.ndarray, q: np.ndarray) -> bool:
    """Whether two colour histograms (`hue_histogram`) show the same colouring: each overlaps
    the other at least as much as the other's grayscale copy and hue rotations.

    >>> red = hue_histogram(np.array([[200, 30, 30]] * 3 + [[90, 90, 90]], np.uint8))
    >>> gray = hue_histogram(np.array([[80, 80, 80]] * 3 + [[90, 90, 90]], np.uint8))
    >>> blue = hue_histogram(np.array([[30, 30, 200]] * 3 + [[90, 90, 90]], np.uint8))
    >>> same_colouring(red, red), same_colouring(red, gray), same_colouring(red, blue)
    (True, False, False)
    """

    def one_way(x: np.ndarray, y: np.ndarray) -> bool:
        return _overlap(x, y) >= max(_overlap(x, r) for r in _recoloured(y))

    p, q = significant(p), significant(q)
    return one_way(p, q) and one_way(q, p)


def significant(h: np.ndarray) -> np.ndarray:
    """`h` without the bins under a uniform share (`1 / len(h)`): a few pixels of a hue at an
    object's edge are the backdrop showing through, not the object's colour."""
    return np.where(h >= 1.0 / len(h), h, 0.0)


def instance_colour(looks: list[Look]) -> np.ndarray:
    """Mean colour histogram of an instance's frames."""
    return np.mean([look.colour for look in looks], axis=0)


def without_backdrops(p: np.ndarray, q: np.ndarray, hues: np.ndarray) -> tuple[np.ndarray, ...]:
    """Two colour histograms less the backdrop `hues` (`(HUE_BINS,)` bool) that are under half
    of both, each renormalised (kept as is when nothing would be left).

    >>> gray_on_red, gray_on_green = np.r_[0.1, np.zeros(11), 0.9], np.r_[np.zeros(12), 1.0]
    >>> red = np.r_[True, np.zeros(11, bool)]
    >>> [h[[0, -1]].tolist() for h in without_backdrops(gray_on_red, gray_on_green, red)]
    [[0.0, 1.0], [0.0, 1.0]]
    >>> red_cat = np.r_[0.8, np.zeros(11), 0.2]  # the backdrop's hue is most of it: kept
    >>> without_backdrops(gray_on_red, red_cat, red)[0][[0, -1]].tolist()
    [0.1, 0.9]
    """
    drop = np.r_[hues & (p[:HUE_BINS] < 0.5) & (q[:HUE_BINS] < 0.5), False]

    def less(h: np.ndarray) -> np.ndarray:
        out = np.where(drop, 0.0, h)
        return out / out.sum() if out.sum() > 0 else h

    return less(p), less(q)


def _backdrop_hues(looks: list[Look]) -> np.ndarray:
    hues = [x.backdrop for x in looks if x.backdrop is not None]
    return np.any(hues, axis=0) if hues else np.zeros(HUE_BINS, bool)


def same_object(a: list[Look], b: list[Look]) -> bool:
    """Whether two instances (their frames' looks) may show the same identity: the same
    orientation and the same colouring, the hues of either's backdrop aside where they are a
    minority of both (`without_backdrops`). Instances with no look are not told apart."""
    if not a or not b:
        return True
    hues = _backdrop_hues(a) | _backdrop_hues(b)
    colours = without_backdrops(instance_colour(a), instance_colour(b), hues)
    return same_orientation(a, b) and same_colouring(*colours)
