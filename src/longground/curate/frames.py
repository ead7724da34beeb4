"""How the build pipelines see a video: its duration and N uniform timestamped frames.

A video that cannot be read gives the same one-line error to every call that needs it,
without decoding it again.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ..errors import UserError
from .source import VIDEO_FILES, FrameSource


@dataclass(frozen=True)
class VideoFrames:
    """Frames of one video.

    Attributes:
        frames: `(N, H, W, 3)` uint8 RGB.
        pts_s: `(N,)` seconds, each frame's presentation time.
        duration_s: the video's length in seconds.
    """

    frames: np.ndarray
    pts_s: np.ndarray
    duration_s: float


class UniformFrames:
    """`n_frames` frames at the centres of equal slices of each video, the last few kept.

    Args:
        n_frames: frames per video.
        short_side: frames are shrunk so the shorter side is at most this many pixels.
        source: where frames come from (default: decoded from the files).
    """

    def __init__(
        self, n_frames: int, short_side: int, keep: int = 2, source: FrameSource = VIDEO_FILES
    ):
        if n_frames <= 0 or short_side <= 0:
            raise UserError(f"frames and short side must be positive ({n_frames}, {short_side})")
        self.n_frames, self.short_side, self.keep = n_frames, short_side, keep
        self.source = source
        self._seen: dict[str, VideoFrames | UserError] = {}
        self._durations: dict[str, float] = {}  # small, so never evicted
        self._lock = threading.Lock()  # stages may build calls from several threads

    def get(self, video: str | Path) -> VideoFrames:
        """The frames of `video`; raises the video's `UserError` (`BadVideo`) every time."""
        with self._lock:
            return self._get(str(Path(video).absolute()))

    def duration_s(self, video: str | Path) -> float:
        """The video's length, without decoding it again once its frames were read."""
        key = str(Path(video).absolute())
        with self._lock:
            if key in self._durations:
                return self._durations[key]
        return self.get(video).duration_s

    def _get(self, key: str) -> VideoFrames:
        if key not in self._seen:
            if len(self._seen) >= self.keep:
                self._seen.pop(next(iter(self._seen)))
            try:
                self._seen[key] = self._load(Path(key))
                self._durations[key] = self._seen[key].duration_s
            except UserError as exc:
                self._seen[key] = exc
        found = self._seen[key]
        if isinstance(found, UserError):
            raise found
        return found

    def _load(self, video: Path) -> VideoFrames:
        return VideoFrames(*self.source.uniform_frames(video, self.n_frames, self.short_side))
