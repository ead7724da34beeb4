"""Spatio-temporal grounding files: a query's span in seconds plus the target's track.

Three layouts are read into the same `Tube`s:

- the canonical JSON Lines, one query a line: `{"qid", "video", "query", "fps", "span":
  [start_s, end_s], "track": {"times_s": [...], "boxes": [[x0, y0, x1, y1], ...]}}` with
  boxes as fractions of the frame (`Track.to_dict`); predictions the same without "video",
  "query" and "fps";
- HC-STVG, as released (a JSON object keyed by video file: `img_num`, `width`, `height`,
  `st_frame`, `bbox` `[[x, y, w, h], ...]` one per frame from `st_frame`, `caption`) or as
  TubeDETR's preprocessing writes it (a JSON list: `video_id`, `frame_count`, `width`,
  `height`, `tube_start_frame`, `tube_end_frame` (excluded), `trajectory`, `caption`).
  Every HC-STVG video is 20 s long, so its frame rate is `frame_count / 20`;
- VidSTG as TubeDETR's preprocessing writes it: `{"videos": [{video_id, original_video_id,
  fps, width, height, tube_start_frame, tube_end_frame, target_id, caption}, ...],
  "trajectories": {original_video_id: {target_id: {frame: {"bbox": [x, y, w, h]}}}}}`.

Frame `f` of a video at `fps` plays at `f / fps` seconds; a tube spans frames
`[start, end)`. Pixel boxes are divided by the frame's size (and cut to it: annotations
overrun the frame by a pixel now and then).
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ..errors import BadInputFile
from ..track import Track
from . import fields
from .records import Where, read_text, records
from .tracks import track_of

HCSTVG_VIDEO_S = 20.0


@dataclass(frozen=True)
class Tube:
    """One query's answer: a span in seconds and the target's boxes within it.

    Args:
        qid: the query's id.
        span: `(start_s, end_s)`, `end_s >= start_s`.
        track: the target's boxes; the protocol reads those inside the span.
        fps: the frame grid the truth is annotated on (None for a prediction).
        query: the sentence (empty for a prediction).
    """

    qid: str
    span: tuple[float, float]
    track: Track
    fps: float | None = None
    query: str = ""


def read_tubes(path: str | Path, truth: bool) -> list[Tube]:
    """The tubes of a file in any of the three layouts (see the module's docstring).

    Args:
        path: the file.
        truth: whether it is ground truth (then each tube needs a frame rate).

    Raises:
        BadInputFile: the first unusable record, naming file, line and qid.
    """
    path = Path(path)
    text = read_text(path)
    start = text.lstrip()[:1]
    if start in "[{" and path.suffix.lower() == ".json":
        try:
            top = json.loads(text)
        except ValueError:
            top = None
        if isinstance(top, dict) and "videos" in top and "trajectories" in top:
            return vidstg_tubes(top, path)
        if isinstance(top, dict) and top and all(_is_hcstvg(v) for v in top.values()):
            return [hcstvg_tube(k, v, Where(path, None)) for k, v in top.items()]
        if isinstance(top, list) and top and all(_is_hcstvg(v) for v in top):
            return [hcstvg_tube(None, v, Where(path, None)) for v in top]
    return [canonical_tube(r, path, truth) for r in _checked(records(path, text), path)]


def _checked(found, path: Path):
    for record in found:
        if record.error is not None:
            raise BadInputFile(str(path), record.line, record.error)
        yield record


def canonical_tube(record, path: Path, truth: bool) -> Tube:
    """A tube from one canonical line."""
    where = Where(path, record.line)
    value = record.value
    if not isinstance(value, dict):
        raise where.error("expected a JSON object")
    where = where.at(fields.qid_field(value, "qid", where))
    span = fields.required(value, "span", where)
    if not isinstance(span, list) or len(span) != 2:
        raise where.error(f"span must be [start_s, end_s], got {span!r}")
    start_s, end_s = (fields.seconds(v, "span", where) for v in span)
    if end_s < start_s:
        raise where.error(f"span [{start_s:g}, {end_s:g}] ends before it starts")
    fps = None
    if truth:
        fps = fields.seconds(fields.required(value, "fps", where), "fps", where)
        if fps <= 0:
            raise where.error(f"fps must be positive, got {fps:g}")
    track = track_of(fields.required(value, "track", where), where)
    query = fields.text_field(value, "query", where) if truth and "query" in value else ""
    return Tube(where.qid, (start_s, end_s), track, fps, query)


def _is_hcstvg(value: object) -> bool:
    return isinstance(value, dict) and (
        {"st_frame", "bbox"} <= value.keys() or {"tube_start_frame", "trajectory"} <= value.keys()
    )


def hcstvg_tube(key: str | None, video: dict, where: Where) -> Tube:
    """One HC-STVG video's tube, from the released layout (`key` = its file name) or from
    TubeDETR's (`key` None)."""
    released = key is not None
    qid = Path(key).stem if released else str(video.get("video_id", ""))
    where = where.at(qid)
    frames = fields.required(video, "img_num" if released else "frame_count", where)
    boxes = fields.required(video, "bbox" if released else "trajectory", where)
    first = fields.required(video, "st_frame" if released else "tube_start_frame", where)
    size = (fields.required(video, "width", where), fields.required(video, "height", where))
    fps = _positive(frames, "frame count", where) / HCSTVG_VIDEO_S
    first = _whole(first, "tube start frame", where)
    if not isinstance(boxes, list):
        raise where.error("the boxes must be a list of [x, y, w, h]")
    end = first + len(boxes)
    if not released:
        end = _whole(video.get("tube_end_frame", end), "tube end frame", where)
    track = pixel_track(boxes, np.arange(first, first + len(boxes)), fps, size, where)
    return Tube(qid, (first / fps, end / fps), track, fps, str(video.get("caption", "")))


def vidstg_tubes(top: dict, path: Path) -> list[Tube]:
    """The tubes of TubeDETR's VidSTG file."""
    if not isinstance(top["videos"], list) or not isinstance(top["trajectories"], dict):
        raise BadInputFile(str(path), None, "'videos' must be a list, 'trajectories' an object")
    tubes = []
    for video in top["videos"]:
        where = Where(path, None)
        if not isinstance(video, dict):
            raise where.error("every entry of 'videos' must be an object")
        where = where.at(fields.qid_field(video, "video_id", where))
        fps = _positive(fields.required(video, "fps", where), "fps", where)
        size = (fields.required(video, "width", where), fields.required(video, "height", where))
        first = _whole(fields.required(video, "tube_start_frame", where), "tube start", where)
        end = _whole(fields.required(video, "tube_end_frame", where), "tube end frame", where)
        target = str(fields.required(video, "target_id", where))
        original = str(fields.required(video, "original_video_id", where))
        frames = top["trajectories"].get(original)
        frames = frames.get(target) if isinstance(frames, dict) else None
        if not isinstance(frames, dict):
            raise where.error(f"no trajectory of target {target} in video {original}")
        try:
            numbers = sorted(int(f) for f in frames if first <= int(f) < end)
            boxes = [frames[str(f)]["bbox"] for f in numbers]
        except (ValueError, KeyError, TypeError):
            raise where.error(f"unreadable trajectory of target {target}") from None
        track = pixel_track(boxes, np.array(numbers, dtype=int), fps, size, where)
        caption = str(video.get("caption", ""))
        tubes.append(Tube(where.qid, (first / fps, end / fps), track, fps, caption))
    return tubes


def _whole(value, name: str, where: Where) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise where.error(f"{name} must be a whole number >= 0, got {value!r}")
    return value


def _positive(value, name: str, where: Where) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float) or not value > 0:
        raise where.error(f"{name} must be a positive number, got {value!r}")
    if not math.isfinite(value):
        raise where.error(f"{name} must be finite, got {value!r}")
    return float(value)


def pixel_track(boxes, frames: np.ndarray, fps: float, size, where: Where) -> Track:
    """A track from `[x, y, w, h]` pixel boxes at frame numbers `frames`."""
    width, height = (_positive(v, "frame size", where) for v in size)
    try:
        xywh = np.array(boxes, dtype=np.float64).reshape(-1, 4)
    except (TypeError, ValueError):
        raise where.error("boxes must be [x, y, w, h] numbers") from None
    if not np.isfinite(xywh).all() or (xywh[:, 2:] < 0).any():
        raise where.error("a box is not finite or has a negative size")
    xyxy = np.c_[xywh[:, :2], xywh[:, :2] + xywh[:, 2:]] / [width, height, width, height]
    try:
        return Track(np.clip(xyxy, 0.0, 1.0), frames / fps)
    except ValueError as exc:
        raise where.error(str(exc)) from None
