"""The frame on screen at each of a rising series of times: decode forward, seek when it pays.

A frame with presentation time `pts` is on screen from `pts` until the next frame's `pts`, so
the frame displayed at time `t` is the last one with `pts <= t`. This holds for variable frame
rates too, because only the timestamps are used, never a nominal rate.

When to seek: a seek lands on the keyframe before the target and costs about
`SEEK_OVERHEAD_FRAMES` frames of decoding (demuxer seek, decoder flush, and the keyframe
costing more than a predicted frame; measured about 5 on 640x360 H.264 with single-threaded
decoding, rounded up to 8). It is made only when that keyframe lies more than
that many frames past the frame decoded last; otherwise decoding forward is cheaper.

Frames never shown: at 1 sample a second from 25 fps, 24 of every 25 decoded frames are
thrown away, but most must still be decoded because later frames are predicted from them.
The non-reference ones (B-frames nothing is predicted from; about a third of the frames of a
default x264 file, none in files without B-frames) need not be: for H.264 and HEVC the
decoder is told to drop them (`skip_frame = "NONREF"`) unless their pts lies within
`SKIP_WINDOW_FRAMES` frame intervals before the next sample time. The result is exact, not an
approximation: the frame shown at `t` is the last one with `pts <= t`, and every frame with a
pts in `(t - window, t]` is decoded, so when the frame found has a pts inside that window no
skipped frame can come between it and `t`. When it does not (a gap longer than the window, as
in a variable-rate screen recording), skipping is turned off for the rest of the stream and
that sample is decoded again from the keyframe before it.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Iterator
from fractions import Fraction

from .container import OpenVideo
from .decoder import NONREF_SKIPPING_CODECS, Decoded, FrameSource
from .errors import BadVideo
from .keyframes import KeyframeMap

SEEK_OVERHEAD_FRAMES = 8
# A stream that ends this much (or 2 frames) before its announced duration counts as cut short.
TRUNCATION_TOLERANCE_S = 1.0
# Attempts to land at or before a target, each seeking further back, the last to the start.
_SEEK_TRIES = 4
# Frames within this many nominal frame intervals before a sample time are always decoded.
SKIP_WINDOW_FRAMES = 2


class DisplayedFrames:
    """Walks one open video and pairs each time with the frame displayed then.

    Attributes:
        source: the decoder (counts of frames decoded, bad packets, seeks).
        truncated_at_s: where decoding stopped early, if the stream was cut short.
        end_s: end of the last decoded frame, once the end of the stream was reached.
        skipping: whether non-reference frames far from the sample times are being dropped
            undecoded (see the module docstring); turned off for good on a gap in the
            stream longer than the window.
    """

    def __init__(self, video: OpenVideo, seek: bool = True, skip_unshown: bool = True):
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
        self.skipping = skip_unshown and video.stream.codec_context.name in NONREF_SKIPPING_CODECS
        self._window = SKIP_WINDOW_FRAMES * self.frame_ticks

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
            tick = self.tick(time_s)
            self._advance(tick)
            if self.skipping and not self._surely_shown(tick):
                self._stop_skipping(tick)
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
        if self.skipping:
            self.source.skip_before = tick - self._window
        while True:
            if self._ahead is None:
                self._ahead = self._next()
                if self._ahead is None:
                    self._reach_end()
                    return
            if self._ahead.pts > tick:
                return
            self._held, self._ahead = self._ahead, None

    def _surely_shown(self, tick: int) -> bool:
        """Whether `_held` is the frame shown at `tick` although frames were skipped: true
        when its pts is inside the window before `tick` (all frames there were decoded), or
        there is no frame at or before `tick` at all."""
        return self._held is None or self._held.pts > tick - self._window

    def _stop_skipping(self, tick: int) -> None:
        """Decode every frame from now on, and find the frame shown at `tick` again."""
        self.skipping = False
        self.source.skip_before = None
        self._ended = False
        self._seek_to(tick)
        self._advance(tick)

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


class KeyframesOnly(DisplayedFrames):
    """Like `DisplayedFrames`, but only keyframes are decoded (`skip_frame = "NONKEY"`): the
    frame paired with a time is the last keyframe at or before it. Lossy (a picture that
    changes between keyframes is seen only at the next one) and fast: with a keyframe every
    10 s, a tenth of a second of decoding per 10 s of video. An opt-in indexing mode
    (`longground index --keyframes-only`); no seeking, since demuxing the packets between
    keyframes costs almost nothing. Truncation is told only by a read error (the last
    keyframe may lie far before the end of a whole file).
    """

    def __init__(self, video: OpenVideo):
        super().__init__(video, seek=False, skip_unshown=False)
        video.stream.codec_context.skip_frame = "NONKEY"

    def _playable_end_s(self) -> float:
        if self.source.read_error is not None:
            self.truncated_at_s = self.end_s
            return self.end_s
        return max(self.end_s, self.video.duration_s or 0.0)
