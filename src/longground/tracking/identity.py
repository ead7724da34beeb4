"""Which one: the looks of a tracked object, for telling identities apart across shots.

Within a shot a track carries identity by itself. Across shots, instances of one kind of
object (two cats, the same cup seen again) are compared by how the object itself looks: each
instance's target is followed through its span (`on_moments.tracks_on`), the span's main track
(the one with the most confidence summed over its boxes) gives crops of the object at its
`CROPS` most confident boxes, and the image encoder's appearance feature of those crops
(`image_features(...)["appearance"]`, L2-normalised), averaged, is the instance's look. Two
looks are the same identity when their cosine reaches a threshold the caller holds
(`agent.settings.AgentSettings.track_same`).

Nothing here knows how the footage was made: no backdrop, no frame halves, no asset
variants. An instance whose target no localiser knows, or where none was followed, has no
look (a row of NaN), and the caller decides it another way.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from ..moments import Moments
from ..track import Track
from .count import counted
from .follow import LOST_S
from .on_moments import target_words, tracks_on

#: Crops a look is averaged over: the main track's most confident boxes.
CROPS = 4
#: Each side of a crop's square around the box, as a share of the box's longer side: the
#: object whole with a little of what surrounds it, as the encoder was trained to see objects.
MARGIN = 0.1
#: The shorter side frames are decoded at for crops, at most (the encoder's input is 224 px
#: square; a box a third of the frame's height still gets about 200 px). Smaller videos are
#: decoded at their own size.
CROP_SIDE = 540
#: What is followed to tell people apart: their faces (a person's whole box is often a
#: pedestrian detector's box on the background: on the held-out montage's jwpIntro clip the
#: main "person" track was the bookcase).
PERSON_TARGET = "a face"
#: Cosine of two face tracks' looks at or above which they show one person: on the tuning
#: montage's seven face clips (45 showings; tracks in the people channel's moments, ended at
#: cuts), two tracks of one face were at least 0.88 alike and tracks of different clips'
#: faces at most 0.82 (docs/tracks.md).
PERSON_SAME = 0.87


def main_track(tracks: list[Track]) -> Track | None:
    """The track with the most confidence summed over its boxes, or None.

    >>> a = Track(np.array([[0, 0, .1, .1]] * 2), np.array([0., 1.]), np.array([.9, .9]))
    >>> b = Track(np.array([[0, 0, .1, .1]] * 3), np.array([0., 1., 2.]), np.array([.7] * 3))
    >>> main_track([a, b]) is b, main_track([])
    (True, None)
    """
    return max(tracks, key=lambda t: float(t.confidence.sum()), default=None)


def square_crop(frame: np.ndarray, box: np.ndarray, margin: float = MARGIN) -> np.ndarray:
    """The square of `frame` `(H, W, 3)` centred on normalised xyxy `box`, its side the box's
    longer side (in pixels) and `margin` of it on each side, cut off by the frame's edges.

    >>> square_crop(np.zeros((100, 200, 3), np.uint8), np.array([0.5, 0.2, 0.6, 0.4])).shape
    (24, 24, 3)
    """
    h, w = frame.shape[:2]
    cx, cy = (box[0] + box[2]) / 2 * w, (box[1] + box[3]) / 2 * h
    half = max((box[2] - box[0]) * w, (box[3] - box[1]) * h) * (0.5 + margin)
    half = max(half, 1.0)
    x0, x1 = int(max(0, round(cx - half))), int(min(w, round(cx + half)))
    y0, y1 = int(max(0, round(cy - half))), int(min(h, round(cy + half)))
    return frame[y0 : max(y1, y0 + 1), x0 : max(x1, x0 + 1)]


class TrackedLooks:
    """`looks(spans, text)`: the look of `text`'s target in each span of one video.

    Args:
        video: the video.
        encoder: an image encoder (`image_features(frames)["appearance"]`).
        crops: crops a look is averaged over.
    """

    def __init__(self, video: str | Path, encoder, crops: int = CROPS):
        self.video, self.encoder, self.crops = Path(video), encoder, crops

    def __call__(self, spans: np.ndarray, text: str) -> np.ndarray:
        """`(K, D)` unit looks of the target of `text` in each `(K, 2)` span in seconds: the
        look of the span's main track; a row of NaN where it has none (no localiser knows
        the target, or nothing was followed there). `(K, 0)` when no span has a look."""
        spans = np.asarray(spans, dtype=np.float64).reshape(-1, 2)
        words, _ = target_words(text)
        if words is None or not len(spans):
            return np.full((len(spans), 0), np.nan)
        tracks = tracks_on(self.video, Moments.from_list(spans.tolist()), words, progress=False)
        return self.of_tracks([main_track(found) for found in tracks])

    def of_tracks(self, tracks: list[Track | None]) -> np.ndarray:
        """`(K, D)` unit looks of K tracks (a row of NaN for None); `(K, 0)` when none has
        one."""
        picks = [self._best_boxes(track) for track in tracks]
        times = sorted({t for pick in picks for t, _ in pick})
        if not times:
            return np.full((len(tracks), 0), np.nan)
        from ..video import frames_at, probe

        info = probe(self.video)
        side = min(CROP_SIDE, info.height, info.width)
        frame_of = dict(zip(times, frames_at(self.video, times, short_side=side).frames))
        looks = None
        for k, pick in enumerate(picks):
            crops = [square_crop(frame_of[t], box) for t, box in pick if t in frame_of]
            if not crops:
                continue
            rows = [self.encoder.image_features(c[None])["appearance"][0] for c in crops]
            mean = np.mean(rows, axis=0, dtype=np.float64)
            if looks is None:
                looks = np.full((len(tracks), len(mean)), np.nan)
            looks[k] = mean / max(np.linalg.norm(mean), 1e-12)
        return looks if looks is not None else np.full((len(tracks), 0), np.nan)

    def _best_boxes(self, track: Track | None) -> list[tuple[float, np.ndarray]]:
        """`(time, box)` of the track's `crops` most confident boxes, in time order."""
        if track is None or not len(track):
            return []
        best = np.sort(np.argsort(-track.confidence, kind="stable")[: self.crops])
        return [(float(track.times_s[i]), track.boxes[i]) for i in best]


class Faces:
    """The face tracks in the people channel's moments of one video and their looks, found
    once (every rank asked of the video reads the same ones).

    Args:
        video: the video.
        moments: the people channel's moments (where persons are seen).
        encoder: an image encoder (`image_features(...)["appearance"]`).

    Attributes:
        tracks: face tracks seen long enough to count (`count.counted`), by first box; each
            ended at a cut (`tracks_on(..., at_cuts=True)`).
        looks: `(K, D)` their unit looks (NaN rows: none), or `(K, 0)`.
    """

    def __init__(self, video: str | Path, moments: Moments, encoder):
        found = tracks_on(video, moments, PERSON_TARGET, progress=False, at_cuts=True)
        self.moments = moments
        self.tracks = sorted((t for f in found for t in f if counted(t)), key=lambda t: t.start_s)
        self.looks = TrackedLooks(video, encoder).of_tracks(self.tracks)

    def people(self, same_at: float = PERSON_SAME) -> list[list[int]]:
        """The tracks grouped into people in order of first appearance: a track joins the
        first person whose first track it looks like (cosine at least `same_at`); a track
        without a look is a person of its own."""
        from ..agent.aggregate import Instance, identity_groups
        from ..agent.scene import same_looks

        k = len(self.tracks)
        same = same_looks(list(self.looks), [None] * k, same_at, 1.0)
        instances = [Instance(t.start_s, t.end_s, 1.0, (i,), None)
                     for i, t in enumerate(self.tracks)]  # fmt: skip
        return identity_groups(instances, same=same)

    def ranked(
        self, rank: int, returns: bool, same_at: float = PERSON_SAME
    ) -> tuple[Moments, dict]:
        """Where the `rank`-th person to appear is seen (1-based; -1 the last), leaving out
        their first appearance with `returns` ("when does the first person come back").

        Returns:
            `(moments, record)`: the person's spans (each track's first to last box, spans
            within `follow.LOST_S` of each other joined; each scored by the best of the
            channel's moments it lies in) and, for the trace, how many people and face
            tracks were told apart.
        """
        people = self.people(same_at) if self.tracks else []
        record = {"people": len(people), "face_tracks": len(self.tracks), "rank": rank,
                  "same_at": same_at}  # fmt: skip
        pick = rank - 1 if rank > 0 else len(people) + rank
        chosen = people[pick] if 0 <= pick < len(people) else []
        spans = [[self.tracks[i].start_s, self.tracks[i].end_s] for i in chosen]
        found = Moments.from_list(spans).merge(LOST_S) if spans else Moments.empty()
        if returns:
            found = found[1:]
        given = self.moments
        scores = given.scores if given.scores is not None else np.zeros(len(given))
        best = [max((float(g) for (s, e), g in zip(given.spans, scores)
                     if s <= a + 1e-6 and b <= e + 1e-6), default=0.0)
                for a, b in found.spans]  # fmt: skip
        return Moments(found.spans, np.array(best)), record
