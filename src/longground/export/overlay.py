"""Tracks drawn on frames: each track's box at the frame's time (between its samples, the
box moves linearly, `Track.boxes_at`), outlined in the track's colour with its number. The
contact sheet, the timeline strip and the clips all draw with this, so a track has one
colour everywhere (the search app's page uses the same `PALETTE`).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ..track import Track

#: Outline colours by track number (matplotlib's tab10), as RGB.
PALETTE = (
    (31, 119, 180), (255, 127, 14), (44, 160, 44), (214, 39, 40), (148, 103, 189),
    (140, 86, 75), (227, 119, 194), (127, 127, 127), (188, 189, 34), (23, 190, 207),
)  # fmt: skip
#: Samples further apart than this are not bridged: the object was not seen in between.
MAX_GAP_S = 1.0


def colour(track_id: int) -> tuple[int, int, int]:
    """The RGB colour of a track.

    >>> colour(0), colour(10)
    ((31, 119, 180), (31, 119, 180))
    """
    return PALETTE[track_id % len(PALETTE)]


def draw_tracks(frame: np.ndarray, tracks: Sequence[Track], t_s: float) -> np.ndarray:
    """`frame` with the box of every track that has one at `t_s` drawn on it.

    Args:
        frame: `(H, W, 3)` uint8 RGB.
        tracks: the tracks of the moment the frame is in.
        t_s: the frame's time in seconds (on the tracks' clock: from the stream's start).

    Returns:
        A new `(H, W, 3)` uint8 frame (the same one when no box falls on it).

    >>> frame = np.zeros((40, 60, 3), np.uint8)
    >>> drawn = draw_tracks(frame, [Track([[0.25, 0.25, 0.75, 0.75]], [2.0], None, 0)], 2.0)
    >>> drawn[10, 30].tolist(), drawn[20, 30].tolist()
    ([31, 119, 180], [0, 0, 0])
    """
    placed = [(t.track_id, t.boxes_at([t_s], MAX_GAP_S)[0]) for t in tracks]
    placed = [(tid, box) for tid, box in placed if np.isfinite(box).all()]
    if not placed:
        return frame
    from PIL import Image, ImageDraw

    image = Image.fromarray(frame)
    pen = ImageDraw.Draw(image)
    height, width = frame.shape[:2]
    line = max(1, round(min(height, width) / 120))
    for tid, box in placed:
        x0, y0, x1, y1 = (box * [width, height, width, height]).round().astype(int).tolist()
        x1, y1 = max(x1 - 1, x0), max(y1 - 1, y0)  # the box's last pixel, inside it
        pen.rectangle([x0, y0, x1, y1], outline=colour(tid), width=line)
        if min(height, width) >= 90:  # a number is unreadable on smaller frames
            left, top, right, bottom = pen.textbbox((0, 0), str(tid))
            tag_w, tag_h = right - left + 4, bottom - top + 3
            tag_y = max(0, y0 - tag_h)  # above the box, or inside it at the frame's top
            pen.rectangle([x0, tag_y, x0 + tag_w, tag_y + tag_h], fill=colour(tid))
            pen.text((x0 + 2 - left, tag_y + 1 - top), str(tid), fill=(255, 255, 255))
    return np.asarray(image)


def shown_time(start_s: float, end_s: float, tracks: Sequence[Track]) -> float:
    """The time a moment's thumbnail shows: its middle, or, when no track has a box there,
    the box time nearest the middle (so a tracked moment shows its object).

    >>> shown_time(0.0, 10.0, []), shown_time(0.0, 10.0, [Track([[0, 0, 1, 1]] * 2, [7.0, 8.0])])
    (5.0, 7.0)
    """
    middle_s = (start_s + end_s) / 2
    if not tracks or any(np.isfinite(t.boxes_at([middle_s], MAX_GAP_S)).all() for t in tracks):
        return middle_s
    times = np.concatenate([t.times_s for t in tracks])
    return float(times[np.argmin(np.abs(times - middle_s))])
