"""Tracks from per-frame boxes: ByteTrack as the `trackers` library implements it (the
successor of supervision's `ByteTrack`, by the same authors). No tracking code is written
here: the adapter feeds each sampled frame's boxes with its time and reads back the ids.

ByteTrack was kept over norfair on the project's data (perf/tracker_compare.py: MOTA and
IDF1 on generated videos with exact boxes and on vtest.avi; docs/tracks.md has the table).
"""

from __future__ import annotations

import numpy as np

from ..errors import require
from ..track import Track, box_iou
from .detections import Detections

#: Seconds a track may go unseen before it ends. (`trackers` counts this buffer in frames of
#: a 30 fps video whatever the rate, so it is given as `LOST_S * 30`; phase A gave it in
#: frames of the sampling rate, which left a track one sampled frame of memory.)
LOST_S = 2.0
#: Boxes with at least this score may start a track or match in ByteTrack's first stage.
START_SCORE = 0.5


def follow(
    detections: Detections, times_s: np.ndarray, label: str = "", lost_s: float = LOST_S
) -> list[Track]:
    """Link the boxes of N sampled frames into tracks.

    Args:
        detections: boxes per frame (`frames` index `times_s`).
        times_s: `(N,)` increasing seconds of evenly sampled frames.
        label: what every track shows.
        lost_s: seconds a track may go unseen (no box matched) and still go on.

    Returns:
        Tracks numbered from 0 in order of their first frame. ByteTrack confirms a track
        when it is matched in two frames running; a box it never confirms belongs to none.

    >>> d = Detections([[0.1, 0.1, 0.3, 0.5]] * 4, [0.9] * 4, [0, 1, 2, 3])
    >>> [len(t) for t in follow(d, np.arange(4) * 0.5, "person")]
    [4]
    """
    sv = require("supervision", "tracks")
    trackers = require("trackers", "tracks")
    times_s = np.asarray(times_s, dtype=np.float64)
    rate = 1.0 / float(np.median(np.diff(times_s))) if len(times_s) > 1 else 1.0
    tracker = trackers.ByteTrackTracker(
        lost_track_buffer=max(1, round(lost_s * 30)),  # frames of 30 fps, see LOST_S
        frame_rate=rate,
        track_activation_threshold=START_SCORE,
        high_conf_det_threshold=START_SCORE,
    )
    rows: dict[int, list] = {}
    spawned: list = []  # the previous frame's boxes without an id: maybe a track's first
    for k, t_s in enumerate(times_s):
        here = detections.in_frame(k)
        found = sv.Detections(xyxy=here.boxes * 1000.0, confidence=here.scores)
        out = tracker.update(found)  # fixed-rate mode: the library's timestamp mode
        # dropped every young track on evenly spaced frames (trackers 2.6.1)
        unassigned = []
        for box, score, tid in zip(out.xyxy / 1000.0, out.confidence, out.tracker_id):
            row = (t_s, np.clip(box, 0.0, 1.0), score)
            if tid < 0:
                unassigned.append(row)
                continue
            if tid not in rows:  # confirmed now: its first box came a frame before, unnamed
                rows[int(tid)] = _first_box(spawned, row[1])
            rows[int(tid)].append(row)
        spawned = unassigned
    return tracks_of(rows, label)


def _first_box(spawned: list, box: np.ndarray) -> list:
    """The box among the previous frame's unnamed ones that a track just confirmed began
    with (the one overlapping its box most; the tracker matched it there), taken out."""
    if not spawned:
        return []
    overlap = box_iou(np.array([r[1] for r in spawned]), np.tile(box, (len(spawned), 1)))
    best = int(np.argmax(overlap))
    return [spawned.pop(best)] if overlap[best] > 0 else []


def tracks_of(rows: dict[int, list], label: str) -> list[Track]:
    """`Track`s from `{tracker id: [(time_s, box, score), ...]}`, renumbered from 0 by first
    time (one box per time: a second one at the same time is dropped)."""
    tracks = []
    for tid in sorted(rows, key=lambda t: (rows[t][0][0], t)):
        times, boxes, scores = (np.array(v, dtype=np.float64) for v in zip(*rows[tid]))
        keep = np.r_[True, np.diff(times) > 0]
        tracks.append(
            Track(boxes[keep].reshape(-1, 4), times[keep], scores[keep], len(tracks), label)
        )
    return tracks
