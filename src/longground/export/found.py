"""`Found`: the moments one query found in one video, the unit every export writes."""

from __future__ import annotations

from dataclasses import dataclass, replace
from fractions import Fraction
from pathlib import Path

import numpy as np

from ..moments import Moments
from ..track import Track
from .clock import SourceClock


@dataclass(frozen=True)
class Found:
    """What a search found: the video, the query and its moments (in seconds).

    Args:
        video: the searched video file.
        query: the query text.
        moments: the moments, in time order for the exports (none: the video was searched
            and nothing matched, still a row of the CSV).
        clock: the video's frame clock, which frame-exact formats (EDL, XML, OTIO, clips)
            round to; None when the video was not read (those formats then read it).
        method: the grounding method that found them, when known.
        channel: the evidence channel that answered ("visual", "speech", "text",
            "people"), when known.
        tracks: the tracks inside each moment (`tracks[k]` those of moment `k`), when
            tracks were asked for; None when not (an empty tuple for a moment: it was
            looked at and holds none, or it was found by speech or on-screen text).
        objects: the number of distinct objects (tracks) when the search counted objects;
            None when its count is of shots (the moments).

    >>> Found(Path("a.mp4"), "a car", Moments.from_list([[1, 2]])).moments.count
    1
    """

    video: Path
    query: str
    moments: Moments
    clock: SourceClock | None = None
    method: str | None = None
    channel: str | None = None
    tracks: tuple[tuple[Track, ...], ...] | None = None
    objects: int | None = None

    def __post_init__(self) -> None:
        if not self.query.strip():
            raise ValueError("a found set needs its query")
        object.__setattr__(self, "video", Path(self.video))
        order = np.argsort(self.moments.starts_s, kind="stable")  # as Moments.sorted
        object.__setattr__(self, "moments", self.moments[order])
        if self.tracks is not None:
            if len(self.tracks) != self.moments.count:
                raise ValueError(f"{len(self.tracks)} track lists for {self.moments.count} "
                                 "moments")  # fmt: skip
            tracks = tuple(tuple(self.tracks[k]) for k in order)
            object.__setattr__(self, "tracks", tracks)

    def moment_tracks(self, k: int) -> tuple[Track, ...]:
        """The tracks of moment `k` (none when tracks were not asked for)."""
        return () if self.tracks is None else self.tracks[k]

    def with_clock(self) -> Found:
        """This set with its `clock` read from the video when it is not known yet.

        Raises:
            UserError: the video cannot be read.
        """
        if self.clock is not None:
            return self
        from .clock import read_clock

        return replace(self, clock=read_clock(self.video))


def channel_in(trace) -> str | None:
    """The evidence channel a method's trace says answered ("visual", "speech", ...).

    >>> channel_in({"route": {"channel": "speech"}}), channel_in({}), channel_in(None)
    ('speech', None, None)
    """
    route = trace.get("route") if isinstance(trace, dict) else None
    channel = route.get("channel") if isinstance(route, dict) else None
    return channel if isinstance(channel, str) else None


def frame_range(start_s: float, end_s: float, fps: Fraction) -> tuple[int, int]:
    """`(first frame, frame count)` of a span rounded to whole frames; at least one frame.

    Rounding both ends (not start and length) keeps every edge within half a frame.

    >>> frame_range(1.2, 4.8, Fraction(25))
    (30, 90)
    >>> frame_range(2.0, 2.0, Fraction(30000, 1001))
    (60, 1)
    """
    first = round(Fraction(start_s) * fps)
    last = round(Fraction(end_s) * fps)
    return first, max(last - first, 1)


def video_labels(videos: list[Path]) -> dict[Path, str]:
    """A short name per video that tells it apart from the others: its file name, or as
    many of its last folders as it takes when two videos share a file name.

    >>> labels = video_labels([Path("/a/day1/c.mp4"), Path("/a/day2/c.mp4"), Path("/b/x.mp4")])
    >>> [labels[p] for p in labels]
    ['day1/c.mp4', 'day2/c.mp4', 'x.mp4']
    """
    unique = list(dict.fromkeys(Path(v) for v in videos))
    depth = {video: 1 for video in unique}
    while True:
        labels = {v: "/".join(v.parts[-depth[v]:]) for v in unique}
        seen: dict[str, list[Path]] = {}
        for video, label in labels.items():
            seen.setdefault(label, []).append(video)
        clashes = [v for group in seen.values() if len(group) > 1 for v in group
                   if depth[v] < len(v.parts)]  # fmt: skip
        if not clashes:
            return labels
        for video in clashes:
            depth[video] += 1
