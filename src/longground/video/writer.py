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


#: Samples of sound encoded at a time by `write_with_sound`.
AUDIO_BLOCK = 1024


def write_with_sound(path: Path, frames, n_frames: int, fps: Fraction | float,
                     track: np.ndarray, rate_hz: int, width: int, height: int,
                     crf: int = 23, preset: str = "veryfast") -> None:  # fmt: skip
    """Encode `n_frames` `(height, width, 3)` RGB frames taken from the iterator `frames`
    at `fps`, with the mono int16 sound `track` at `rate_hz` beside them, to `path`: H.264
    (yuv420p, `crf`, x264 `preset`) and AAC, the sound muxed up to each frame's time before
    the frame, so the two streams stay interleaved."""
    av = require("av", "video")
    with av.open(str(path), mode="w") as container:
        video = container.add_stream("libx264", rate=fps)
        video.width, video.height, video.pix_fmt = width, height, "yuv420p"
        video.options = {"crf": str(crf), "preset": preset}
        audio = container.add_stream("aac", rate=rate_hz, layout="mono")
        sent = 0
        for i in range(n_frames + 1):
            until = len(track) if i == n_frames else round(i / fps * rate_hz)
            while sent + AUDIO_BLOCK <= until or (i == n_frames and sent < until):
                block = track[sent : sent + AUDIO_BLOCK]
                frame = av.AudioFrame.from_ndarray(
                    block.reshape(1, -1), format="s16", layout="mono"
                )
                frame.sample_rate, frame.pts = rate_hz, sent
                container.mux(audio.encode(frame))
                sent += len(block)
            if i < n_frames:
                picture = av.VideoFrame.from_ndarray(next(frames), format="rgb24")
                container.mux(video.encode(picture))
        container.mux(video.encode(None))
        container.mux(audio.encode(None))
