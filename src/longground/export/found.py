"""`Found`: the moments one query found in one video, the unit every export writes."""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path

from ..moments import Moments


@dataclass(frozen=True)
class Found:
    """What a search found: the video, the query and its moments (in seconds).

    Args:
        video: the searched video file.
        query: the query text.
        moments: the moments, in time order for the exports.
        fps: the video's exact frame rate, which frame-exact formats (EDL, OTIO, clips)
            round to; None when the video was not read (those formats then read it).

    >>> Found(Path("a.mp4"), "a car", Moments.from_list([[1, 2]])).moments.count
    1
    """

    video: Path
    query: str
    moments: Moments
    fps: Fraction | None = None

    def __post_init__(self) -> None:
        if not self.query.strip():
            raise ValueError("a found set needs its query")
        object.__setattr__(self, "video", Path(self.video))
        object.__setattr__(self, "moments", self.moments.sorted())
        if self.fps is not None and Fraction(self.fps) <= 0:
            raise ValueError(f"fps must be positive, got {self.fps}")

    def with_fps(self) -> Found:
        """This set with `fps` read from the video when it is not known yet."""
        if self.fps is not None:
            return self
        from ..video import probe

        return Found(self.video, self.query, self.moments, probe(self.video).fps)


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
