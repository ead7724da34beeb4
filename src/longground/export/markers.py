"""Markers: one per found moment, on its source clip, named by the query, with a comment
(score, rank, method, channel) and a colour, in the shape every editing format writes.

The colour says where the moment came from when a channel answered it (what was said, what
is written on screen, a person) and how sure the method was otherwise, in bands of the
score (the agent's scores are confidences in [0, 1]). The colours are the ones every
format's palette shares (OTIO's `MarkerColor` names, which Avid locators, Premiere and
Resolve all have).
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

from ..timecode import ordinal
from .found import Found, frame_range

#: Colour of a moment found by an evidence channel.
CHANNEL_COLOURS = {"speech": "CYAN", "text": "BLUE", "people": "MAGENTA"}
#: Colour by score for the picture (`visual`) or an unknown channel: the first band whose
#: lower bound the score reaches.
SCORE_BANDS = ((0.75, "GREEN"), (0.5, "YELLOW"), (float("-inf"), "RED"))
#: Colour of a moment without a score.
NO_SCORE_COLOUR = "WHITE"


@dataclass(frozen=True)
class Marker:
    """One found moment as a marker on its source clip.

    Args:
        first_frame: the moment's first frame on the clip's own clock (0 = the file's first
            frame; the clip's start timecode is added by each format).
        frames: its length in frames (at least one).
        name: the query.
        comment: score, rank, method and channel, for the marker's note.
        colour: an OTIO `MarkerColor` name.
        start_s, end_s: the moment, unrounded.
        score: the method's score (None: it gives none).
        rank: the moment's place by score in its video, 1 = best.
        count: how many moments the query found in the video.
    """

    first_frame: int
    frames: int
    name: str
    comment: str
    colour: str
    start_s: float
    end_s: float
    score: float | None
    rank: int
    count: int

    def metadata(self, found: Found) -> dict:
        """Everything known about the moment, as OTIO metadata under "longground"."""
        return {"video": str(found.video), "query": found.query, "start_s": self.start_s,
                "end_s": self.end_s, "score": self.score, "rank": self.rank,
                "count": self.count, "method": found.method, "channel": found.channel,
                "comment": self.comment}  # fmt: skip


def colour_of(score: float | None, channel: str | None) -> str:
    """The marker colour of a moment.

    >>> colour_of(0.9, None), colour_of(0.6, "visual"), colour_of(0.1, None)
    ('GREEN', 'YELLOW', 'RED')
    >>> colour_of(0.1, "speech"), colour_of(None, None)
    ('CYAN', 'WHITE')
    """
    if channel in CHANNEL_COLOURS:
        return CHANNEL_COLOURS[channel]
    if score is None:
        return NO_SCORE_COLOUR
    return next(colour for bound, colour in SCORE_BANDS if score >= bound)


def markers_of(found: Found, fps: Fraction) -> list[Marker]:
    """The markers of one video's moments at `fps`, in time order.

    >>> from pathlib import Path
    >>> from longground.moments import Moments
    >>> item = Found(Path("a.mp4"), "a car", Moments.from_list([[1.2, 4.8], [6, 7]], [0.5, 0.9]),
    ...              method="agent")
    >>> for m in markers_of(item, Fraction(25)):
    ...     print(m.first_frame, m.frames, m.colour, m.comment)
    30 90 YELLOW score 0.500, 2nd of 2, agent
    150 25 GREEN score 0.900, 1st of 2, agent
    """
    moments = found.moments
    scores = moments.scores
    count = moments.count
    ranks = _ranks(scores, count)
    markers = []
    for k, (start_s, end_s) in enumerate(moments.spans):
        score = None if scores is None else float(scores[k])
        first, frames = frame_range(float(start_s), float(end_s), fps)
        parts = [] if score is None else [f"score {score:.3f}"]
        parts.append(f"{ordinal(ranks[k])} of {count}")
        parts += [p for p in (found.method, found.channel if found.channel != "visual" else None)
                  if p]  # fmt: skip
        markers.append(Marker(first, frames, found.query, ", ".join(parts),
                              colour_of(score, found.channel), float(start_s), float(end_s),
                              score, ranks[k], count))  # fmt: skip
    return markers


def _ranks(scores, count: int) -> list[int]:
    """1-based rank of each moment by score (time order without scores)."""
    if scores is None:
        return list(range(1, count + 1))
    order = sorted(range(count), key=lambda k: -float(scores[k]))
    ranks = [0] * count
    for place, k in enumerate(order, start=1):
        ranks[k] = place
    return ranks
