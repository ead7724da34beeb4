"""The exact box of every placed object in every frame: ground truth for spatial grounding.

The renderer draws each appearance at `script.boxes_at` (rotated about its centre for the
falling targets), so the boxes are read from the same geometry: the sprite's box in pixels
(rounded as `script.pixel_box` rounds it; when rotated, the whole pixels around its
axis-aligned extent), cut to the
frame and divided by the frame's size. A frame where an appearance is off screen or not yet
shown has no box. One `Track` per appearance per shot, numbered in video order; a photo seen
in two shots gets two tracks that share its `instance` (category and look).
"""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path

import numpy as np

from ..formats.lines import write_jsonl
from ..track import Track
from .script import Appearance, Shot, VideoScript, boxes_at, rotated_extent

BOX_DIR = "boxes"


def appearance_boxes(
    script: VideoScript, shot: Shot, app: Appearance, width: int, height: int
) -> tuple[np.ndarray, np.ndarray]:
    """Where `app` is on screen in each frame of `shot`.

    Returns:
        `(K,)` int frame indices within the shot where it is visible, and their `(K, 4)`
        normalised xyxy boxes cut to the frame.
    """
    t_s = script.local_times(shot)
    boxes, angles = boxes_at(app, shot, t_s, script.aspect)
    x0, y0 = np.round(boxes[:, 0] * height), np.round(boxes[:, 1] * height)
    w = np.maximum(1, np.round((boxes[:, 2] - boxes[:, 0]) * height))
    h = np.maximum(1, np.round((boxes[:, 3] - boxes[:, 1]) * height))
    pixels = rotated_extent(np.stack([x0, y0, x0 + w, y0 + h], axis=1), angles)
    pixels = np.c_[np.floor(pixels[:, :2] + 1e-9), np.ceil(pixels[:, 2:] - 1e-9)]  # whole pixels
    cut = np.clip(pixels, 0, [width, height, width, height]) / [width, height, width, height]
    shown = (t_s >= app.start_s) & (t_s < app.end_s)
    visible = shown & (cut[:, 2] > cut[:, 0]) & (cut[:, 3] > cut[:, 1])
    return np.flatnonzero(visible), cut[visible]


def script_tracks(script: VideoScript, width: int, height: int) -> list[tuple[Track, dict]]:
    """Every appearance's track, with what else is known of it (`shot`, `instance`, `kind`,
    `motion`), in video order.

    >>> from .storyboard import plan_script
    >>> s = plan_script(np.random.default_rng(0), "v", 30.0, Fraction(5), 16 / 9, (2.0, 6.0))
    >>> tracks = script_tracks(s, 160, 90)
    >>> track, about = tracks[0]
    >>> bool(track.boxes.min() >= 0 and track.boxes.max() <= 1), sorted(about)
    (True, ['instance', 'kind', 'motion', 'shot'])
    """
    fps = Fraction(script.fps)
    out = []
    for index, shot in enumerate(script.shots):
        for app in shot.appearances:
            frames, boxes = appearance_boxes(script, shot, app, width, height)
            if not len(frames):
                continue
            times = (shot.start_frame + frames) / float(fps)
            inst = app.instance
            track = Track(boxes, times, None, len(out), inst.category)
            about = {
                "shot": index,
                "instance": f"{inst.category}/{inst.variant}",
                "kind": inst.kind,
                "motion": app.motion,
            }
            out.append((track, about))
    return out


def write_boxes(script: VideoScript, folder: Path, width: int, height: int) -> Path:
    """Write `folder/boxes/NAME.jsonl`: one track per line (`formats.tracks`)."""
    path = folder / BOX_DIR / f"{script.name}.jsonl"
    path.parent.mkdir(parents=True, exist_ok=True)
    lines = [{**about, **track.to_dict()} for track, about in script_tracks(script, width, height)]
    write_jsonl(path, lines)
    return path
