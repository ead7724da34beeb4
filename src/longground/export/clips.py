"""One playable MP4 per moment, cut with PyAV, with the video's sound.

By default the packets are copied (no re-encoding, fast, lossless) from the keyframe at or
before the moment's start up to its end, so a clip may start up to one keyframe interval
early. `exact=True` decodes and re-encodes (H.264) only the frames shown inside the moment;
so does a moment that carries tracks (`find --tracks`), whose boxes are drawn on its frames
(`overlay.draw_tracks`).
The first audio stream goes along, from the clip's first frame to its end: its packets are
copied when MP4 holds its codec (AAC, MP3, AC-3, E-AC-3, ALAC), and re-encoded as AAC
otherwise (PCM from a .mov, Vorbis from a .webm).
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from fractions import Fraction
from pathlib import Path

from ..errors import UserError, require
from ..timecode import format_time
from .found import Found
from .overlay import draw_tracks

#: Audio codecs an MP4 holds as they are (their packets are copied).
MP4_AUDIO = frozenset({"aac", "mp3", "ac3", "eac3", "alac"})


def clip_name(video: Path, start_s: float, end_s: float) -> str:
    """`<stem>_<HH-MM-SS.mmm>-<HH-MM-SS.mmm>.mp4`: zero-padded, so name order is time order.

    >>> clip_name(Path("/v/game.mkv"), 61.5, 3725.25)
    'game_00-01-01.500-01-02-05.250.mp4'
    """

    def stamp(t: float) -> str:
        return format_time(t, decimals=3).replace(":", "-")

    return f"{video.stem}_{stamp(start_s)}-{stamp(end_s)}.mp4"


def clip_pattern(video: Path) -> re.Pattern:
    """The names `clip_name` can give `video`'s clips (to find, before a search, the files
    a search could replace).

    >>> bool(clip_pattern(Path("game.mkv")).fullmatch("game_00-01-01.500-01-02-05.250.mp4"))
    True
    """
    stamp = r"\d{2,}-\d{2}-\d{2}\.\d{3}"
    return re.compile(re.escape(video.stem) + f"_{stamp}-{stamp}\\.mp4")


def existing_clips(videos: list[Path], folder: Path) -> list[Path]:
    """Files in `folder` that a clip of one of `videos` could be written over."""
    if not folder.is_dir():
        return []
    patterns = [clip_pattern(video) for video in videos]
    return sorted(p for p in folder.iterdir() if any(x.fullmatch(p.name) for x in patterns))


def planned_clips(
    found: list[Found], folder: Path, overwrite: bool = False
) -> list[tuple[Path, float, float, Path]]:
    """`(video, start_s, end_s, clip path)` for every moment, refusing clips that would
    replace a file already in `folder` (unless `overwrite`) or share a name (two videos with
    one name).

    Raises:
        UserError: a clip's file exists already, or two clips would get one name.
    """
    plan, seen = [], set()
    for item in found:
        for start_s, end_s in item.moments.spans:
            path = folder / clip_name(item.video, float(start_s), float(end_s))
            if path in seen:
                raise UserError(f"--clips: two moments would both be written to {path}")
            if path.exists() and not overwrite:
                raise UserError(f"--clips: {path} exists; pass --overwrite to replace it, or "
                                "choose another folder")  # fmt: skip
            seen.add(path)
            plan.append((item.video, float(start_s), float(end_s), path))
    return plan


def write_clips(
    found: list[Found], folder: Path, exact: bool = False, overwrite: bool = False
) -> list[Path]:
    """Write each moment of `found` as `folder/<clip_name>`; returns the paths in time order.
    A moment with tracks is re-encoded with its boxes drawn, whatever `exact` says."""
    plan = planned_clips(found, folder, overwrite)
    folder.mkdir(parents=True, exist_ok=True)
    drawn = {folder / clip_name(item.video, float(s), float(e)): item.moment_tracks(k)
             for item in found for k, (s, e) in enumerate(item.moments.spans)}  # fmt: skip
    for video, start_s, end_s, path in plan:
        pictures = path.with_name(f".{path.stem}.video.mp4")
        temporary = path.with_name(f".{path.stem}.part.mp4")
        tracks = drawn.get(path, ())
        try:
            if tracks:
                first_s = cut_exact(video, start_s, end_s, pictures, tracks)
            else:
                first_s = (cut_exact if exact else cut_copy)(video, start_s, end_s, pictures)
            with_audio(pictures, video, first_s, end_s, temporary)
            os.replace(temporary, path)
        finally:
            pictures.unlink(missing_ok=True)
            temporary.unlink(missing_ok=True)
    return [p for *_, p in plan]


def cut_copy(video: Path, start_s: float, end_s: float, out: Path) -> float:
    """Copy the video packets from the keyframe at or before `start_s` until `end_s` into
    `out`; returns the time of that keyframe (the clip's first frame), in seconds."""
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
        return float((offset - source.origin_pts) * source.time_base)


def cut_exact(video: Path, start_s: float, end_s: float, out: Path, tracks=()) -> float:
    """Re-encode the frames whose display time's middle lies in `[start_s, end_s)`, with the
    boxes of `tracks` drawn on them; returns the first one's display time, in seconds."""
    from ..video.writer import VideoWriter

    writer, first_s = None, None
    try:
        for frame, pts_s, fps in _frames(video, start_s, end_s):
            frame = draw_tracks(frame, tracks, pts_s) if tracks else frame
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
    return first_s


def with_audio(pictures: Path, video: Path, first_s: float, end_s: float, out: Path) -> None:
    """`pictures` (a video-only MP4 whose first frame shows `video` at `first_s`) with the
    first audio stream of `video` from `first_s` to `end_s`, written to `out`."""
    from ..video.container import open_video

    av = require("av", "video")
    with open_video(video) as source, av.open(str(pictures)) as cut, \
            av.open(str(out), "w", format="mp4") as sink:  # fmt: skip
        audio = source.container.streams.audio[0] if source.container.streams.audio else None
        picture = sink.add_stream_from_template(cut.streams.video[0])
        copy = audio is not None and audio.codec_context.name in MP4_AUDIO
        if audio is None:
            sound = None
        elif copy:
            sound = sink.add_stream_from_template(audio)
        else:  # every stream is added before the first packet is written
            layout = audio.codec_context.layout.name
            sound = sink.add_stream("aac", rate=audio.codec_context.sample_rate or 48000,
                                    layout=layout)  # fmt: skip
        for packet in cut.demux(cut.streams.video[0]):
            if packet.dts is not None:
                packet.stream = picture
                sink.mux(packet)
        if audio is None:
            return
        origin_s = float(source.origin_pts * source.time_base)
        span = (origin_s + first_s, origin_s + end_s)
        (_copy_audio if copy else _encode_audio)(source.container, audio, sound, sink, span)


def _copy_audio(container, audio, target, sink, span: tuple[float, float]) -> None:
    """Copy the audio packets that start inside `span` (container seconds), shifted to 0."""
    base = Fraction(audio.time_base)
    shift = round(Fraction(span[0]) / base)
    container.seek(round(span[0] * 1_000_000), backward=True, any_frame=False)
    for packet in container.demux(audio):
        if packet.pts is None or packet.dts is None:
            continue
        start_s = float(packet.pts * base)
        if start_s >= span[1]:
            break
        if start_s < span[0]:
            continue
        packet.pts -= shift
        packet.dts -= shift
        packet.stream = target
        sink.mux(packet)


def _encode_audio(container, audio, target, sink, span: tuple[float, float]) -> None:
    """Decode the audio inside `span` (container seconds) and encode it as AAC."""
    av = require("av", "video")
    rate = target.codec_context.sample_rate
    resampler = av.AudioResampler(format="fltp", layout=target.codec_context.layout, rate=rate)
    container.seek(round(span[0] * 1_000_000), backward=True, any_frame=False)
    sent = 0
    for frame in container.decode(audio):
        if frame.pts is None:
            continue
        start_s = float(frame.pts * frame.time_base)
        if start_s >= span[1]:
            break
        if start_s + frame.samples / frame.sample_rate <= span[0]:
            continue
        for out in resampler.resample(frame):
            out.pts, sent = sent, sent + out.samples
            sink.mux(target.encode(out))
    for out in resampler.resample(None):
        out.pts, sent = sent, sent + out.samples
        sink.mux(target.encode(out))
    sink.mux(target.encode(None))


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
