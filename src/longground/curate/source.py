"""How the construction pipelines see a video: a small frame-source interface.

Stages ask a `FrameSource` for a video's length, its frames at given times, its frames at a
steady rate, and an 8x8 contact sheet; `VideoFiles` answers from the files through `video/`.
This is the only module of `curate/` that decodes, so a test (or another backend) can hand the
stages frames without a video file.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Iterable, Iterator
from pathlib import Path

import numpy as np

from ..errors import UserError
from ..methods.monolithic import uniform_times, video_frames
from ..video import frames_at, mosaic, probe, sample_frames


class FrameSource(ABC):
    """Frames of videos, by path; every method raises `UserError` for an unreadable video."""

    @abstractmethod
    def duration_s(self, video: Path) -> float:
        """The video's length in seconds (0.0 when the file states none)."""

    @abstractmethod
    def frames_at(
        self, video: Path, times_s: Iterable[float], short_side: int
    ) -> tuple[np.ndarray, np.ndarray]:
        """`(frames (N, H, W, 3) uint8, pts_s (N,))` shown at `times_s`, in the order asked."""

    @abstractmethod
    def sampled(
        self, video: Path, fps: float, short_side: int, batch_size: int = 32
    ) -> Iterator[tuple[np.ndarray, np.ndarray]]:
        """Batches `(times_s (B,), frames (B, H, W, 3))` of the whole video at `fps`."""

    @abstractmethod
    def uniform_frames(
        self, video: Path, n_frames: int, short_side: int
    ) -> tuple[np.ndarray, np.ndarray, float]:
        """`(frames, pts_s, duration_s)`: `n_frames` frames at the centres of equal slices of
        the video, never enlarged beyond its own size, repeats dropped."""

    def sheet(self, frames: np.ndarray, pts_s: np.ndarray, rows: int = 8, cols: int = 8):
        """One contact sheet of `frames`, each tile stamped with its time."""
        return mosaic(frames, pts_s, rows=rows, cols=cols)


class VideoFiles(FrameSource):
    """Frames decoded from the files (FFmpeg through `longground.video`)."""

    def duration_s(self, video: Path) -> float:
        return float(probe(video).duration_s or 0.0)

    def frames_at(self, video, times_s, short_side):
        batch = frames_at(Path(video), np.asarray(list(times_s), np.float64), short_side=short_side)
        return batch.frames, batch.pts_s

    def sampled(self, video, fps, short_side, batch_size=32):
        for batch in sample_frames(Path(video), fps, short_side=short_side, batch_size=batch_size):
            yield batch.times_s, batch.frames

    def uniform_frames(self, video, n_frames, short_side):
        info = probe(video)
        if not info.duration_s or info.duration_s <= 0:
            raise UserError(f"{video}: no duration (an empty or unreadable video)")
        times_s = uniform_times(info.duration_s, n_frames)
        frames, pts_s = video_frames(video, info, times_s, short_side)
        return frames, pts_s, float(info.duration_s)


VIDEO_FILES = VideoFiles()
