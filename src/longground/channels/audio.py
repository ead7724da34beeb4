"""The audio stream of a video: what it is (`probe_audio`) and its samples as 16 kHz mono
(`pcm_chunks`), decoded by PyAV a chunk at a time so a 10-hour track never sits in memory."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ..errors import UserError, require

RATE_HZ = 16_000


class BadAudio(UserError):
    """The audio stream exists but cannot be decoded; the visual channels still can."""


@dataclass(frozen=True)
class AudioInfo:
    """Facts about a video's first audio stream.

    Attributes:
        codec: FFmpeg's decoder name, e.g. "aac".
        sample_rate_hz: samples per second per channel.
        channels: channel count (8 for a 7.1 track).
        duration_s: the stream's length from the headers, or None when they do not say.

    >>> AudioInfo("aac", 48000, 2, 61.5).describe()
    'audio:     aac, 48000 Hz, 2 channels, 00:01:01.5'
    """

    codec: str
    sample_rate_hz: int
    channels: int
    duration_s: float | None

    def describe(self) -> str:
        """One line for `longground info`."""
        from ..timecode import format_time

        length = "length unknown" if self.duration_s is None else format_time(self.duration_s)
        plural = "s" if self.channels != 1 else ""
        return (
            f"{'audio:':<11}{self.codec}, {self.sample_rate_hz} Hz, "
            f"{self.channels} channel{plural}, {length}"
        )

    def to_dict(self) -> dict:
        return {"codec": self.codec, "sample_rate_hz": self.sample_rate_hz,
                "channels": self.channels, "duration_s": self.duration_s}  # fmt: skip


def probe_audio(path: str | Path) -> AudioInfo | None:
    """The first audio stream of `path`, or None when it has none.

    Raises:
        UserError: the file cannot be opened at all.
    """
    av = require("av", "video")
    try:
        with av.open(str(path)) as container:
            if not container.streams.audio:
                return None
            stream = container.streams.audio[0]
            ctx = stream.codec_context
            duration_s = None
            if stream.duration is not None and stream.time_base is not None:
                duration_s = float(stream.duration * stream.time_base)
            elif container.duration is not None:
                duration_s = container.duration / 1_000_000
            return AudioInfo(
                ctx.name or "unknown", int(ctx.sample_rate or 0), int(ctx.channels or 0),
                duration_s,
            )  # fmt: skip
    except av.FFmpegError as exc:
        raise UserError(f"{path}: cannot be read ({_reason(exc)})") from None


def pcm_chunks(path: str | Path, chunk_s: float = 30.0) -> Iterator[np.ndarray]:
    """The first audio stream as 16 kHz mono int16 samples, in chunks of about `chunk_s`.

    Any rate and layout (8 channels at 96 kHz included) is downmixed and resampled by
    FFmpeg's resampler. A stream with no samples yields nothing.

    Raises:
        BadAudio: the stream's packets cannot be decoded.
    """
    av = require("av", "video")
    resampler = av.AudioResampler(format="s16", layout="mono", rate=RATE_HZ)
    limit = int(chunk_s * RATE_HZ)
    parts: list[np.ndarray] = []
    held = 0
    try:
        with av.open(str(path)) as container:
            if not container.streams.audio:
                return
            stream = container.streams.audio[0]
            for packet in container.demux(stream):
                for frame in packet.decode():
                    for out in resampler.resample(frame):
                        parts.append(out.to_ndarray().reshape(-1))
                        held += parts[-1].size
                if held >= limit:
                    yield np.concatenate(parts)
                    parts, held = [], 0
            for out in resampler.resample(None):
                parts.append(out.to_ndarray().reshape(-1))
    except (av.FFmpegError, ValueError) as exc:
        raise BadAudio(f"{path}: the audio stream cannot be decoded ({_reason(exc)})") from None
    if parts and sum(p.size for p in parts):
        yield np.concatenate(parts)


def _reason(exc: Exception) -> str:
    text = " ".join(str(getattr(exc, "strerror", None) or exc).split())
    return text[:120] or type(exc).__name__
