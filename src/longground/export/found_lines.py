"""JSON Lines: one line per search (a video and a query), the object `find --json` prints:
`{"video", "query", "method", "channel", "count", "moments": [{"start_s", "end_s",
"score"}, ...]}`, each moment with its `tracks` when they were asked for (`Track.to_dict`),
and `"objects"` with `"counted": "objects"` when the search counted objects.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import IO

from ..formats.lines import write_lines
from ..moments import Moments
from .found import Found


def moment_records(moments: Moments, tracks: Sequence | None = None) -> list[dict]:
    """Each moment as `{"start_s", "end_s", "score"}` (score None when not given), with its
    `"tracks"` when `tracks` (one sequence of `Track`s per moment) is given.

    >>> moment_records(Moments.from_list([[1.0, 2.5]], [0.75]))
    [{'start_s': 1.0, 'end_s': 2.5, 'score': 0.75}]
    """
    scores = moments.scores if moments.scores is not None else [None] * len(moments)
    records = [{"start_s": float(s), "end_s": float(e), "score": None if c is None else float(c)}
               for (s, e), c in zip(moments.spans, scores)]  # fmt: skip
    if tracks is not None:
        for record, moment_tracks in zip(records, tracks):
            record["tracks"] = [track.to_dict() for track in moment_tracks]
    return records


def found_record(item: Found) -> dict:
    """One search as a JSON object (see the module text).

    >>> from pathlib import Path
    >>> record = found_record(Found(Path("a.mp4"), "a car", Moments.empty(), method="agent"))
    >>> record["video"], record["method"], record["count"], record["moments"]
    ('a.mp4', 'agent', 0, [])
    """
    record = {"video": str(item.video), "query": item.query, "method": item.method,
              "channel": item.channel, "count": item.moments.count,
              "moments": moment_records(item.moments, item.tracks)}  # fmt: skip
    if item.objects is not None:
        record.update(objects=item.objects, counted="objects")
    return record


def write_found_lines(found: Sequence[Found], handle: IO[str]) -> None:
    """Write one `found_record` line per search."""
    write_lines(handle, (found_record(item) for item in found))
