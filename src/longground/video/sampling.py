"""Frames at a steady sampling rate, or at chosen times, streamed in batches."""

from __future__ import annotations

import warnings
from collections.abc import Iterable, Iterator
from fractions import Fraction
from pathlib import Path

import numpy as np

from ..errors import UserError
from ..timecode import format_time
from .batch import FrameBatch
from .container import OpenVideo, open_video
from .convert import FrameConverter
from .errors import DamagedVideo, TruncatedVideo
from .picker import DisplayedFrames, KeyframesOnly

# frames_at decodes into buffers of at most this many frames.
_FRAMES_AT_BATCH = 256


def as_fraction(value: float | Fraction | int) -> Fraction:
    """An exact rate or time from a float, keeping common rates exact.

    >>> as_fraction(29.97002997), as_fraction(0.5), as_fraction(Fraction(30000, 1001))
    (Fraction(30000, 1001), Fraction(1, 2), Fraction(30000, 1001))
    """
    if isinstance(value, Fraction | int):
        return Fraction(value)
    return Fraction(value).limit_denominator(100_000)


def sample_times(fps: Fraction, start_s: Fraction, end_s: Fraction | None) -> Iterator[Fraction]:
    """`start_s + k / fps` for k = 0, 1, ... while before `end_s` (forever when None).

    >>> [str(t) for t in sample_times(Fraction(2), Fraction(1), Fraction(3))]
    ['1', '3/2', '2', '5/2']
    """
    k = 0
    while True:
        time_s = start_s + k / fps
        if end_s is not None and time_s >= end_s:
            return
        yield time_s
        k += 1


class FrameStream(Iterator[FrameBatch]):
    """Batches of the frames displayed at rising times of one video.

    Iterate it for `FrameBatch`es; after the last batch, `truncated_at_s` says where a
    truncated file stopped decoding (None otherwise). The file stays open until the stream
    is exhausted or closed.

    Attributes:
        path: the video.
        truncated_at_s: where decoding stopped early, or None.
        warn_on_damage: issue the `damage()` warning when the stream ends (set False to
            report it yourself, e.g. from another thread).
        n_decoded: frames decoded so far (a measure of the work done).
        n_seeks: seeks made so far.

    Non-reference frames that cannot be on screen at any of the times are not decoded at all
    (H.264 and HEVC; exact, see `picker`); `skip_unshown=False` decodes every frame.
    `keyframes_only=True` decodes keyframes only and pairs each time with the last keyframe
    at or before it (lossy; `picker.KeyframesOnly`).
    """

    def __init__(
        self,
        video: OpenVideo,
        times_s: Iterable[Fraction],
        short_side: int | None = 224,
        batch_size: int = 64,
        seek: bool = True,
        skip_unshown: bool = True,
        keyframes_only: bool = False,
    ):
        if batch_size < 1:
            raise ValueError("batch_size must be at least 1")
        self.path = video.path
        self._video = video
        self._picker = (
            KeyframesOnly(video)
            if keyframes_only
            else DisplayedFrames(video, seek=seek, skip_unshown=skip_unshown)
        )
        self._pairs = self._picker.pairs(times_s)
        self._convert = FrameConverter(short_side, video.stream.sample_aspect_ratio)
        self._batch_size = batch_size
        self._done = False
        self.truncated_at_s: float | None = None
        self.warn_on_damage = True

    @property
    def duration_s(self) -> float | None:
        """The video's duration as its headers announce it (None when they do not)."""
        return self._video.duration_s

    @property
    def n_decoded(self) -> int:
        return self._picker.source.n_decoded

    @property
    def n_seeks(self) -> int:
        return self._picker.source.n_seeks

    def __iter__(self) -> FrameStream:
        return self

    def __next__(self) -> FrameBatch:
        if self._done:
            raise StopIteration
        try:
            batch = self._collect()
        except BaseException:
            self.close()
            raise
        if batch is None:
            self._finish()
            raise StopIteration
        return batch

    def _collect(self) -> FrameBatch | None:
        frames, pts_s, times_s = None, [], []
        for time_s, shown in self._pairs:
            if frames is None:
                shape = self._convert.output_shape(shown.frame)
                frames = np.empty((self._batch_size, *shape), np.uint8)
            frames[len(pts_s)] = self._convert(shown.frame)
            pts_s.append(self._picker.seconds(shown.pts))
            times_s.append(float(time_s))
            if len(pts_s) == self._batch_size:
                break
        if not pts_s:
            return None
        if len(pts_s) < self._batch_size:
            frames = frames[: len(pts_s)].copy()  # do not keep the unused rows alive
        return FrameBatch(frames, np.array(pts_s), np.array(times_s))

    def _finish(self) -> None:
        self._done = True
        self.truncated_at_s = self._picker.truncated_at_s
        self.close()
        damage = self.damage()
        if damage is not None and self.warn_on_damage:
            warnings.warn(damage[1], damage[0], stacklevel=3)

    def damage(self) -> tuple[type[Warning], str] | None:
        """The warning this stream's file deserves (category, one-line message), if any."""
        if self.truncated_at_s is not None:
            return TruncatedVideo, truncation_message(
                self.path, self.truncated_at_s, self._video.duration_s
            )
        bad = self._picker.source.n_bad_packets
        if bad:
            message = f"{self.path}: {bad} damaged packet(s) could not be decoded; nearby "
            return DamagedVideo, message + "frames may be wrong"
        return None

    def close(self) -> None:
        """Release the file (also done once the stream is exhausted)."""
        self._done = True
        self._video.close()


def truncation_message(path, truncated_at_s: float, duration_s: float | None) -> str:
    """The one-line warning for a file whose decoding stopped early.

    >>> truncation_message("a.mp4", 6.0, 10.0)[:51]
    'a.mp4: decoding stopped at 00:00:06.0 of 00:00:10.0'
    """
    announced = format_time(duration_s) if duration_s is not None else "unknown length"
    return (
        f"{path}: decoding stopped at {format_time(truncated_at_s)} of {announced} "
        "(file truncated or damaged); using the frames before"
    )


def sample_frames(
    path: str | Path,
    fps: float | Fraction,
    start_s: float | None = None,
    end_s: float | None = None,
    short_side: int | None = 224,
    batch_size: int = 64,
    skip_unshown: bool = True,
    keyframes_only: bool = False,
) -> FrameStream:
    """Stream the frames displayed at `start_s + k / fps`, for every such time before `end_s`.

    Safe for variable frame rates: each sample is the last frame whose presentation time is
    at or before the sample time. Frames are scaled inside FFmpeg while decoding, and only
    `batch_size` of them are in memory at once, whatever the video's length.

    Args:
        path: any video FFmpeg reads.
        fps: samples per second (an exact `Fraction` or a float such as 29.97).
        start_s: first sample time in seconds from the stream start (default 0).
        end_s: sampling stops before this time (default: the end of the video).
        short_side: shorter side of the output frames in pixels, aspect kept, sizes even;
            None keeps the displayed size.
        batch_size: frames per `FrameBatch`.
        skip_unshown: leave undecoded the non-reference frames that are on screen at no
            sample time (H.264, HEVC; the frames returned are the same, see `picker`).
        keyframes_only: decode keyframes only; each sample is the last keyframe at or before
            its time (lossy, fast; `picker.KeyframesOnly`).

    Returns:
        A `FrameStream` of `FrameBatch(frames (B,H,W,3) uint8, pts_s (B,), times_s (B,))`;
        after iterating, its `truncated_at_s` is set if the file was cut short (a
        `TruncatedVideo` warning is issued too).

    Raises:
        BadVideo: the file cannot be read as a video.
        UserError: `fps` is not positive or the range is empty.

    >>> import tempfile, os
    >>> from longground.video.writer import VideoWriter
    >>> path = os.path.join(tempfile.mkdtemp(), "ramp.mp4")
    >>> with VideoWriter(path, 64, 48, fps=10) as w:
    ...     for i in range(20):
    ...         w.write(np.full((48, 64, 3), 10 * i, np.uint8))
    >>> batch = next(iter(sample_frames(path, fps=2, short_side=24)))
    >>> batch.frames.shape, batch.pts_s.tolist()
    ((4, 24, 32, 3), [0.0, 0.5, 1.0, 1.5])
    """
    rate = as_fraction(fps)
    if rate <= 0:
        raise UserError(f"sampling rate must be positive, got {fps}")
    start = as_fraction(start_s or 0)
    end = None if end_s is None else as_fraction(end_s)
    if start < 0 or (end is not None and end <= start):
        raise UserError(f"{path}: empty time range [{start_s}, {end_s}) s")
    video = open_video(path)
    if video.duration_s is not None:
        duration = as_fraction(video.duration_s)
        if start >= duration:
            video.close()
            raise UserError(
                f"{path}: start {format_time(start)} is past the end ({format_time(duration)})"
            )
        end = duration if end is None else min(end, duration)
    times = sample_times(rate, start, end)
    return FrameStream(video, times, short_side, batch_size, skip_unshown=skip_unshown,
                       keyframes_only=keyframes_only)  # fmt: skip


def frames_at(
    path: str | Path, times_s: Iterable[float], short_side: int | None = 224
) -> FrameBatch:
    """The frames displayed at arbitrary times, in the order asked.

    Times are clipped to the video; repeated times share one decode, and the decoder seeks
    between distant times.

    Args:
        path: any video FFmpeg reads.
        times_s: `(T,)` seconds from the stream start, in any order.
        short_side: shorter side of the output in pixels; None keeps the displayed size.

    Returns:
        `FrameBatch` of `T` frames in the order of `times_s` (fewer only when the file is
        truncated before the latest times), with `times_s` as asked.

    >>> import tempfile, os
    >>> from longground.video.writer import VideoWriter
    >>> path = os.path.join(tempfile.mkdtemp(), "ramp.mp4")
    >>> with VideoWriter(path, 64, 48, fps=10) as w:
    ...     for i in range(20):
    ...         w.write(np.full((48, 64, 3), 10 * i, np.uint8))
    >>> frames_at(path, [1.25, 0.0, 1.25], short_side=None).pts_s.tolist()
    [1.2, 0.0, 1.2]
    """
    times = np.asarray(list(times_s), dtype=np.float64)
    if times.size == 0 or not np.isfinite(times).all():
        raise UserError(f"{path}: frames_at needs finite times, got {times.tolist()}")
    unique, inverse = np.unique(np.maximum(times, 0.0), return_inverse=True)
    exact = [as_fraction(float(t)) for t in unique]
    video = open_video(path)
    if video.duration_s is not None:
        last = max(Fraction(0), as_fraction(video.duration_s) - Fraction(1, 1000))
        exact = [min(t, last) for t in exact]
    batch_size = min(len(unique), _FRAMES_AT_BATCH)
    batches = list(FrameStream(video, exact, short_side, batch_size))
    if not batches:  # a truncated file, cut before every time asked
        return FrameBatch(np.zeros((0, 0, 0, 3), np.uint8), np.zeros(0), np.zeros(0))
    batch = FrameBatch.concat(batches)
    kept = inverse < len(batch)
    return FrameBatch(batch.frames[inverse[kept]], batch.pts_s[inverse[kept]], times[kept])
