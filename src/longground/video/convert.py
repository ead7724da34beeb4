"""Turning decoded frames into RGB arrays of the output size, scaled inside FFmpeg."""

from __future__ import annotations

from fractions import Fraction

import numpy as np

from .sizing import decode_size, display_size, rotate, scaled_size

# Area averaging: sharp and alias-free when shrinking, and as fast as bilinear in swscale.
INTERPOLATION = "AREA"


class FrameConverter:
    """Scales and converts frames to `(H, W, 3)` uint8 RGB with one reusable swscale context.

    The output size is fixed by the first frame (shorter displayed side at `short_side`), so
    every frame of a stream comes out the same size.

    Args:
        short_side: length of the shorter displayed side in pixels; None keeps the size.
        sample_aspect_ratio: the stream's pixel aspect ratio (None or 1: square pixels).
    """

    def __init__(self, short_side: int | None, sample_aspect_ratio=None):
        from av.video.reformatter import VideoReformatter

        self.short_side = short_side
        self._sar = _fraction(sample_aspect_ratio)
        self._reformatter = VideoReformatter()
        self._size: tuple[int, int] | None = None
        self._rotation = 0
        self._last: tuple[object, np.ndarray] | None = None

    def output_shape(self, frame) -> tuple[int, int, int]:
        """`(H, W, 3)` of the arrays this converter returns (fixed by the first frame)."""
        if self._size is None:
            self._rotation = int(frame.rotation or 0)
            shown = display_size(frame.width, frame.height, self._sar, self._rotation)
            self._size = decode_size(scaled_size(*shown, self.short_side), self._rotation)
        width, height = self._size
        return (width, height, 3) if self._rotation % 180 else (height, width, 3)

    def __call__(self, frame) -> np.ndarray:
        """The frame as displayed, `(H, W, 3)` uint8; a repeat of the last frame is reused."""
        if self._last is not None and self._last[0] is frame:
            return self._last[1]
        self.output_shape(frame)
        width, height = self._size
        scaled = self._reformatter.reformat(
            frame, width=width, height=height, format="rgb24", interpolation=INTERPOLATION
        )
        array = rotate(scaled.to_ndarray(), self._rotation)
        self._last = (frame, array)
        return array


def _fraction(value) -> Fraction | None:
    try:
        return Fraction(value) if value else None
    except (TypeError, ValueError):
        return None
