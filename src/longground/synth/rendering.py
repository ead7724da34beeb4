"""Rendering options for robustness benchmarks: how big objects are drawn and how a photo sits
on its backdrop.

The same seed renders the same script at any frame size, frame rate, object scale or
composition, so a method whose settings were chosen on one rendering can be scored on others.
Object scale changes the geometry (and so the ground truth); composition changes only pixels
inside an object's box, never the truth.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from functools import cache

import numpy as np

from ..errors import UserError
from .script import Appearance, Path
from .shots import Staging

#: Shot kinds whose photo objects `object_scale` shrinks or grows. Causal shots keep their
#: scale (the ball's path is drawn to touch the target), fillers and clips fill the frame.
SCALED_KINDS = frozenset({"still", "pan", "zoom_in", "zoom_out", "cross", "enter", "exit", "pair"})
#: Smallest and largest object scale (1 = the default sizes of docs/synthetic-benchmark.md).
SCALE_RANGE = (0.25, 1.25)
#: Smallest and largest frame side in pixels (`--size`).
SIZE_RANGE = (32, 3840)


def scale_staging(staging: Staging, kind: str, scale: float) -> Staging:
    """Photo objects of a shot drawn `scale` times their height, standing on the same ground.

    Each box keeps its centre x and its bottom edge; a crossing object still starts and ends
    off screen because the path's x keyframes do not change and smaller boxes leave sooner.

    >>> from .script import Instance
    >>> app = Appearance(Instance("cat"), Path.still(1.0, 0.5, 0.8), aspect=1.0)
    >>> out = scale_staging(Staging((app,)), "still", 0.5)
    >>> out.appearances[0].path.heights, out.appearances[0].path.ys
    ((0.4,), (0.7,))
    """
    if scale == 1.0 or kind not in SCALED_KINDS:
        return staging
    apps = tuple(
        _scaled(a, scale) if a.instance.kind == "photo" else a for a in staging.appearances
    )
    return replace(staging, appearances=apps)


def _scaled(app: Appearance, scale: float) -> Appearance:
    p = app.path
    heights = tuple(h * scale for h in p.heights)
    ys = tuple(y + h / 2 - h * scale / 2 for y, h in zip(p.ys, p.heights))
    return replace(app, path=Path(p.times_s, p.xs, ys, heights, p.angles_deg))


def _opaque(rgba: np.ndarray) -> np.ndarray:
    return rgba


def _feathered(rgba: np.ndarray) -> np.ndarray:
    """The photo inside an ellipse whose edge fades out over a fifth of the box, so the
    backdrop shows in the corners and around the object (a cut-out rather than a print)."""
    h, w = rgba.shape[:2]
    mask = feather_mask(h, w)
    out = rgba.copy()
    out[..., 3] = (rgba[..., 3].astype(np.float32) * mask + 0.5).astype(np.uint8)
    return out


@cache
def feather_mask(height: int, width: int) -> np.ndarray:
    """`(height, width)` float32 in [0, 1]: 1 inside an ellipse, 0 at the box corners.

    >>> m = feather_mask(20, 30)
    >>> float(m[10, 15]), float(m[0, 0])
    (1.0, 0.0)
    """
    ys = (np.arange(height, dtype=np.float32) + 0.5) / height * 2 - 1
    xs = (np.arange(width, dtype=np.float32) + 0.5) / width * 2 - 1
    r = np.sqrt(ys[:, None] ** 2 + xs[None, :] ** 2)
    return np.clip((1.0 - r) / 0.2 + 0.5, 0.0, 1.0).astype(np.float32)


#: How a photo is laid on the backdrop: name -> function of its RGBA sprite `(h, w, 4)`.
COMPOSITIONS: dict[str, Callable[[np.ndarray], np.ndarray]] = {
    "opaque": _opaque,
    "feathered": _feathered,
}


def check_composition(name: str) -> str:
    """Refuse an unknown composition, naming the known ones."""
    if name not in COMPOSITIONS:
        raise UserError(f"--composition {name!r}: use one of {', '.join(COMPOSITIONS)}")
    return name


def check_scale(scale: float) -> float:
    """Refuse an object scale outside SCALE_RANGE (and nan)."""
    lo, hi = SCALE_RANGE
    if not lo <= scale <= hi:
        raise UserError(f"--object-scale {scale:g} is out of range: use {lo} to {hi}")
    return float(scale)


def parse_size(text: str) -> tuple[int, int]:
    """`"320x180"` -> `(320, 180)`; both sides even (H.264 with yuv420p needs it).

    >>> parse_size("320x180")
    (320, 180)
    """
    parts = text.lower().split("x")
    try:
        width, height = (int(p) for p in parts)
    except ValueError:
        raise UserError(f"--size {text!r}: give WIDTHxHEIGHT in pixels, e.g. 320x180") from None
    lo, hi = SIZE_RANGE
    if not (lo <= width <= hi and lo <= height <= hi) or width % 2 or height % 2:
        raise UserError(f"--size {text!r}: each side must be even and in [{lo}, {hi}] pixels")
    return width, height
