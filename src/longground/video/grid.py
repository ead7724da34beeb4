"""Mosaics: many frames on one image, each stamped with its time, for Video-LLM prompts."""

from __future__ import annotations

import math
from functools import lru_cache

import numpy as np

from ..errors import require
from ..timecode import format_time


def mosaic(
    frames: np.ndarray,
    pts_s: np.ndarray,
    rows: int,
    cols: int,
    label: bool = True,
) -> np.ndarray:
    """Lay frames out row by row on an R x C grid, each tile stamped `HH:MM:SS`.

    Args:
        frames: `(N, H, W, 3)` uint8 RGB, N <= rows * cols; missing tiles stay black.
        pts_s: `(N,)` seconds, the time written on each tile.
        rows, cols: grid shape.
        label: draw the time stamps.

    Returns:
        `(rows * H, cols * W, 3)` uint8; frame `i` fills tile `(i // cols, i % cols)`.

    >>> tiles = np.zeros((5, 8, 10, 3), np.uint8)
    >>> mosaic(tiles, np.arange(5.0), rows=2, cols=3, label=False).shape
    (16, 30, 3)
    """
    frames = np.asarray(frames)
    n, height, width = frames.shape[:3]
    if n > rows * cols:
        raise ValueError(f"{n} frames do not fit a {rows}x{cols} grid")
    if len(pts_s) != n:
        raise ValueError(f"{n} frames but {len(pts_s)} times")
    grid = np.zeros((rows, cols, height, width, 3), np.uint8)
    for i, frame in enumerate(frames):
        grid[i // cols, i % cols] = _stamp(frame, float(pts_s[i])) if label else frame
    return grid.transpose(0, 2, 1, 3, 4).reshape(rows * height, cols * width, 3)


def _stamp(frame: np.ndarray, time_s: float) -> np.ndarray:
    """The frame with its time written in the top-left corner, white on a dark box."""
    image_mod = require("PIL.Image", "video")
    draw_mod = require("PIL.ImageDraw", "video")
    image = image_mod.fromarray(frame)
    draw = draw_mod.Draw(image)
    text = format_time(math.floor(time_s), decimals=0)
    font = _font(max(8, frame.shape[0] // 9))
    left, top, right, bottom = draw.textbbox((0, 0), text, font=font)
    pad = max(1, (bottom - top) // 4)
    draw.rectangle((0, 0, right - left + 2 * pad, bottom - top + 2 * pad), fill=(0, 0, 0))
    draw.text((pad - left, pad - top), text, fill=(255, 255, 255), font=font)
    return np.asarray(image)


@lru_cache(maxsize=8)
def _font(size: int):
    font_mod = require("PIL.ImageFont", "video")
    return font_mod.load_default(size=size)
