"""The frame on screen at each of a rising series of times: decode forward, seek when it pays.

A frame with presentation time `pts` is on screen from `pts` until the next frame's `pts`, so
the frame displayed at time `t` is the last one with `pts <= t`. This holds for variable frame
rates too, because only the timestamps are used, never a nominal rate.

When to seek: a seek lands on the keyframe before the target and costs about
`SEEK_OVERHEAD_FRAMES` frames of decoding (demuxer seek, decoder flush, and the keyframe
costing more than a predicted frame; measured about 5 on 640x360 H.264 with single-threaded
decoding, rounded up to 8). It is made only when that keyframe lies more than
that many frames past the frame decoded last; otherwise decoding forward is cheaper.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Iterator
from fractions import Fraction

from .container import OpenVideo
from .decoder import Decoded, FrameSource
from .errors import BadVideo
from .keyframes import KeyframeMap

SEEK_OVERHEAD_FRAMES = 8
# A stream that ends this much (or 2 frames) before its announced duration counts as cut short.
TRUNCATION_TOLERANCE_S = 1.0
# Attempts to land at or before a target, each seeking further back, the last to the start.
_SEEK_TRIES = 4


class DisplayedFrames:
    """Walks one open video and pairs each time with the frame displayed then.

    Attributes:
        source: the decoder (counts of frames decoded, bad packets, seeks).
        truncated_at_s: where decoding stopped early, if the stream was cut short.
        end_s: end of the last decoded frame, once the end of the stream was reached.
    """

    def __init__(self, video: OpenVideo, seek: bool = True):
        self.video = video
        self.frame_ticks = max(1, round(1 / (video.fps * video.time_base)))
        self.source = FrameSource(video, self.frame_ticks)
        self.keyframes = KeyframeMap.for_stream(video.stream, self.frame_ticks)
        self._overhead = SEEK_OVERHEAD_FRAMES * self.frame_ticks
        self._seek = seek
        self._held: Decoded | None = None
        self._ahead: Decoded | None = None
        self._ended = False
        self.truncated_at_s: float | None = None
        self.end_s: float | None = None

    def tick(self, time_s: Fraction) -> int:
        """The stream tick of a time in seconds from the stream start (rounded down)."""
        return self.video.origin_pts + math.floor(time_s / self.video.time_base)

    def seconds(self, pts: int) -> float:
        return float((pts - self.video.origin_pts) * self.video.time_base)

    def pairs(self, times_s: Iterable[Fraction]) -> Iterator[tuple[Fraction, Decoded]]:
        """`(t, frame displayed at t)` for each time; times must not decrease.

        Stops early at the end of a stream that was cut short (see `truncated_at_s`).
        Before the first frame, the first frame stands in.

        Raises:
            BadVideo: the stream holds no decodable frame at all.
        """
        for time_s in times_s:
            self._advance(self.tick(time_s))
            shown = self._held or self._ahead
            if shown is None:
                raise BadVideo(self.video.path, self.source.no_frames_reason())
            if self._ended and time_s >= self._playable_end_s():
                return
            yield time_s, shown

    def _advance(self, tick: int) -> None:
        """Make `_held` the last frame with pts <= tick and `_ahead` the one after it."""
        if self._ended or (self._ahead is not None and self._ahead.pts > tick):
            return
        if self._seek:
            self._maybe_seek(tick)
        while True:
            if self._ahead is None:
                self._ahead = self._next()
                if self._ahead is None:
                    self._reach_end()
                    return
            if self._ahead.pts > tick:
                return
            self._held, self._ahead = self._ahead, None

    def _next(self) -> Decoded | None:
        decoded = self.source.next()
        if decoded is not None and decoded.frame.key_frame:
            self.keyframes.observe(decoded.pts)
        return decoded

    def _maybe_seek(self, tick: int) -> None:
        last = self._ahead or self._held
        position = last.pts if last is not None else self.video.origin_pts
        if tick - position <= self._overhead:
            return
        if self.keyframes.at_or_before(tick) - position > self._overhead:
            self._seek_to(tick)

    def _seek_to(self, tick: int) -> None:
        """Seek so that decoding resumes at or before `tick`, backing off on overshoot.

        Demuxers differ in where a seek resumes (decode or presentation stamps, keyframe
        before or after the point found), so the first frame after it is checked: if it
        comes after `tick`, seek further back, the last time to before the start.
        """
        keyframes = self.keyframes
        target = keyframes.seek_target(tick)
        step = round(keyframes.ticks_per_s) if keyframes.index else keyframes.gap_ticks()
        for attempt in range(_SEEK_TRIES):
            if attempt == _SEEK_TRIES - 1:
                target = self.video.origin_pts - step
            self.source.seek(target)
            keyframes.lost_track()
            first = self._next()
            if first is not None and first.pts <= tick:
                break
            target, step = target - step, 2 * step
        self._held, self._ahead = None, first

    def _reach_end(self) -> None:
        self._ended = True
        if self._held is not None:
            duration = self._held.frame.duration or self.frame_ticks
            self.end_s = self.seconds(self._held.pts + duration)

    def _playable_end_s(self) -> float:
        """Times before this are shown the last frame; at or after it, sampling stops."""
        announced = self.video.duration_s
        tolerance = TRUNCATION_TOLERANCE_S + 2 * float(self.frame_ticks * self.video.time_base)
        cut = self.source.read_error is not None or (
            announced is not None and self.end_s < announced - tolerance
        )
        if cut:
            self.truncated_at_s = self.end_s
            return self.end_s
        return max(self.end_s, announced or 0.0)
