"""One playable MP4 per moment, cut with PyAV.

By default the packets are copied (no re-encoding, fast, lossless) from the keyframe at or
before the moment's start up to its end, so a clip may start up to one keyframe interval
early. `exact=True` decodes and re-encodes (H.264) only the frames shown inside the moment.
Only the video stream is kept.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from fractions import Fraction
from pathlib import Path

from ..errors import UserError, require
from ..timecode import format_time
from .found import Found


def clip_name(video: Path, start_s: float, end_s: float) -> str:
    """`<stem>_<HH-MM-SS.mmm>-<HH-MM-SS.mmm>.mp4`: zero-padded, so name order is time order.

    >>> clip_name(Path("/v/game.mkv"), 61.5, 3725.25)
    'game_00-01-01.500-01-02-05.250.mp4'
    """
    def stamp(t: float) -> str:
        return format_time(t, decimals=3).replace(":", "-")

    return f"{video.stem}_{stamp(start_s)}-{stamp(end_s)}.mp4"


def planned_clips(found: list[Found], folder: Path) -> list[tuple[Path, float, float, Path]]:
    """`(video, start_s, end_s, clip path)` for every moment, refusing clips that would
    replace a file already in `folder` or share a name (two videos with one name).

    Raises:
        UserError: a clip's file exists already, or two clips would get one name.
    """
    plan, seen = [], set()
    for item in found:
        for start_s, end_s in item.moments.spans:
            path = folder / clip_name(item.video, float(start_s), float(end_s))
            if path in seen:
                raise UserError(f"--clips: two moments would both be written to {path}")
            if path.exists():
                raise UserError(f"--clips: {path} exists; remove it or choose another folder")
            seen.add(path)
            plan.append((item.video, float(start_s), float(end_s), path))
    return plan


def write_clips(found: list[Found], folder: Path, exact: bool = False) -> list[Path]:
    """Write each moment of `found` as `folder/<clip_name>`; returns the paths in time order."""
    plan = planned_clips(found, folder)
    folder.mkdir(parents=True, exist_ok=True)
    cut = cut_exact if exact else cut_copy
    for video, start_s, end_s, path in plan:
        temporary = path.with_name(f".{path.stem}.part.mp4")
        try:
            cut(video, start_s, end_s, temporary)
            os.replace(temporary, path)
        finally:
            temporary.unlink(missing_ok=True)
    return [p for *_, p in plan]


def cut_copy(video: Path, start_s: float, end_s: float, out: Path) -> None:
    """Copy the packets from the keyframe at or before `start_s` until `end_s` into `out`."""
    from ..video.container import open_video

    av = require("av", "video")
    with open_video(video) as source, av.open(str(out), "w", format="mp4") as sink:
        stream = source.stream
        start_pts = source.origin_pts + round(Fraction(start_s) / source.time_base)
        end_pts = source.origin_pts + round(Fraction(end_s) / source.time_base)
        source.container.seek(start_pts, stream=stream, backward=True, any_frame=False)
        target = sink.add_stream_from_template(stream)
        offset = None
        for packet in source.container.demux(stream):
            if packet.dts is None or packet.pts is None:
                continue
            if offset is None:
                if not packet.is_keyframe:
                    continue
                offset = packet.pts
            if packet.dts >= end_pts and packet.pts >= end_pts:
                break
            packet.pts -= offset
            packet.dts -= offset
            packet.stream = target
            sink.mux(packet)
        if offset is None:
            raise UserError(f"{video}: no keyframe before {format_time(end_s)} to cut from")


def cut_exact(video: Path, start_s: float, end_s: float, out: Path) -> None:
    """Re-encode the frames whose display time's middle lies in `[start_s, end_s)`."""
    from ..video.writer import VideoWriter

    writer, first_s = None, None
    try:
        for frame, pts_s, fps in _frames(video, start_s, end_s):
            if writer is None:
                height, width = (d - d % 2 for d in frame.shape[:2])
                writer = VideoWriter(out, width, height, fps=fps, crf=18)
                first_s = pts_s
            writer.write(frame[: writer.height, : writer.width], pts_s=pts_s - first_s)
    finally:
        if writer is not None:
            writer.close()
    if writer is None:
        raise UserError(f"{video}: no frame between {format_time(start_s)} and "
                        f"{format_time(end_s)}")  # fmt: skip


def _frames(video: Path, start_s: float, end_s: float) -> Iterator[tuple]:
    """`(RGB frame, display time in s, fps)` for each frame shown inside the span."""
    from ..video.container import open_video

    with open_video(video) as source:
        half_frame_s = 0.5 / float(source.fps)
        seek_pts = source.origin_pts + round(Fraction(start_s) / source.time_base)
        source.container.seek(seek_pts, stream=source.stream, backward=True, any_frame=False)
        for frame in source.container.decode(source.stream):
            if frame.pts is None:
                continue
            pts_s = float((frame.pts - source.origin_pts) * source.time_base)
            middle_s = pts_s + half_frame_s
            if middle_s >= end_s:
                break
            if middle_s >= start_s:
                yield frame.to_ndarray(format="rgb24"), pts_s, source.fps
