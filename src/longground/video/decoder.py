"""Decoded frames of one stream in display order, with seeking and damage accounting."""

from __future__ import annotations

from collections import deque

from ..errors import require
from .container import OpenVideo


class Decoded:
    """One decoded frame and its presentation time in stream ticks."""

    __slots__ = ("frame", "pts")

    def __init__(self, frame, pts: int):
        self.frame, self.pts = frame, pts


# Codecs whose decoders honour `skip_frame = "NONREF"` by dropping exactly the frames no other
# frame is predicted from (H.264 and HEVC check each slice's reference flag), so skipping them
# leaves every other frame bit-identical.
NONREF_SKIPPING_CODECS = frozenset({"h264", "hevc"})


class FrameSource:
    """Pulls decoded frames from an `OpenVideo`, one at a time.

    A packet that fails to decode is counted and skipped, so damage in the middle of a file
    costs only the frames around it. A read error ends the stream (the usual sign of a
    truncated file) after flushing the frames the decoder still holds.

    Attributes:
        n_decoded: frames decoded so far.
        n_bad_packets: packets the decoder rejected.
        n_seeks: seeks made.
        read_error: the error that ended reading early, if any.
        skip_before: when set (a stream tick), packets whose pts is at or before it are
            decoded with `skip_frame = "NONREF"`: the decoder drops them if no other frame
            refers to them (B-frames, mostly). Only for `NONREF_SKIPPING_CODECS`; the caller
            sets it to say which frames it will never show.
    """

    def __init__(self, video: OpenVideo, frame_ticks: int):
        self._av = require("av", "video")
        self.video = video
        self._frame_ticks = frame_ticks
        self._packets = video.container.demux(video.stream)
        self._pending: deque[Decoded] = deque()
        self._last_pts: int | None = None
        self._eof = False
        self.n_decoded = 0
        self.n_bad_packets = 0
        self.n_seeks = 0
        self.read_error: Exception | None = None
        self.skip_before: int | None = None
        self._skipping = False

    def next(self) -> Decoded | None:
        """The next frame in display order, or None at the end of the stream."""
        while not self._pending and not self._eof:
            self._pull()
        return self._pending.popleft() if self._pending else None

    def seek(self, tick: int) -> None:
        """Continue from the keyframe at or before `tick` (stream ticks)."""
        self.video.container.seek(tick, stream=self.video.stream, backward=True)
        self.video.stream.codec_context.flush_buffers()
        self._packets = self.video.container.demux(self.video.stream)
        self._pending.clear()
        self._last_pts = None
        self._eof = False
        self.n_seeks += 1

    def _pull(self) -> None:
        try:
            packet = next(self._packets)
        except StopIteration:
            self._eof = True
            return
        except self._av.FFmpegError as exc:
            self.read_error = exc
            self._eof = True
            self._decode(None)
            return
        self._decode(packet)

    def _decode(self, packet) -> None:
        self._set_skipping(
            self.skip_before is not None
            and packet is not None
            and packet.pts is not None
            and packet.pts <= self.skip_before
        )
        try:
            frames = self.video.stream.decode(packet)
        except self._av.FFmpegError:
            self.n_bad_packets += 1
            return
        for frame in frames:
            self._pending.append(Decoded(frame, self._pts(frame)))
            self.n_decoded += 1

    def _set_skipping(self, skip: bool) -> None:
        """Switch the decoder's `skip_frame` (only when it changes: the setter is not free)."""
        if skip != self._skipping:
            self.video.stream.codec_context.skip_frame = "NONREF" if skip else "DEFAULT"
            self._skipping = skip

    def no_frames_reason(self) -> str:
        """Why a stream gave no frame at all, for a `BadVideo` message."""
        announced = self.video.stream.frames
        if self.read_error is not None or self.n_bad_packets or announced:
            return "no video frame could be decoded (the file is truncated or damaged)"
        return "the video stream holds no frames"

    def _pts(self, frame) -> int:
        pts = frame.pts
        if pts is None:
            pts = frame.dts
        if pts is None:
            last = self._last_pts
            pts = self.video.origin_pts if last is None else last + self._frame_ticks
        self._last_pts = pts
        return pts
