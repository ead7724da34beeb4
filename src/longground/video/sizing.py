"""Output frame sizes: shorter side scaled to a target, aspect kept, even numbers."""

from __future__ import annotations

from fractions import Fraction

import numpy as np


def _even(value: float) -> int:
    return max(2, 2 * round(value / 2))


def display_size(width: int, height: int, sar: Fraction | None, rotation: int) -> tuple[int, int]:
    """How large the picture is on screen: pixel aspect ratio applied, then rotation.

    >>> display_size(720, 480, Fraction(32, 27), 0)
    (853, 480)
    >>> display_size(1920, 1080, None, -90)
    (1080, 1920)
    """
    if sar and sar > 0 and sar != 1:
        width = round(width * sar)
    return (height, width) if rotation % 180 else (width, height)


def scaled_size(width: int, height: int, short_side: int | None) -> tuple[int, int]:
    """`(width, height)` with the shorter side at `short_side`, both even (None: unchanged).

    >>> scaled_size(640, 360, 224)
    (398, 224)
    >>> scaled_size(360, 640, 224)
    (224, 398)
    >>> scaled_size(641, 361, None)
    (641, 361)
    """
    if short_side is None:
        return width, height
    scale = short_side / min(width, height)
    return _even(width * scale), _even(height * scale)


def decode_size(display_wh: tuple[int, int], rotation: int) -> tuple[int, int]:
    """The size to scale the coded picture to, so that after rotation it is `display_wh`.

    >>> decode_size((224, 398), 90)
    (398, 224)
    """
    width, height = display_wh
    return (height, width) if rotation % 180 else (width, height)


def rotate(frame: np.ndarray, rotation: int) -> np.ndarray:
    """Turn a decoded `(H, W, 3)` picture the way the display matrix says: `rotation` degrees
    counter-clockwise (FFmpeg's convention; phones write -90 for portrait).

    >>> rotate(np.arange(4).reshape(2, 2, 1), 90)[..., 0].tolist()
    [[1, 3], [0, 2]]
    """
    turns = round(rotation / 90) % 4
    return np.ascontiguousarray(np.rot90(frame, k=turns)) if turns else frame
