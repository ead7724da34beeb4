"""CSV: one row per moment, and one row with empty times for a video searched without a
match, so a count per video (`groupby("video").start_s.count()`) keeps its zeros.

Header `video,query,start,end,start_s,end_s,score,method,channel`: `start`/`end` are
`HH:MM:SS.sss` for people and spreadsheets, `start_s`/`end_s` the seconds as plain floats.
"""

from __future__ import annotations

import csv
from collections.abc import Sequence
from typing import IO

from ..timecode import format_time
from .found import Found

HEADER = ("video", "query", "start", "end", "start_s", "end_s", "score", "method", "channel")


def write_csv(found: Sequence[Found], handle: IO[str]) -> None:
    """Write every moment of `found` as a CSV row (no score: empty), and a row with empty
    times for each search that found nothing.

    >>> import io
    >>> from pathlib import Path
    >>> from longground.moments import Moments
    >>> out = io.StringIO()
    >>> write_csv([Found(Path("a.mp4"), "a car", Moments.from_list([[1.2, 4.8]], [0.9])),
    ...            Found(Path("b.mp4"), "a car", Moments.empty())], out)
    >>> print(out.getvalue().strip())
    video,query,start,end,start_s,end_s,score,method,channel
    a.mp4,a car,00:00:01.200,00:00:04.800,1.2,4.8,0.9,,
    b.mp4,a car,,,,,,,
    """
    writer = csv.writer(handle, lineterminator="\n")
    writer.writerow(HEADER)
    for item in found:
        tail = [item.method or "", item.channel or ""]
        if not item.moments.count:
            writer.writerow([str(item.video), item.query, "", "", "", "", "", *tail])
        scores = item.moments.scores
        for k, (start_s, end_s) in enumerate(item.moments.spans):
            score = "" if scores is None else repr(float(scores[k]))
            writer.writerow([str(item.video), item.query, format_time(start_s, 3),
                             format_time(end_s, 3), repr(float(start_s)), repr(float(end_s)),
                             score, *tail])  # fmt: skip
