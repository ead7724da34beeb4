"""Tracks of hits, on demand: the page asks for a hit's tracks (`GET /api/tracks`) when its
"tracks" box is ticked, and draws them over the thumbnail and the player.

A hit's tracks are computed once (one at a time, like the answers), by a `Tracker`: the
real one follows the query's target through the moment (`tracking.on_moments`); tests hand
in a fake. The answer holds every box of every track (the player draws the box at its
time, moving linearly between samples as `Track.boxes_at` does) and, for the thumbnail, the
time it should show (`export.overlay.shown_time`) with the boxes there.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable
from pathlib import Path
from urllib.parse import urlencode

from ..errors import UserError
from ..export.overlay import MAX_GAP_S, colour, shown_time
from ..moments import Moments
from ..track import Track
from .library import Video, signature

#: `(video, query, one moment, the channel that answered) -> (its tracks, or None and why)`.
Tracker = Callable[[Path, str, Moments, str | None], tuple[list[Track] | None, str]]
#: Hits whose tracks are kept in memory.
KEEP_TRACKS = 2_000


def follow_moment(video: Path, query: str, moment: Moments,
                  channel: str | None) -> tuple[list[Track] | None, str]:  # fmt: skip
    """The real `Tracker`: the query's target followed through the moment."""
    from ..tracking.on_moments import target_words, tracks_on

    words, why = target_words(query, channel)
    if words is None:
        return None, why
    return tracks_on(video, moment, words, progress=False)[0], ""


class HitTracks:
    """Each hit's tracks, computed once (one at a time) and kept.

    Args:
        tracker: what follows the target through a moment.
        keep: how many hits' tracks to keep (the least recently used go first).
    """

    def __init__(self, tracker: Tracker = follow_moment, keep: int = KEEP_TRACKS):
        self.tracker, self.keep = tracker, keep
        self._kept: OrderedDict[tuple, dict] = OrderedDict()
        self._lock = threading.Lock()
        self._work = threading.Lock()

    def of(self, video: Video, query: str, k: int, moment: Moments,
           channel: str | None) -> dict:  # fmt: skip
        """The page's answer for hit `k` of `video` (see `tracks_answer`)."""
        key = (video.id, signature(video.path), query, k)
        with self._lock:
            if key in self._kept:
                self._kept.move_to_end(key)
                return self._kept[key]
        with self._work:
            with self._lock:
                if key in self._kept:
                    return self._kept[key]
            try:
                tracks, note = self.tracker(video.path, query, moment, channel)
            except UserError as exc:
                tracks, note = None, str(exc).removeprefix(f"{video.path}: ")
            answer = tracks_answer(video, k, moment, tracks, note)
        with self._lock:
            self._kept[key] = answer
            while len(self._kept) > self.keep:
                self._kept.popitem(last=False)
        return answer


def tracks_answer(video: Video, k: int, moment: Moments, tracks: list[Track] | None,
                  note: str) -> dict:  # fmt: skip
    """`{"hit", "tracks": [Track.to_dict() + "colour"], "note", "max_gap_s", "thumb": {"t_s",
    "url", "boxes": [{"track_id", "box", "colour"}]}}`; `note` says why there are none.

    >>> v = Video("v1", 0, "a.mp4", Path("a.mp4"))
    >>> t = Track([[0.1, 0.1, 0.5, 0.5]] * 2, [1.0, 2.0], None, 0, "cat")
    >>> answer = tracks_answer(v, 0, Moments.from_list([[0.0, 3.0]]), [t], "")
    >>> answer["thumb"]["t_s"], answer["thumb"]["boxes"][0]["colour"], answer["note"]
    (1.5, '#1f77b4', None)
    """
    tracks = tracks or []
    start_s, end_s = (float(v) for v in moment.spans[0])
    t_s = shown_time(start_s, end_s, tracks)
    boxes = [(t, t.boxes_at([t_s], MAX_GAP_S)[0]) for t in tracks]
    return {
        "hit": f"{video.id}:{k}",
        "tracks": [{**t.to_dict(), "colour": _hex(t.track_id)} for t in tracks],
        "note": note or (None if tracks else "no object was followed in this moment"),
        "max_gap_s": MAX_GAP_S,
        "thumb": {
            "t_s": t_s,
            "url": "/api/thumb?" + urlencode({"video": video.id, "t": f"{t_s:.3f}"}),
            "boxes": [{"track_id": t.track_id, "box": box.tolist(), "colour": _hex(t.track_id)}
                      for t, box in boxes if (box == box).all()],  # not NaN
        },
    }  # fmt: skip


def _hex(track_id: int) -> str:
    return "#{:02x}{:02x}{:02x}".format(*colour(track_id))
