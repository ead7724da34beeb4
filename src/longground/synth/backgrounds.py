"""Painting the backdrop of a shot: tinted skimage textures, colour gradients, filler photos."""

from __future__ import annotations

from functools import lru_cache

import numpy as np

from ..errors import require
from .assets import photo, texture
from .catalog import COLORS
from .script import Background

#: World units (frame heights) covered by one tile of a texture.
TILE_UNITS = 0.8


def _resize(array: np.ndarray, width: int, height: int) -> np.ndarray:
    image_mod = require("PIL.Image", "video")
    image = image_mod.fromarray(array)
    return np.asarray(image.resize((width, height), image_mod.Resampling.BILINEAR))


@lru_cache(maxsize=32)
def _tile(pattern: str, tile_px: int) -> np.ndarray:
    return _resize(texture(pattern), tile_px, tile_px)


def _tinted(gray: np.ndarray, color: str) -> np.ndarray:
    """Keep the texture's light and shade, take the hue of `color`."""
    rgb = np.asarray(COLORS[color], np.float32)
    shade = 0.45 + 0.75 * gray.astype(np.float32)[..., None] / 255.0
    return np.clip(shade * rgb, 0, 255).astype(np.uint8)


def _texture(pattern: str, color: str, width: int, height: int, px_per_unit: float, origin):
    tile_px = max(8, round(TILE_UNITS * px_per_unit))
    tile = _tile(pattern, tile_px)
    # Offset the tiling by the canvas origin so that textures stay put in world coordinates.
    off_x = int(round(origin[0] * px_per_unit)) % tile_px
    off_y = int(round(origin[1] * px_per_unit)) % tile_px
    reps = ((height + off_y) // tile_px + 2, (width + off_x) // tile_px + 2)
    tiled = np.tile(tile, reps)[off_y : off_y + height, off_x : off_x + width]
    return _tinted(tiled, color)


def _gradient(color: str, width: int, height: int) -> np.ndarray:
    rgb = np.asarray(COLORS[color], np.float32)
    ramp = np.linspace(1.15, 0.55, height, dtype=np.float32)[:, None, None]
    across = np.linspace(0.95, 1.05, width, dtype=np.float32)[None, :, None]
    return np.clip(ramp * across * rgb, 0, 255).astype(np.uint8)


def _photo(name: str, width: int, height: int) -> np.ndarray:
    """The photo scaled to cover the canvas, centre-cropped."""
    rgb = photo(name)[..., :3]
    scale = max(width / rgb.shape[1], height / rgb.shape[0])
    w, h = max(width, round(rgb.shape[1] * scale)), max(height, round(rgb.shape[0] * scale))
    big = _resize(np.ascontiguousarray(rgb), w, h)
    x0, y0 = (w - width) // 2, (h - height) // 2
    return big[y0 : y0 + height, x0 : x0 + width]


def paint(
    background: Background,
    width: int,
    height: int,
    px_per_unit: float,
    origin: tuple[float, float] = (0.0, 0.0),
) -> np.ndarray:
    """A `(height, width, 3)` uint8 canvas for `background`.

    Args:
        background: what to paint.
        width, height: canvas size in pixels.
        px_per_unit: pixels per world unit (frame height at zoom 1 times the zoom).
        origin: world coordinates of the canvas's top-left corner.

    >>> paint(Background("gradient", "green"), 8, 4, 4.0).shape
    (4, 8, 3)
    """
    if background.color is None:
        return _photo(background.pattern, width, height)
    if background.pattern == "gradient":
        return _gradient(background.color, width, height)
    return _texture(background.pattern, background.color, width, height, px_per_unit, origin)
