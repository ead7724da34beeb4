"""`probe`: what a video file holds, read from its headers and its first frame."""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path

from ..timecode import format_time
from .container import OpenVideo, open_video
from .decoder import FrameSource
from .errors import BadVideo
from .sizing import display_size


@dataclass(frozen=True)
class VideoInfo:
    """Facts about a video stream.

    Attributes:
        path: the file.
        duration_s: length in seconds (from the headers; measured when they do not say).
        fps: average frame rate, exact (e.g. `Fraction(30000, 1001)`); for a variable frame
            rate, frames over duration.
        n_frames: frame count from the headers, or duration x fps when they do not say.
        width, height: size as displayed, pixel aspect ratio and rotation applied.
        codec: FFmpeg's decoder name, e.g. "h264".
        rotation: degrees counter-clockwise the picture is turned for display (0, 90, -90
            or 180); frames from this package are already turned.
    """

    path: Path
    duration_s: float
    fps: Fraction
    n_frames: int
    width: int
    height: int
    codec: str
    rotation: int

    def to_dict(self) -> dict:
        """JSON-ready fields; `fps` as the exact fraction text plus `fps_float`.

        >>> info = VideoInfo(Path("a.mp4"), 10.0, Fraction(30000, 1001), 300, 640, 360, "h264", 0)
        >>> info.to_dict()["fps"], round(info.to_dict()["fps_float"], 3)
        ('30000/1001', 29.97)
        """
        return {
            "path": str(self.path),
            "duration_s": self.duration_s,
            "fps": str(self.fps),
            "fps_float": float(self.fps),
            "n_frames": self.n_frames,
            "width": self.width,
            "height": self.height,
            "codec": self.codec,
            "rotation": self.rotation,
        }

    def describe(self) -> list[str]:
        """Lines for people, as `longground info` prints them."""
        return [
            f"path:      {self.path}",
            f"duration:  {format_time(self.duration_s, decimals=3)} ({self.duration_s:.3f} s)",
            f"fps:       {float(self.fps):.3f} ({self.fps})",
            f"frames:    {self.n_frames}",
            f"size:      {self.width}x{self.height}",
            f"codec:     {self.codec}",
            f"rotation:  {self.rotation}",
        ]


def probe(path: str | Path) -> VideoInfo:
    """Read a video's metadata, decoding its first frame to check it can be decoded.

    Args:
        path: any file FFmpeg reads.

    Raises:
        BadVideo: missing, empty, not a video (text or a still image FFmpeg shows as a
            picture), audio only, unsupported codec, no frame decodes, or no positive duration.

    >>> import tempfile, os, numpy as np
    >>> from longground.video.writer import VideoWriter
    >>> path = os.path.join(tempfile.mkdtemp(), "grey.mp4")
    >>> with VideoWriter(path, 64, 48, fps=Fraction(30000, 1001)) as w:
    ...     for _ in range(30):
    ...         w.write(np.full((48, 64, 3), 128, np.uint8))
    >>> info = probe(path)
    >>> info.fps, info.n_frames, (info.width, info.height), round(info.duration_s, 3)
    (Fraction(30000, 1001), 30, (64, 48), 1.001)
    """
    with open_video(path) as video:
        frame_ticks = max(1, round(1 / (video.fps * video.time_base)))
        source = FrameSource(video, frame_ticks)
        first = source.next()
        if first is None:
            raise BadVideo(path, source.no_frames_reason())
        rotation = int(first.frame.rotation or 0)
        stream = video.stream
        sar = stream.sample_aspect_ratio
        width, height = display_size(first.frame.width, first.frame.height, sar, rotation)
        duration_s = video.duration_s
        if duration_s is None:
            duration_s = _scan_duration_s(video)
        if not duration_s > 0:
            raise BadVideo(path, "not a video: one picture with no duration")
        n_frames = stream.frames or round(duration_s * video.fps)
        return VideoInfo(
            path=Path(path),
            duration_s=duration_s,
            fps=video.fps,
            n_frames=int(n_frames),
            width=width,
            height=height,
            codec=stream.codec_context.name,
            rotation=rotation,
        )


def _scan_duration_s(video: OpenVideo) -> float:
    """End of the last packet, for files whose headers give no duration (reads, no decode)."""
    video.container.seek(video.origin_pts, stream=video.stream, backward=True)
    end = video.origin_pts
    for packet in video.container.demux(video.stream):
        if packet.pts is not None:
            end = max(end, packet.pts + (packet.duration or 0))
    return float((end - video.origin_pts) * video.time_base)
