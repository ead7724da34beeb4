"""Writing H.264 MP4 files through PyAV: used by the synthetic benchmark and by tests."""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path

import numpy as np

from ..errors import require

# A 90 kHz clock (as in MPEG) holds every common frame rate exactly, 30000/1001 included.
_TIME_BASE = Fraction(1, 90_000)


class VideoWriter:
    """Encode RGB frames to an H.264 MP4.

    Frames are shown at `fps` unless `write` is given an explicit `pts_s`, which allows a
    variable frame rate.

    Args:
        path: output file.
        width, height: frame size in pixels (even numbers).
        fps: nominal frame rate, an exact fraction such as `Fraction(30000, 1001)`.
        crf: x264 quality (lower is better).
        preset: x264 speed preset.

    >>> import tempfile, os
    >>> path = os.path.join(tempfile.mkdtemp(), "grey.mp4")
    >>> with VideoWriter(path, 64, 48, fps=25) as w:
    ...     for _ in range(5):
    ...         w.write(np.full((48, 64, 3), 128, np.uint8))
    >>> w.n_frames
    5
    """

    def __init__(
        self,
        path: str | Path,
        width: int,
        height: int,
        fps: Fraction | float = Fraction(25),
        crf: int = 23,
        preset: str = "veryfast",
    ):
        av = require("av", "video")
        self.fps = Fraction(fps).limit_denominator(100_000)
        self.width, self.height = width, height
        self._container = av.open(str(path), mode="w")
        stream = self._container.add_stream("libx264", rate=self.fps)
        stream.width, stream.height, stream.pix_fmt = width, height, "yuv420p"
        stream.time_base = _TIME_BASE
        stream.codec_context.time_base = _TIME_BASE
        stream.options = {"crf": str(crf), "preset": preset}
        self._stream = stream
        self._av = av
        self.n_frames = 0
        self._last_pts = -1

    def write(self, frame: np.ndarray, pts_s: float | None = None) -> None:
        """Append one `(height, width, 3)` uint8 RGB frame, shown from `pts_s` seconds on."""
        if frame.shape != (self.height, self.width, 3):
            raise ValueError(f"frame shape {frame.shape} != {(self.height, self.width, 3)}")
        if pts_s is None:
            pts_s = float(self.n_frames / self.fps)
        pts = round(pts_s / _TIME_BASE)
        if pts <= self._last_pts:
            raise ValueError(f"pts {pts_s}s is not after the previous frame")
        video_frame = self._av.VideoFrame.from_ndarray(np.ascontiguousarray(frame), format="rgb24")
        video_frame.pts = pts
        video_frame.time_base = _TIME_BASE
        self._container.mux(self._stream.encode(video_frame))
        self._last_pts = pts
        self.n_frames += 1

    def close(self) -> None:
        if self._container is not None:
            self._container.mux(self._stream.encode(None))
            self._container.close()
            self._container = None

    def __enter__(self) -> VideoWriter:
        return self

    def __exit__(self, *exc) -> None:
        self.close()
