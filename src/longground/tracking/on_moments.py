"""Tracks on found moments: the target's boxes through each moment a method found.

A step after grounding, not part of any method: the moments are given, the target's words
come from the query analysis (`target_words`), and each moment is sampled at `TRACK_FPS`
(denser when it is short: at least `MIN_SAMPLES` frames), localised and followed on its
own (shot by shot, with `at_cuts`). The frames are decoded at the size the localiser
looks at, in a thread that runs a batch or two ahead of the localiser (`index.prefetch`),
and handled a batch at a time, so a long moment costs time, not memory. The localiser sees
the frames coarse to fine (`sparse.SparseLocaliser`: a frame every 2 s, and more only where
the boxes change; a frame whose picture did not change keeps the boxes it had, by the
index's change gate), so a still or smoothly moving object costs a localisation every two
seconds.

A moment found by speech or on-screen text has no track: `target_words` gives None for
such a query, and nothing is invented for it.
"""

from __future__ import annotations

import math
from dataclasses import replace
from itertools import groupby
from operator import itemgetter
from pathlib import Path

import numpy as np

from ..errors import UserError
from ..index.change import ChangeGate
from ..index.prefetch import prefetch
from ..moments import Moments
from ..progress import progress_bar
from ..track import Track
from . import sparse as coarse
from .detections import Detections
from .follow import follow
from .localise import localiser_for
from .sparse import SparseLocaliser

#: Frames a second sampled inside a moment: a walker moves a fifth of its width between
#: samples (vtest.avi), so ByteTrack's overlap matching holds (at 2 fps it broke tracks).
TRACK_FPS = 5.0
#: A moment shorter than this many samples at `TRACK_FPS` is sampled faster (up to the
#: video's own rate), so ByteTrack, which confirms a track on its second frame, sees it.
MIN_SAMPLES = 3
#: Channels whose moments never carry a track: their evidence is not in the picture.
UNTRACKED_CHANNELS = frozenset({"speech", "text"})
#: Frames whose thumbnail changed less than this keep the last localised frame's boxes. The
#: index's gate (12 rows, a block 24 levels) let 283 of vtest.avi's 398 frames at 5 fps
#: through and the walkers' tracks broke (35 tracks against 28); with blocks half as wide and
#: 16 levels, 396 go through (the same 28 tracks) and a generated video's still shots keep
#: their savings (279 of 900 frames localised against 248). perf/tracks_figure.py.
GATE = ChangeGate(mean_levels=2.0, block_levels=16.0, rows=24)


def target_words(query: str, channel: str | None = None) -> tuple[str | None, str]:
    """The words a localiser looks for to track `query`'s target, or None and why not.

    None when the target is answered from speech or on-screen text (by the query analysis,
    or by `channel`, the channel a method's trace says answered), or when no localiser
    knows it. Tries, in order, the target's text, the words its channel looks for, its head
    noun and the vocabulary word for it ("kitty" -> "cat").

    >>> target_words("how many cars pass")[0], target_words("count every person who enters")[0]
    ('cars pass', 'person who enters')
    >>> target_words("when does the speaker say hello")
    (None, 'the speech channel answers it: it finds words, not objects')
    >>> target_words("when is the cat not on screen")[1]
    "the moments are where 'the cat' is not shown"
    """
    from ..query import analyse

    analysis = analyse(query)
    target = analysis.target
    if analysis.hidden:
        return None, f"the moments are where {target.text!r} is not shown"
    if analysis.adjacent:
        side = analysis.relation.value.split()[-1]
        return None, f"the moments are the shots {side} {analysis.conditions[0].text!r}"
    for answered_by in (target.route.channel, channel):
        if answered_by in UNTRACKED_CHANNELS:
            return None, f"the {answered_by} channel answers it: it finds words, not objects"
    for words in (target.text, target.route.needle, target.subject, target.known_as):
        if not words:
            continue
        try:
            localiser_for(words)
        except UserError:
            continue
        return words, ""
    return None, (f"cannot find {target.text!r} in the frame: name a person, a face or an "
                  "ImageNet class (a dog, a car, a cup; docs/tracks.md)")  # fmt: skip


def moment_times(start_s: float, end_s: float, fps: float, max_fps: float) -> np.ndarray:
    """The sample times inside `[start_s, end_s)`: the multiples of `1 / fps` s there (one
    grid for the whole video, so the boxes of two moments, or of a track and the video's
    own frames at a multiple of `fps`, fall on the same times), or, for a moment too short
    for `MIN_SAMPLES` of them, the multiples of a faster rate (up to `max_fps`). Empty for
    a moment of no length.

    >>> moment_times(10.1, 11.1, 5.0, 25.0).round(3).tolist()
    [10.2, 10.4, 10.6, 10.8, 11.0]
    >>> moment_times(3.0, 3.3, 5.0, 25.0).round(3).tolist()
    [3.0, 3.1, 3.2]
    """
    length_s = end_s - start_s
    if not length_s > 0:
        return np.zeros(0)
    rate = min(max(fps, MIN_SAMPLES / length_s), max(fps, max_fps))
    first = math.ceil(start_s * rate - 1e-9)
    times = np.arange(first, math.ceil(end_s * rate - 1e-9)) / rate
    return times if len(times) else np.array([start_s])


def tracks_on(
    video: str | Path,
    moments: Moments,
    target: str,
    fps: float = TRACK_FPS,
    progress: bool = True,
    at_cuts: bool = False,
) -> list[list[Track]]:
    """The tracks of `target` inside each moment of `video`.

    Args:
        video: the searched video.
        moments: the found moments (`(K, 2)` spans in seconds).
        target: what to localise, in words (`target_words`).
        fps: samples a second inside each moment.
        progress: show a bar on a terminal.
        at_cuts: end every track at a cut (`ShotStarts`). Off for counts and tubes: at 5 fps
            an object entering the frame changes it as much as a cut does (on a generated
            3-minute benchmark the true spans' objects count MAE went from 0.33 to 0.78);
            on for telling people apart, where a track across the cut between two talking
            heads at one place joins two people and a needless split costs nothing (the
            pieces' looks join them again).

    Returns:
        K lists of tracks, one per moment in the order given; track ids run on across the
        moments (unique in the video), each track labelled `target`.

    Raises:
        UserError: no localiser knows `target`, or the video cannot be read.
    """
    from ..video import probe

    localiser = localiser_for(target)
    side = localiser.decode_side(target)
    video_fps = float(probe(video).fps or fps)
    plans = [moment_times(float(s), float(e), fps, video_fps) for s, e in moments.spans]
    out: list[list[Track]] = [[] for _ in plans]
    next_id = 0
    decoded = prefetch(_moment_batches(video, plans, fps, side))  # decoding beside localising
    total = sum(len(p) for p in plans)
    with progress_bar(total, "tracks", "frame", progress) as bar:
        for k, batches in groupby(decoded, key=itemgetter(0)):
            sparse = SparseLocaliser(localiser, target, GATE, coarse.STEP)
            parts, seen, shots = [], [], ShotStarts() if at_cuts else None
            for _, batch in batches:
                found = sparse(batch.frames)
                parts.append(replace(found, frames=found.frames + sum(map(len, seen))))
                if shots is not None:
                    shots.add(batch.frames)
                seen.append(batch.times_s)
                bar.update(len(batch))
            tracks = _followed(Detections.concat(parts), np.concatenate(seen), target, shots)
            out[k] = [_renumbered(t, next_id + j) for j, t in enumerate(tracks)]
            next_id += len(tracks)
    return out


class ShotStarts:
    """Where the shots of a run of frames start, fed a batch at a time: the index (in the
    whole run) of each frame that follows a cut (`agent.perception.cuts.cuts`, the agent's
    one cut detector)."""

    def __init__(self):
        self.starts: list[int] = []
        self._seen, self._last = 0, None

    def add(self, frames: np.ndarray) -> None:
        from ..agent.perception.cuts import cuts, shrink

        small = shrink(frames)
        joined = small if self._last is None else np.concatenate([self._last[None], small])
        first = self._seen - (self._last is not None)  # run index of joined[0]
        self.starts += [first + 1 + int(i) for i in np.flatnonzero(cuts(joined))]
        self._seen += len(frames)
        self._last = small[-1] if len(small) else self._last


def _followed(
    detections: Detections, times_s: np.ndarray, target: str, shots: ShotStarts | None
):
    """Tracks of `detections`, followed shot by shot when `shots` are given (a track never
    runs across a cut), in order of their first box."""
    bounds = [0, *([] if shots is None else shots.starts), len(times_s)]
    tracks = []
    for a, b in zip(bounds[:-1], bounds[1:]):
        inside = (detections.frames >= a) & (detections.frames < b)
        part = detections[inside]
        tracks += follow(replace(part, frames=part.frames - a), times_s[a:b], target)
    return sorted(tracks, key=lambda t: t.start_s)


def _moment_batches(video, plans: list[np.ndarray], fps: float, side: int):
    """`(k, batch)`: the sampled frames of moment `k`, a batch at a time, moment after moment."""
    from ..video import sample_frames

    for k, times in enumerate(plans):
        if not len(times):
            continue
        rate = 1.0 / float(times[1] - times[0]) if len(times) > 1 else fps
        for batch in sample_frames(video, rate, float(times[0]), float(times[-1]) + 0.5 / rate,
                                   short_side=side):  # fmt: skip
            yield k, batch


def _renumbered(track: Track, track_id: int) -> Track:
    return replace(track, track_id=track_id)
