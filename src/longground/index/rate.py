"""The sampling rate an index really uses: the asked rate, capped at the video's own.

Sampling faster than a video's frame rate only repeats frames (and `--fps 1e308` would never
finish), so the rate is capped, with a one-line warning (once per video and rate), and the
cache key holds the capped rate: `--fps 1000` and `--fps 30` on a 30 fps video share one entry.
"""

from __future__ import annotations

import functools
import os
import warnings
from fractions import Fraction
from pathlib import Path

from ..video.container import open_video
from ..video.sampling import as_fraction


def sampling_rate(video: str | Path, fps: float | Fraction) -> Fraction:
    """`fps` as an exact rate, at most the frame rate of `video` (warning when capped).

    Args:
        video: any file FFmpeg reads (opened, not decoded, once per process and file
            version, and only when `fps` exceeds 1 frame per second).
        fps: asked samples per second, > 0 and finite.

    Raises:
        BadVideo: the file cannot be opened as a video.

    >>> import tempfile, os, numpy as np
    >>> from longground.video.writer import VideoWriter
    >>> path = os.path.join(tempfile.mkdtemp(), "ten.mp4")
    >>> with VideoWriter(path, 64, 48, fps=10) as w:
    ...     for _ in range(10):
    ...         w.write(np.zeros((48, 64, 3), np.uint8))
    >>> sampling_rate(path, 2.0), sampling_rate(path, 10.0)
    (Fraction(2, 1), Fraction(10, 1))
    """
    rate = as_fraction(fps)
    if rate <= 1:  # not worth opening the file for: few videos play slower
        return rate
    stat = os.stat(video)
    native = _native_fps(str(video), stat.st_size, stat.st_mtime_ns)
    if native is None or rate <= native:
        return rate
    _warn_once(str(video), stat.st_size, stat.st_mtime_ns, float(fps), float(native))
    return native


@functools.lru_cache(maxsize=1024)
def _warn_once(path: str, size: int, mtime_ns: int, fps: float, native: float) -> None:
    """One warning per video version and rate, however many queries ask for it."""
    warnings.warn(
        f"{path}: {fps:g} samples/s is above the video's frame rate; sampling at {native:g}",
        stacklevel=4,
    )


@functools.lru_cache(maxsize=1024)
def _native_fps(path: str, size: int, mtime_ns: int) -> Fraction | None:
    """The stream's frame rate (None when it states none); size and mtime key the cache."""
    with open_video(path) as video:
        return video.fps if video.fps and video.fps > 0 else None
