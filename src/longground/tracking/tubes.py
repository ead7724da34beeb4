"""Tube predictions from found moments with tracks, for the `stvg` protocol.

The protocol scores one answer per query, a span and one object's boxes (HC-STVG, VidSTG).
`find --tracks` gives several moments, each with any number of tracks; `tube_of` reduces
them to one: the best-scoring moment (the first when there are no scores), and in it the
track with the most confidence summed over its boxes (the object seen longest and
surest). The span is the moment's; boxes outside it are left out, as the protocol reads
none there.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ..moments import Moments
from ..track import Track


def main_track(tracks: Sequence[Track]) -> Track | None:
    """The track with the most summed confidence (ties: the first), or None.

    >>> a = Track([[0, 0, 1, 1]] * 2, [0.0, 1.0], [0.5, 0.5], 0)
    >>> b = Track([[0, 0, 1, 1]] * 3, [0.0, 1.0, 2.0], [0.9, 0.9, 0.9], 1)
    >>> main_track([a, b]).track_id, main_track([]) is None
    (1, True)
    """
    if not tracks:
        return None
    return max(tracks, key=lambda t: (float(t.confidence.sum()), -t.track_id))


def tube_of(qid: str, moments: Moments, tracks: Sequence[Sequence[Track]],
            fps: float | None = None) -> dict | None:  # fmt: skip
    """One query's tube prediction line (`{"qid", "span", "track"}`, `formats.stvg`'s
    canonical layout), or None when nothing was found.

    Args:
        qid: the query's id.
        moments: the found moments, `(K, 2)` seconds.
        tracks: K sequences of tracks, those of each moment.
        fps: the truth's frame grid, when known: one box per grid frame is kept (a short
            moment is sampled faster than the grid, and the protocol refuses two boxes on
            one frame).

    >>> m = Moments.from_list([[0.0, 2.0], [5.0, 6.0]], [0.2, 0.9])
    >>> t = Track([[0.1, 0.1, 0.2, 0.2]] * 3, [4.8, 5.0, 5.4], None, 3, "cat")
    >>> tube = tube_of("q1", m, [[], [t]])
    >>> tube["span"], tube["track"]["times_s"]
    ([5.0, 6.0], [5.0, 5.4])
    """
    if not moments.count:
        return None
    best = 0 if moments.scores is None else int(np.argmax(moments.scores))
    start_s, end_s = (float(v) for v in moments.spans[best])
    track = main_track(tracks[best]) if best < len(tracks) else None
    held = track.during(start_s, end_s) if track is not None else Track(np.zeros((0, 4)), [])
    if fps is not None and len(held):
        frames = np.round(held.times_s * fps)
        held = held[np.r_[True, np.diff(frames) > 0]]
    return {"qid": qid, "span": [start_s, end_s], "track": held.to_dict()}
